/**
 * The subject or issuer of a client certificate as a gateway sends it, an RFC 4514 string
 * (`CN=alice,OU=Team\, East,O=Example`), read into the object Node's `getPeerCertificate()`
 * gives (docs/node.md), so `request.clientCert.subject.CN` reads the same on every adapter.
 */
import type { DistinguishedName } from '../../client-certificate.js';
import { DataRecord } from '../../http/data-record.js';

// RFC 4514 §3: an attribute type is a descriptor (`CN`, `emailAddress`) or a numeric OID.
const ATTRIBUTE_TYPE = /^(?:[A-Za-z][A-Za-z0-9-]*|[0-9]+(?:\.[0-9]+)*)$/;
const HEX_PAIR = /^[0-9A-Fa-f]{2}$/;
const UTF8 = new TextDecoder();

/**
 * `text` as a map from attribute type to value, an attribute that repeats (two `OU`) as an
 * array of its values in the certificate's order, as Node gives it: RFC 4514 §2.1 writes the
 * last RDN first, so the RDNs are read back to front; the attributes of a multi-valued RDN
 * (`CN=bob+UID=7`) are flattened, as Node does. `undefined` for a string that is no
 * distinguished name. A value written as `#` and hex (BER, §2.4) is kept as written.
 *
 * @example
 * parseDistinguishedName('OU=b,OU=a,CN=alice'); // { CN: 'alice', OU: ['a', 'b'] }
 */
export function parseDistinguishedName(text: string): DistinguishedName | undefined {
  const rdns: [string, string][][] = [];
  let rdn: [string, string][] = [];
  let at = 0;
  for (;;) {
    // Spaces before a type: older writers (RFC 1779) put one after each separator.
    while (text.charCodeAt(at) === 32 /* space */) at++;
    const equals = text.indexOf('=', at);
    if (equals === -1) return undefined;
    const type = text.slice(at, equals);
    if (!ATTRIBUTE_TYPE.test(type)) return undefined;
    const value = readValue(text, equals + 1);
    if (value === undefined) return undefined;
    rdn.push([type, value.text]);
    at = value.end;
    const separator = text[at];
    if (separator === '+') {
      at++;
      continue;
    }
    rdns.push(rdn);
    if (separator === undefined) break;
    rdn = [];
    at++;
  }
  const name = new DataRecord<string | string[]>();
  for (let index = rdns.length - 1; index >= 0; index--) {
    for (const [type, value] of rdns[index] as [string, string][]) {
      const known = name[type];
      if (known === undefined) name[type] = value;
      else if (typeof known === 'string') name[type] = [known, value];
      else known.push(value);
    }
  }
  return name;
}

/** `dn` read with {@link parseDistinguishedName} when it is a string; `undefined` otherwise. */
export function distinguishedName(dn: unknown): DistinguishedName | undefined {
  return typeof dn === 'string' ? parseDistinguishedName(dn) : undefined;
}

/**
 * The value starting at `start`, unescaped, and where it ends: at an unescaped `,` or `+`, or the
 * end of `text`. RFC 4514 §2.4: `\` escapes a special character or stands before two hex digits,
 * one byte of the UTF-8 text; a value in double quotes (RFC 2253 §4, still written by some)
 * needs only `"` and `\` escaped.
 */
function readValue(text: string, start: number): { text: string; end: number } | undefined {
  const quoted = text[start] === '"';
  let at = quoted ? start + 1 : start;
  let out = '';
  let bytes: number[] = [];
  const flushBytes = (): void => {
    if (bytes.length === 0) return;
    out += UTF8.decode(new Uint8Array(bytes));
    bytes = [];
  };
  for (;;) {
    const char = text[at];
    if (char === undefined) {
      if (quoted) return undefined;
      break;
    }
    if (char === '\\') {
      const pair = text.slice(at + 1, at + 3);
      if (HEX_PAIR.test(pair)) {
        bytes.push(Number.parseInt(pair, 16));
        at += 3;
        continue;
      }
      const escaped = text[at + 1];
      if (escaped === undefined) return undefined;
      flushBytes();
      out += escaped;
      at += 2;
      continue;
    }
    if (quoted ? char === '"' : char === ',' || char === '+') break;
    flushBytes();
    out += char;
    at++;
  }
  flushBytes();
  if (!quoted) return { text: out, end: at };
  // After the closing quote, only spaces before the next separator.
  at++;
  while (text.charCodeAt(at) === 32 /* space */) at++;
  const next = text[at];
  return next === undefined || next === ',' || next === '+' ? { text: out, end: at } : undefined;
}
