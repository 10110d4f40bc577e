/**
 * The response headers every integration receives, before each shapes them its own way.
 */
import { MultiValueHeaders } from '../../http/headers.js';
import type { Response } from '../../response.js';
import type { ResultBody } from './body.js';

/** Statuses that never carry content, so never a Content-Length (RFC 9110 §8.6, §6.4.1). */
export function forbidsContent(status: number): boolean {
  return status === 204 || status === 304 || status < 200;
}

/**
 * Calls `visit` once per header name with all its values, in the response's order:
 * Content-Length recomputed from the bytes actually sent (a HEAD keeps the GET's, RFC 9110
 * §9.3.2), Content-Type added when the body implies one and the status allows content. `Set-Cookie` values stay separate.
 * `values` is a fresh array each time, which `visit` may keep.
 */
export function forEachResultHeader(
  response: Response,
  body: ResultBody,
  head: boolean,
  visit: (name: string, values: string[]) => void,
): void {
  const status = response.statusCode;
  const noContent = forbidsContent(status);
  let sawType = false;
  let sawLength = false;
  MultiValueHeaders.forEachField(response.headers, (name, key, values) => {
    if (key === 'content-length') {
      sawLength = true;
      if (noContent) return;
      if (!head) {
        visit(name, [String(body.byteLength)]);
        return;
      }
    } else if (key === 'content-type') sawType = true;
    visit(name, values);
  });
  // A 204 or 304 has no content for a type to describe (a 304 drops Content-*, RFC 9110
  // §15.4.5), as on every other adapter.
  if (!sawType && !noContent) {
    const type = response.contentType ?? body.impliedContentType;
    if (type !== undefined) visit('Content-Type', [type]);
  }
  if (!sawLength && !noContent && !head) visit('Content-Length', [String(body.byteLength)]);
}
