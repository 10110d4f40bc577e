/**
 * Percent-decoding as the WHATWG URL Standard's urlencoded parser does it: each valid `%XX`
 * escape is the byte it names, anything else (a lone `%`, `%zz`) stays as it is, and the bytes
 * are then read in a charset. `decodeURIComponent` instead refuses the whole text for one bad
 * escape.
 */

function hexValue(byte: number | undefined): number {
  if (byte === undefined) return -1;
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}

/** `bytes` with every valid escape decoded and, in a form body, `+` as a space. */
export function percentDecodeBytes(bytes: Uint8Array, plusIsSpace: boolean): Uint8Array {
  const out = new Uint8Array(bytes.length);
  let length = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    const high = byte === 0x25 ? hexValue(bytes[i + 1]) : -1;
    const low = high === -1 ? -1 : hexValue(bytes[i + 2]);
    if (low !== -1) {
      out[length++] = high * 16 + low;
      i += 2;
    } else out[length++] = plusIsSpace && byte === 0x2b ? 0x20 : byte;
  }
  return out.subarray(0, length);
}

const ENCODER = new TextEncoder();
// URLSearchParams reads a query's bytes as UTF-8 with U+FFFD for what is not, and keeps a
// byte order mark as the character U+FEFF (the URL Standard's "UTF-8 decode without BOM"), as
// decodeURIComponent does for a value without a malformed escape.
const LENIENT_UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** `text` (a query component) percent-decoded leniently, as URLSearchParams reads it. */
export function percentDecodeLeniently(text: string): string {
  return LENIENT_UTF8.decode(percentDecodeBytes(ENCODER.encode(text), false));
}

/**
 * A static segment of a template as the server reads it back: the router decodes each segment
 * once (docs/application.md), so `/50%/{id}` is served at `/50%25/1`, and an unencoded `?` or
 * `#` would end the path. What RFC 3986 §3.3 lets a segment hold as it is (`:`, `@` and the
 * sub-delims) stays as written, so the URL reads like the template to a gateway in front. The
 * typed client sends it, and the OpenAPI document keys its paths with it. Throws a URIError
 * for a lone surrogate.
 */
export function encodeStaticSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/%(?:24|26|2B|2C|3A|3B|3D|40)/g, decodeURIComponent);
}
