/**
 * Cross-Origin Resource Sharing (the Fetch standard, §3.2 "CORS protocol"): preflight answers
 * and the headers of actual responses, configured at application, router and route level.
 */

import { SetupError } from '../../errors.js';
import { noteObsText } from '../../http/header-fields.js';
import { MultiValueHeaders } from '../../http/headers.js';
import {
  formatAllow,
  HTTPMethod,
  type MethodInput,
  normalizeMethod,
  parseMethod,
} from '../../http/methods.js';
import { addVary } from '../../http/vary.js';
import type { Request } from '../../request.js';
import { Response } from '../../response.js';
import { booleanOption, knownOptions } from '../options.js';

/**
 * CORS settings (`app.cors()`, `router.cors()`, `route.cors()`). A route inherits from its
 * routers and the application, each inner level overriding the options it sets.
 *
 * @example
 * app.cors({ origin: ['https://app.example'], credentials: true, exposeHeaders: ['ETag'] });
 */
export interface CorsOptions {
  /**
   * Which origins may read responses: `'*'` (any; the default), one origin, a list, a RegExp
   * tested against the whole `Origin` value, or a function deciding per origin.
   */
  origin?: string | readonly string[] | RegExp | ((origin: string) => boolean);
  /** Methods a preflight allows; by default every method the path has a route for. */
  methods?: readonly MethodInput[];
  /** Request headers a preflight allows; by default the ones the preflight asks for. */
  allowHeaders?: readonly string[];
  /** Response headers scripts may read besides the CORS-safelisted ones. */
  exposeHeaders?: readonly string[];
  /** Allow cookies and `Authorization`; the allowed origin is then echoed, never `*`. */
  credentials?: boolean;
  /** How long (seconds) a browser may cache a preflight answer. */
  maxAge?: number;
}

