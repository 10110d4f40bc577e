/**
 * Cookies (RFC 6265): parsing the `Cookie` request header and serialising `Set-Cookie`.
 */
import { formatHttpDate } from './date.js';
import { decodeUtf8Octets, NOT_ASCII } from './octet-text.js';

/** Options for one `Set-Cookie` (RFC 6265 §4.1). */
export interface CookieOptions {
  domain?: string;
  path?: string;
  /** An absolute expiry; sent as an IMF-fixdate. */
  expires?: Date;
  /** Lifetime in seconds. */
  maxAge?: number;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
  partitioned?: boolean;
}

// cookie-name is a token; cookie-octet excludes CTLs, whitespace, DQUOTE, comma, semicolon and
// backslash (RFC 6265 §4.1.1). Anything else could split or smuggle attributes.
const NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Values are sent raw only when they are plain cookie-octets without `%` (and without the
// optional quotes): anything else is percent-encoded, so parseCookieHeader gives back exactly the
// value that was set.
const VALUE = /^[\x21\x23-\x24\x26-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/;
const ATTRIBUTE = /^[\x20-\x3a\x3c-\x7e]*$/;
// A domain-value is a host name (RFC 6265 §4.1.2.3; an internationalised one in its A-label
// form): labels of letters, digits and hyphens, a leading dot allowed and ignored.
const DOMAIN =
  /^\.?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

// The option names, checked against CookieOptions by the compiler: a misspelt `httpOnly` would
// otherwise leave the cookie readable by scripts.
const OPTION_NAMES: ReadonlySet<string> = new Set(
  Object.keys({
    domain: true,
    path: true,
    expires: true,
    maxAge: true,
    httpOnly: true,
    secure: true,
    sameSite: true,
    partitioned: true,
  } satisfies Record<keyof CookieOptions, true>),
);
const SAME_SITE: ReadonlyMap<string, string> = new Map([
  ['strict', 'Strict'],
  ['lax', 'Lax'],
  ['none', 'None'],
]);

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

// Index scans, linear in the text: a regular expression anchored at the end (`[ \t]+$`) is tried
// at every space of a long run, quadratic time a client could choose.
function trimSpaces(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

/**
 * Parses a `Cookie` header into a name → value map; the first occurrence of a name wins
 * (RFC 6265 §5.4 orders the more specific path first). A name or value of octets above 0x7F
 * that form UTF-8 is read as UTF-8; values are percent-decoded when they decode cleanly. The map inherits
 * nothing, so a cookie named `__proto__` is plain data. Never throws.
 */
export function parseCookieHeader(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = Object.create(null);
  if (header === undefined || header === '') return cookies;
  // One look at the whole header: an all-ASCII one, nearly every one, skips the UTF-8 reading.
  const octets = NOT_ASCII.test(header);
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq === -1) continue;
    // Only SP and HTAB surround a name or value (RFC 6265 §5.2); `trim()` would also take an
    // octet 0xA0 (U+00A0 as text), the last of many a UTF-8 character, which only a non-ASCII
    // header has. A name is octets too: one a script set with non-ASCII text is read as UTF-8.
    const name = octets
      ? decodeUtf8Octets(trimSpaces(pair.slice(0, eq)))
      : pair.slice(0, eq).trim();
    if (name === '' || name in cookies) continue;
    let value = octets ? trimSpaces(pair.slice(eq + 1)) : pair.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
      value = value.slice(1, -1);
    }
    if (octets && NOT_ASCII.test(value)) value = decodeUtf8Octets(value);
    if (value.includes('%')) {
      try {
        value = decodeURIComponent(value);
      } catch {
        // Keep the raw text: a malformed escape is still the value the client sent.
      }
    }
    cookies[name] = value;
  }
  return cookies;
}

/**
 * Serialises one `Set-Cookie` value. The value is percent-encoded when it holds characters a
 * cookie cannot carry; an invalid name or attribute throws.
 */
export function serializeCookie(name: string, value: string, options: CookieOptions = {}): string {
  if (!NAME.test(name)) throw new TypeError(`Invalid cookie name ${JSON.stringify(name)}`);
  if (typeof value !== 'string') throw new TypeError('A cookie value must be a string');
  let encoded = value;
  if (!VALUE.test(value)) {
    try {
      encoded = encodeURIComponent(value);
    } catch {
      throw new TypeError(`Cookie ${name} has a value that is not well-formed Unicode`);
    }
  }
  for (const option in options) {
    if (!OPTION_NAMES.has(option)) {
      throw new TypeError(
        `Cookie ${name}: unknown option ${JSON.stringify(option)}; the options are ${[...OPTION_NAMES].join(', ')}`,
      );
    }
  }
  const site = options.sameSite === undefined ? undefined : sameSite(options.sameSite);
  const secure = options.secure === true || site === 'None' || options.partitioned === true;
  checkPrefix(name, options, secure);
  let out = `${name}=${encoded}`;
  if (options.domain !== undefined) {
    if (typeof options.domain !== 'string' || !DOMAIN.test(options.domain)) {
      throw new TypeError(`Invalid cookie Domain ${JSON.stringify(options.domain)}`);
    }
    out += `; Domain=${options.domain}`;
  }
  if (options.path !== undefined) out += `; Path=${attribute('Path', options.path)}`;
  if (options.expires !== undefined) {
    if (!(options.expires instanceof Date) || Number.isNaN(options.expires.getTime())) {
      throw new TypeError('Cookie expires must be a valid Date');
    }
    out += `; Expires=${formatHttpDate(options.expires)}`;
  }
  if (options.maxAge !== undefined) {
    if (!Number.isFinite(options.maxAge)) throw new TypeError('Cookie maxAge must be finite');
    // Digits, never an exponent (`1e+21`), which a browser ignores (RFC 6265 §5.2.2).
    out += `; Max-Age=${BigInt(Math.floor(options.maxAge))}`;
  }
  if (options.httpOnly) out += '; HttpOnly';
  if (secure) out += '; Secure';
  if (site !== undefined) out += `; SameSite=${site}`;
  if (options.partitioned) out += '; Partitioned';
  return out;
}

/**
 * The rules a browser holds a prefixed name to (RFC 6265bis §4.1.3), whatever the case of the
 * prefix: it drops a `__Secure-` cookie without `Secure`, and a `__Host-` one without `Secure`,
 * with a `Domain` or with a `Path` other than `/`, so a login (or a logout's expired cookie)
 * would silently not happen.
 */
function checkPrefix(name: string, options: CookieOptions, secure: boolean): void {
  const lower = name.toLowerCase();
  const host = lower.startsWith('__host-');
  if (!host && !lower.startsWith('__secure-')) return;
  const prefix = host ? '__Host-' : '__Secure-';
  if (!secure) throw new TypeError(`Cookie ${name}: a ${prefix} cookie needs secure: true`);
  if (host && (options.domain !== undefined || options.path !== '/')) {
    throw new TypeError(`Cookie ${name}: a __Host- cookie needs path: '/' and no domain`);
  }
}

// Any other value would be written into the header as it is, attributes and all.
function sameSite(value: string): string {
  const known = typeof value === 'string' ? SAME_SITE.get(value.toLowerCase()) : undefined;
  if (known === undefined) {
    throw new TypeError(
      `Cookie sameSite must be Strict, Lax or None, not ${JSON.stringify(value)}`,
    );
  }
  return known;
}

function attribute(name: string, value: string): string {
  if (!ATTRIBUTE.test(value))
    throw new TypeError(`Invalid cookie ${name} ${JSON.stringify(value)}`);
  return value;
}
