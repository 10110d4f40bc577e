/**
 * Request bodies as text: the declared charset honoured (RFC 9110 §8.3.2), UTF-8 by default and
 * strict (invalid bytes are a 400, never U+FFFD).
 */
import { HttpError } from './errors.js';
import { charsetDecoder } from './http/charset.js';

const TEXT_DECODER = new TextDecoder('utf-8', { fatal: true });

/** Bytes as text in the declared charset (RFC 9110 §8.3.2): 400 when invalid, 415 when unknown. */
export function decodeText(bytes: Uint8Array, contentType: string | undefined): string {
  const decoder = charsetDecoder(contentType);
  if (decoder === undefined) return decodeUtf8(bytes);
  if (decoder === null) throw new HttpError(415, `Unsupported charset in ${contentType}`);
  try {
    return decoder.decode(bytes);
  } catch {
    throw new HttpError(400, `Request body is not valid ${decoder.encoding}`);
  }
}

/** Bytes as UTF-8 text; invalid UTF-8 is a 400. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return TEXT_DECODER.decode(bytes);
  } catch {
    throw new HttpError(400, 'Request body is not valid UTF-8');
  }
}

/**
 * Text that arrived as text, without the byte order mark its bytes would have lost in decoding
 * (a decoder drops it, RFC 8259 §8.1): the same body reads the same on every adapter.
 */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