/** CORS settings merged along a route's routers and checked once, at compile time. */
export interface CompiledCors {
  /** `origin: '*'`: any origin. */
  anyOrigin: boolean;
  /** Whether a request's `Origin` is well-formed and allowed. */
  allows: (origin: string) => boolean;
  credentials: boolean;
  methods: ReadonlySet<string> | undefined;
  allowHeaders: string | undefined;
  exposeHeaders: string | undefined;
  maxAge: string | undefined;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// A serialised origin (scheme://host[:port], RFC 6454 §6.2) or the opaque `null`; anything else
// is never echoed: user information (`@`), a port that is not digits, brackets around anything
// but an IPv6 address (RFC 3986 §3.2.2), a path, query or fragment, whitespace, control
// characters, and the characters a browser never sends in a host (`\`, `%`, `<`, `>`, `^`, `|`).
const ORIGIN =
  /^(?:null|[A-Za-z][A-Za-z0-9+.-]*:\/\/(?:\[[0-9A-Fa-f:.]+\]|[^\s\p{Cc}/?#,@:[\]\\%<>^|]+)(?::[0-9]{1,5})?)$/u;

function headerList(option: string, values: readonly string[] | undefined): string | undefined {
  if (values === undefined) return undefined;
  if (!Array.isArray(values)) {
    throw new SetupError('INVALID_OPTION', `cors ${option} must be a list of header names`);
  }
  for (const value of values) {
    if (typeof value !== 'string' || (value !== '*' && !TOKEN.test(value))) {
      throw new SetupError(
        'INVALID_OPTION',
        `cors ${option}: ${JSON.stringify(value)} is not a header name`,
      );
    }
  }
  return values.join(', ');
}

const CORS_OPTION_NAMES: Record<keyof CorsOptions, true> = {
  origin: true,
  methods: true,
  allowHeaders: true,
  exposeHeaders: true,
  credentials: true,
  maxAge: true,
};
const CORS_OPTIONS = Object.keys(CORS_OPTION_NAMES);

/** Checks CORS options where they are registered, so mistakes surface at startup. */
export function checkCorsOptions(options: CorsOptions | false): CorsOptions | false {
  if (options === false) return false;
  if (options === null || typeof options !== 'object') {
    throw new SetupError('INVALID_OPTION', 'cors() takes an options object or false');
  }
  knownOptions('cors()', options, CORS_OPTIONS);
  booleanOption('cors credentials', options.credentials);
  const origin = options.origin;
  if (
    origin !== undefined &&
    typeof origin !== 'string' &&
    typeof origin !== 'function' &&
    !(origin instanceof RegExp) &&
    !(Array.isArray(origin) && origin.every((item) => typeof item === 'string'))
  ) {
    throw new SetupError(
      'INVALID_OPTION',
      'cors origin must be a string, a list of strings, a RegExp or a function',
    );
  }
  if (options.maxAge !== undefined && !(Number.isInteger(options.maxAge) && options.maxAge >= 0)) {
    throw new SetupError('INVALID_OPTION', 'cors maxAge must be a whole number of seconds >= 0');
  }
  if (options.methods !== undefined) {
    try {
      for (const method of options.methods) normalizeMethod(method);
    } catch (error) {
      throw new SetupError('INVALID_OPTION', `cors methods: ${(error as Error).message}`);
    }
  }
  headerList('allowHeaders', options.allowHeaders);
  headerList('exposeHeaders', options.exposeHeaders);
  return options;
}

/**
 * Whether a request's `Origin` is well-formed and allowed. Configured origins are checked for
 * form once, here: a request's origin equal to one of them needs no check of its own (notes
 * GET 84,800 → 83,376 instructions, POST 126,658 → 123,474 with the ACAO below, bench/RESULTS.md).
 */
function originMatcher(origin: CorsOptions['origin']): (value: string) => boolean {
  if (origin === undefined || origin === '*') return (value) => ORIGIN.test(value);
  if (typeof origin === 'string') {
    const wellFormed = ORIGIN.test(origin);
    return (value) => wellFormed && value === origin;
  }
  if (typeof origin === 'function') {
    return (value) => ORIGIN.test(value) && origin(value) === true;
  }
  if (origin instanceof RegExp) {
    // A global or sticky RegExp keeps state between tests; a copy without those flags does not.
    const pattern = new RegExp(origin.source, origin.flags.replace(/[gy]/g, ''));
    return (value) => ORIGIN.test(value) && pattern.test(value);
  }
  const allowed = new Set(origin.filter((item) => ORIGIN.test(item)));
  return (value) => allowed.has(value);
}

/**
 * Merges the CORS settings of a route's levels, outermost first; `false` at a level switches
 * CORS off for everything inside it (until an inner level switches it on again).
 */
export function compileCors(
  levels: ReadonlyArray<CorsOptions | false | undefined>,
): CompiledCors | undefined {
  let merged: CorsOptions | undefined;
  for (const level of levels) {
    if (level === undefined) continue;
    merged = level === false ? undefined : { ...merged, ...level };
  }
  if (merged === undefined) return undefined;
  return {
    anyOrigin: merged.origin === undefined || merged.origin === '*',
    allows: originMatcher(merged.origin),
    credentials: merged.credentials === true,
    methods:
      merged.methods === undefined
        ? undefined
        : new Set(merged.methods.map((method) => normalizeMethod(method))),
    allowHeaders: headerList('allowHeaders', merged.allowHeaders),
    exposeHeaders: headerList('exposeHeaders', merged.exposeHeaders),
    maxAge: merged.maxAge === undefined ? undefined : String(merged.maxAge),
  };
}

/**
 * The origin to put in Access-Control-Allow-Origin, or `undefined` when the request's origin
 * is not allowed.
 */
function allowedOrigin(cors: CompiledCors, origin: string | undefined): string | undefined {
  // Any origin without credentials is `*` on every response, the request's Origin or not: the
  // answer is the same for all, so a cache may hand it to any of them (no `Vary: Origin`).
  if (cors.anyOrigin && !cors.credentials) return '*';
  if (origin === undefined || !cors.allows(origin)) return undefined;
  if (cors.anyOrigin) {
    // With credentials the origin must be echoed (the Fetch standard rejects `*`). The opaque
    // `null` origin of sandboxed frames and local files is never echoed for "any origin": it
    // would hand credentialed reads to every such document.
    if (origin === 'null') return undefined;
  }
  return origin;
}

/**
 * Whether responses differ by `Origin` (everything but a credential-less `*`); route-features.ts
 * adds it to the route's other `Vary` names.
 */
export function variesByOrigin(cors: CompiledCors): boolean {
  return !(cors.anyOrigin && !cors.credentials);
}

/**
 * Adds the CORS headers of an actual (non-preflight) response, error responses included, so a
 * browser script can read why its request failed. `Vary: Origin` comes with the route's other
 * `Vary` names (decorateResponse), even when the request has no Origin, so a shared cache never
 * serves one origin's answer to another.
 */
export function addCorsHeaders(cors: CompiledCors, request: Request, response: Response): void {
  const headers = response.headers;
  const origin = allowedOrigin(cors, request.headers.get('origin'));
  if (origin === undefined) return;
  // `*` or an origin found well-formed (no CR, LF or NUL): set as it is. An echoed origin is the
  // client's text, which an origin policy may let through with obs-text in it.
  if (origin !== '*') noteObsText(origin);
  MultiValueHeaders.setTrusted(
    headers,
    'Access-Control-Allow-Origin',
    'access-control-allow-origin',
    origin,
  );
  if (cors.credentials) headers.set('Access-Control-Allow-Credentials', 'true');
  if (cors.exposeHeaders !== undefined) {
    headers.set('Access-Control-Expose-Headers', cors.exposeHeaders);
  }
}

/** Whether `request` is a CORS preflight: OPTIONS with Origin and Access-Control-Request-Method. */
export function isPreflight(request: Request): boolean {
  return (
    request.method === HTTPMethod.OPTIONS &&
    request.headers.has('access-control-request-method') &&
    request.headers.has('origin')
  );
}

// The request headers the preflight asks for, kept to well-formed names.
function requestedHeaders(headers: MultiValueHeaders): string | undefined {
  const names: string[] = [];
  for (const line of headers.getAll('access-control-request-headers')) {
    for (const member of line.split(',')) {
      const name = member.trim();
      if (TOKEN.test(name)) names.push(name.toLowerCase());
    }
  }
  return names.length === 0 ? undefined : names.join(', ');
}

/**
 * Answers a preflight. `cors` is the setting of the route the preflight asks about (`undefined`
 * when the path has no route for that method), `pathMethods` the methods the path serves and
 * `corsOf` each method's own route's CORS (what the answer may list).
 * A refused preflight is still a 204, but without the Access-Control-Allow-* headers: the
 * browser then refuses the actual request. Granted or refused, it is an answer to OPTIONS and
 * carries `Allow` as every other one does (RFC 9110 §9.3.7, §10.2.1).
 */
export function preflightResponse(
  cors: CompiledCors | undefined,
  request: Request,
  pathMethods: ReadonlySet<string>,
  corsOf: (method: string) => CompiledCors | undefined,
): Response {
  const allow = new Set(pathMethods);
  allow.add(HTTPMethod.OPTIONS);
  const response = new Response(204, undefined, { headers: { Allow: formatAllow(allow) } });
  const headers = response.headers;
  addVary(headers, 'Origin');
  addVary(headers, 'Access-Control-Request-Method');
  addVary(headers, 'Access-Control-Request-Headers');
  if (cors === undefined) return response;
  const sentOrigin = request.headers.get('origin');
  const origin = allowedOrigin(cors, sentOrigin);
  const sent = (request.headers.get('access-control-request-method') ?? '').trim();
  // Read as the request's own method is (`patch` is served as PATCH).
  const asked = parseMethod(sent) ?? sent;
  const allowed = cors.methods ?? pathMethods;
  // The method is checked against the route's methods (and the configured list): a preflight
  // for a method the path does not serve is refused here rather than by a 405 later.
  if (origin === undefined || !pathMethods.has(asked) || !allowed.has(asked)) return response;
  headers.set('Access-Control-Allow-Origin', origin);
  if (cors.credentials) headers.set('Access-Control-Allow-Credentials', 'true');
  // A browser keeps every method listed here for this origin and URL (the CORS-preflight cache
  // of the Fetch standard, §4.8) and then sends it without asking again: only methods whose own
  // route would grant this origin the same (credentials included) are listed, so a route with
  // CORS of its own, or none, is never opened by its neighbour's preflight.
  const grants = (method: string): boolean => {
    const own = corsOf(method);
    return (
      own !== undefined &&
      allowedOrigin(own, sentOrigin) !== undefined &&
      (own.methods ?? pathMethods).has(method) &&
      (!cors.credentials || own.credentials)
    );
  };
  const methods = [...allowed].filter(
    (method) => pathMethods.has(method) && (method === asked || grants(method)),
  );
  // A browser compares the method as it will send it, case and all (fetch upper-cases only
  // DELETE, GET, HEAD, OPTIONS, POST and PUT): a lower-case `patch` is granted as written.
  if (sent !== asked) methods.push(sent);
  headers.set('Access-Control-Allow-Methods', methods.join(', '));
  const allowHeaders = cors.allowHeaders ?? requestedHeaders(request.headers);
  if (allowHeaders !== undefined) headers.set('Access-Control-Allow-Headers', allowHeaders);
  if (cors.maxAge !== undefined) headers.set('Access-Control-Max-Age', cors.maxAge);
  return response;
}
