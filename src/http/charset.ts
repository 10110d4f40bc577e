/**
 * The `charset` parameter of a request body's media type (RFC 9110 §8.3.2): which decoder turns
 * its bytes into text. Labels are the WHATWG Encoding Standard's, as `TextDecoder` knows them
 * (`latin1`, `iso-8859-1`, `windows-1252`, `utf-16le`...).
 */
import { parseMediaType } from './media-type.js';
import { memoizeHeaderParser } from './memo.js';

// Labels the Encoding Standard maps to UTF-8: they keep the strict default decoder.
const UTF8_LABELS: ReadonlySet<string> = new Set(['utf-8', 'utf8', 'unicode-1-1-utf-8']);

/** The part of a `TextDecoder` used here (structural: the core compiles without DOM types). */
export interface CharsetDecoder {
  readonly encoding: string;
  decode(bytes: Uint8Array): string;
}

// WHATWG index-windows-1252 for bytes 0x80-0x9F (latin1 and iso-8859-1 are its labels too).
const WINDOWS_1252_C1 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function windows1252(inner: CharsetDecoder): CharsetDecoder {
  return {
    encoding: inner.encoding,
    decode: (bytes) =>
      inner
        .decode(bytes)
        .replace(/[\u0080-\u009f]/g, (c) => WINDOWS_1252_C1[c.charCodeAt(0) - 0x80] as string),
  };
}

/** `false` for UTF-8 (none declared, or a UTF-8 label): a memo keeps no `undefined`. */
function decoderFor(contentType: string): CharsetDecoder | null | false {
  const label = parseMediaType(contentType)?.params.charset?.trim().toLowerCase();
  if (label === undefined || UTF8_LABELS.has(label)) return false;
  try {
    // fatal: a byte sequence the charset cannot hold is an error, not U+FFFD.
    const decoder = new TextDecoder(label, { fatal: true });
    // Node 20.18.3 and later decode windows-1252 as ISO-8859-1, 0x80 as U+0080 instead of the
    // euro sign (nodejs/node#60888): the C1 range is mapped here where the runtime gets it wrong.
    const wrong =
      decoder.encoding === 'windows-1252' && decoder.decode(Uint8Array.of(0x80)) !== '\u20ac';
    return wrong ? windows1252(decoder) : decoder;
  } catch {
    return null;
  }
}

// Clients send a handful of distinct Content-Types (`application/json; charset=utf-8` above all).
const decoderForCached = memoizeHeaderParser(decoderFor, 64);

/**
 * The decoder for the charset `contentType` declares: `undefined` when it declares none or
 * UTF-8 (the caller's strict UTF-8 default applies), `null` when `TextDecoder` does not know
 * the label.
 *
 * @example
 * charsetDecoder('text/plain; charset=iso-8859-1')?.decode(new Uint8Array([0xe9])); // 'é'
 */
export function charsetDecoder(contentType: string | undefined): CharsetDecoder | null | undefined {
  // Most bodies carry no parameter at all: no parsing for them.
  if (contentType === undefined || contentType.indexOf(';') === -1) return undefined;
  const decoder = decoderForCached(contentType);
  return decoder === false ? undefined : decoder;
}
