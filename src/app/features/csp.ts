/**
 * Content-Security-Policy (W3C CSP Level 3) headers, configured at application, router and route
 * level, with a fresh nonce per request for inline scripts and styles.
 */

import { SetupError } from '../../errors.js';
import type { Request } from '../../request.js';
import type { Response } from '../../response.js';
import { newRequestState, type RequestState, requestNonce } from '../inject/request-state.js';

/**
 * A Content-Security-Policy (`app.csp()`, `router.csp()`, `route.csp()`). Directive names may be
 * written in kebab-case or camelCase; a list value is joined with spaces, `true` sends the
 * directive without a value, `false` leaves it out. The source `'nonce'` stands for this
 * request's nonce (`'nonce-...'`), which handlers inject as `cspNonce`.
 *
 * @example
 * app.csp({
 *   directives: {
 *     defaultSrc: ["'self'"],
 *     scriptSrc: ["'self'", "'nonce'"],
 *     upgradeInsecureRequests: true,
 *   },
 * });
 * app.get('/', ({ cspNonce }) => html(`<script nonce="${cspNonce}">...</script>`));
 */
export interface CspOptions {
  directives: Readonly<Record<string, string | readonly string[] | boolean>>;
  /** Sends `Content-Security-Policy-Report-Only`: violations are reported, nothing is blocked. */
  reportOnly?: boolean;
}

/** A policy compiled once: the header text around the places the nonce goes. */
export interface CompiledCsp {
  headerName: string;
  /** The header value split at each nonce; one part means the policy uses no nonce. */
  parts: readonly string[];
}

/** The source expression that stands for the request's nonce. */
export const NONCE_SOURCE = "'nonce'";

const DIRECTIVE = /^[a-z][a-z0-9-]*$/;
// A source expression cannot contain `;` or `,` (they would end the directive or the policy
// and let a value smuggle in a weaker policy), nor whitespace, controls or non-ASCII (hosts are
// written in their punycode form).
const SOURCE = /^[\x21-\x2b\x2d-\x3a\x3c-\x7e]+$/;

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** Checks and compiles a policy where it is registered, so mistakes surface at startup. */
export function compileCsp(options: CspOptions): CompiledCsp {
  if (options === null || typeof options !== 'object' || typeof options.directives !== 'object') {
    throw new SetupError('INVALID_OPTION', 'csp() takes { directives, reportOnly? } or false');
  }
  const directives: string[] = [];
  const named = new Map<string, string>();
  for (const key of Object.keys(options.directives)) {
    const name = kebab(key);
    if (!DIRECTIVE.test(name)) {
      throw new SetupError('INVALID_OPTION', `csp: ${JSON.stringify(key)} is not a directive name`);
    }
    // A browser keeps the first of a directive given twice and ignores the rest.
    const earlier = named.get(name);
    if (earlier !== undefined) {
      throw new SetupError(
        'INVALID_OPTION',
        `csp: ${JSON.stringify(key)} and ${JSON.stringify(earlier)} are both ${name}; give it once`,
      );
    }
    named.set(name, key);
    const value = options.directives[key];
    if (value === false || value === undefined) continue;
    if (value === true) {
      directives.push(name);
      continue;
    }
    if (typeof value !== 'string' && !Array.isArray(value)) {
      throw new SetupError(
        'INVALID_OPTION',
        `csp ${name}: give its sources as an array or a string, true for a directive without any, or false`,
      );
    }
    const sources = typeof value === 'string' ? value.split(/\s+/).filter(Boolean) : [...value];
    for (const source of sources) {
      if (typeof source !== 'string' || !SOURCE.test(source)) {
        throw new SetupError(
          'INVALID_OPTION',
          `csp ${name}: ${JSON.stringify(source)} is not a source expression`,
        );
      }
    }
    directives.push(sources.length === 0 ? name : `${name} ${sources.join(' ')}`);
  }
  if (directives.length === 0) {
    throw new SetupError('INVALID_OPTION', 'csp: a policy needs at least one directive');
  }
  const text = directives.join('; ');
  return {
    headerName: options.reportOnly
      ? 'Content-Security-Policy-Report-Only'
      : 'Content-Security-Policy',
    parts: text.split(NONCE_SOURCE),
  };
}

/** Adds the policy to a response that has none of its own. */
export function addCspHeader(
  csp: CompiledCsp,
  response: Response,
  request: Request,
  state: RequestState | undefined,
): void {
  const headers = response.headers;
  if (headers.has(csp.headerName)) return;
  if (csp.parts.length === 1) {
    headers.set(csp.headerName, csp.parts[0] as string);
    return;
  }
  // A 304 leaves the page a cache holds, whose scripts carry the nonce of the policy stored
  // with it; a 304's fields replace the stored ones (RFC 9111 §4.3.4), so a fresh nonce there
  // would block them. The stored policy stays.
  if (response.statusCode === 304) return;
  const nonce = `'nonce-${requestNonce(state ?? newRequestState(request))}'`;
  headers.set(csp.headerName, csp.parts.join(nonce));
}
