/**
 * Formats draft-07 defines that ajv-formats does not provide: `iri`, `iri-reference`,
 * `idn-email` and `idn-hostname`. Each is checked by mapping the internationalised text onto
 * its ASCII counterpart (percent-encoding for IRIs, IDNA for host names) and applying the ASCII
 * format's own rule, so the two never disagree.
 */

import { domainToASCII } from 'node:url';
import type { Ajv, Format } from 'ajv';
import addFormats from 'ajv-formats';

type Check = (text: string) => boolean;

function checkOf(format: Format): Check {
  if (format === true) return () => true;
  if (typeof format === 'function') return (text) => format(text) as boolean;
  if (format instanceof RegExp) return (text) => format.test(text);
  if (typeof format === 'string') return (text) => new RegExp(format).test(text);
  const { validate } = format;
  if (typeof validate === 'function') {
    const check = validate as (text: string) => unknown;
    return (text) => check(text) === true;
  }
  return checkOf(validate);
}

/**
 * Percent-encodes every non-ASCII character (RFC 3987 §3.1: IRI to URI); undefined for text
 * that is not well-formed Unicode (a lone surrogate has no UTF-8 form).
 */
function iriToUri(text: string): string | undefined {
  try {
    return text.replace(/[^\p{ASCII}]+/gu, (run) => encodeURIComponent(run));
  } catch {
    return undefined;
  }
}

/**
 * RFC 3986 §3.2.2: a host that is not an IP literal in brackets cannot contain ":", so
 * `http://2001:db8::1/` is not a URI (the checker ajv-formats uses lets it through).
 */
function hasValidAuthority(uri: string): boolean {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(uri)?.[1];
  if (authority === undefined) return true;
  const hostAndPort = authority.slice(authority.lastIndexOf('@') + 1);
  if (hostAndPort.startsWith('[')) return /^\[[^\]]*\](:[0-9]*)?$/.test(hostAndPort);
  return /^[^:]*(:[0-9]*)?$/.test(hostAndPort);
}

/** IDNA to ASCII, or undefined when the name is not a valid internationalised host name. */
function hostnameToAscii(name: string): string | undefined {
  // A label may not begin with a combining mark (RFC 5891 §4.2.3.2).
  if (name.split('.').some((label) => /^\p{M}/u.test(label))) return undefined;
  const ascii = domainToASCII(name);
  return ascii === '' ? undefined : ascii;
}

export function addExtraFormats(validator: InstanceType<typeof Ajv>): void {
  const uri = checkOf(addFormats.default.get('uri'));
  const uriReference = checkOf(addFormats.default.get('uri-reference'));
  const hostname = checkOf(addFormats.default.get('hostname'));
  const email = checkOf(addFormats.default.get('email'));

  validator.addFormat('iri', (text: string) => {
    const ascii = iriToUri(text);
    return ascii !== undefined && uri(ascii) && hasValidAuthority(ascii);
  });
  validator.addFormat('iri-reference', (text: string) => {
    const ascii = iriToUri(text);
    return ascii !== undefined && uriReference(ascii) && hasValidAuthority(ascii);
  });
  validator.addFormat('idn-hostname', (text: string) => {
    const ascii = hostnameToAscii(text);
    return ascii !== undefined && hostname(ascii);
  });
  validator.addFormat('idn-email', (text: string) => {
    const at = text.lastIndexOf('@');
    if (at <= 0) return false;
    const domain = hostnameToAscii(text.slice(at + 1));
    if (domain === undefined) return false;
    // The local part may hold any Unicode (RFC 6531); check its shape with ASCII stand-ins.
    const local = text.slice(0, at).replace(/[^\p{ASCII}]/gu, 'a');
    return email(`${local}@${domain}`);
  });
}
