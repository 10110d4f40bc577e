/**
 * Route templates (docs/application.md, "Registering routes"): `{name}` parameters as whole
 * segments, one trailing `{name*}` catch-all, and a clear refusal of the syntax other routers use.
 */
import { SetupError } from '../../errors.js';
import { BUILTIN_NAMES } from '../inject/builtins.js';

// A parameter is named as a JavaScript identifier is, Unicode letters included (`{prénom}`), so
// that a handler can destructure it by that name (docs/application.md).
const PARAM = /^\{([\p{ID_Start}_$][\p{ID_Continue}$\u200C\u200D]*)(\*)?\}$/u;

/**
 * Refuses the parameter syntax of other routers (Express, Fastify, Hono): `:id` and `*` would
 * otherwise be literal segments that match nothing, and the handler's `id` an unknown name.
 */
function refuseForeignSyntax(path: string, segment: string): void {
  const name = segment.slice(1).replace(/[^\w$]/g, '');
  if (segment.startsWith(':')) {
    throw new SetupError(
      'INVALID_ROUTE',
      `Route ${path}: write path parameters as {${name || 'name'}}, not "${segment}"`,
    );
  }
  if (segment.startsWith('*')) {
    throw new SetupError(
      'INVALID_ROUTE',
      `Route ${path}: write a catch-all as {${name || 'path'}*}, not "${segment}"`,
    );
  }
}

/**
 * Refuses a static segment no request could match as written: requests are matched once their
 * dot-segments are removed (RFC 3986 §5.2.4) and each segment is percent-decoded, so a template
 * says `a b` where a client sends `a%20b` (docs/application.md, "Routing rules").
 */
function refuseUnmatchable(path: string, segment: string): void {
  if (segment === '.' || segment === '..') {
    throw new SetupError(
      'INVALID_ROUTE',
      `Route ${path}: "${segment}" segments are removed from request paths before matching (RFC 3986 §5.2.4), so no request matches it; leave it out`,
    );
  }
  const percentEscape = /%[0-9A-Fa-f]{2}/.exec(segment);
  if (percentEscape !== null) {
    throw new SetupError(
      'INVALID_ROUTE',
      `Route ${path}: "${percentEscape[0]}" in a template would match only a client's "${percentEscape[0].replace('%', '%25')}"; request segments are percent-decoded before matching, so write the character itself`,
    );
  }
}

/**
 * Checks a route template: `/a/{b}/{rest*}`; a catch-all only as the last segment; no parameter
 * named like a built-in (`{log}`, `{request}`).
 */
export function validateTemplate(path: string): void {
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw new SetupError(
      'INVALID_ROUTE',
      `Route path must start with "/": ${JSON.stringify(path)}`,
    );
  }
  const segments = path.split('/').filter((segment) => segment !== '');
  const seen = new Set<string>();
  segments.forEach((segment, index) => {
    refuseForeignSyntax(path, segment);
    if (!segment.includes('{') && !segment.includes('}')) {
      refuseUnmatchable(path, segment);
      return;
    }
    const match = PARAM.exec(segment);
    if (match === null) {
      throw new SetupError(
        'INVALID_ROUTE',
        `Route ${path}: "${segment}" is not a parameter; use a whole segment such as {id} or {path*}`,
      );
    }
    const name = match[1] as string;
    // Injected by name, the parameter would stand in for the built-in in every function of
    // the route, the application's providers included (docs/application.md).
    if (BUILTIN_NAMES.has(name)) {
      throw new SetupError(
        'NAME_CLASH',
        `Route ${path}: parameter "${name}" is a built-in name; give the parameter another name`,
      );
    }
    // Set on the injection object, it would replace the object's prototype.
    if (name === '__proto__') {
      throw new SetupError(
        'NAME_CLASH',
        `Route ${path}: a parameter cannot be named "__proto__"; give it another name`,
      );
    }
    if (seen.has(name)) {
      throw new SetupError('INVALID_ROUTE', `Route ${path}: parameter "${name}" appears twice`);
    }
    seen.add(name);
    if (match[2] === '*' && index !== segments.length - 1) {
      throw new SetupError('INVALID_ROUTE', `Route ${path}: a catch-all must be the last segment`);
    }
  });
}

/** Normalises a mount prefix: leading slash, no trailing slash, `/` for the root. */
export function normalizePrefix(prefix: string): string {
  if (typeof prefix !== 'string')
    throw new SetupError('INVALID_ROUTE', 'Mount prefix must be a string');
  const trimmed = prefix
    .split('/')
    .filter((segment) => segment !== '')
    .join('/');
  if (trimmed !== '') validateTemplate(`/${trimmed}`);
  return trimmed === '' ? '' : `/${trimmed}`;
}

/** The parameter names of a template or mount prefix, in order (`/a/{b}/{rest*}`: b, rest). */
export function templateParams(template: string): string[] {
  return template
    .split('/')
    .filter((segment) => segment.startsWith('{'))
    .map((segment) => segment.slice(1, segment.endsWith('*}') ? -2 : -1));
}
