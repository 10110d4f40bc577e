/**
 * `etag: 'auto'` (docs/http-semantics.md, "Automatic ETags"): a buffered 200 answer to GET or
 * HEAD that carries no validator of its own gets a weak entity tag computed from its body, so
 * the way out answers a matching `If-None-Match` with 304 (RFC 9110 §13.1.2).
 *
 * The tag is weak (RFC 9110 §8.8.1): it is computed from the bytes the handler produced, after
 * the handler ran, and promises only that the representation is equivalent, which is all
 * If-None-Match needs (it uses the weak comparison, §13.1.2). If-Range, which needs a strong
 * tag (§13.1.5), never matches it and gets the whole representation.
 */
import { HTTPMethod } from '../../http/methods.js';
import type { Request } from '../../request.js';
import type { Response } from '../../response.js';

/**
 * Puts a weak ETag from the body on `response` when it is a 200 to GET or HEAD with a text or
 * bytes body and no ETag or Last-Modified of its own. `routeValidators` is true when the route
 * has `etag()` or `lastModified()` providers, whose validators win on the way out.
 */
export function addAutoEtag(response: Response, request: Request, routeValidators: boolean): void {
  if (response.statusCode !== 200 || routeValidators) return;
  const method = request.method;
  if (method !== HTTPMethod.GET && method !== HTTPMethod.HEAD) return;
  if (response.etag !== undefined || response.lastModified !== undefined) return;
  const headers = response.headers;
  if (headers.has('etag') || headers.has('last-modified')) return;
  const body = response.body;
  if (typeof body === 'string') response.setEtag(weakTag(hashText(body), body.length));
  else if (body instanceof Uint8Array) response.setEtag(weakTag(hashBytes(body), body.length));
}

function weakTag(hash: string, length: number): string {
  return `W/"${length.toString(36)}-${hash}"`;
}

// A 64-bit non-cryptographic hash (two 32-bit multiply-xorshift lanes, the construction of the
// public-domain cyrb53), synchronous and free of runtime modules so the core stays portable. A
// collision would only make a cache keep a stale copy of the same URL; the body length in the
// tag makes even that need two bodies of one length.
const SEED_A = 0xdeadbeef;
const SEED_B = 0x41c6ce57;

function finish(a: number, b: number): string {
  const x = Math.imul(a ^ (a >>> 16), 2246822507) ^ Math.imul(b ^ (b >>> 13), 3266489909);
  const y = Math.imul(b ^ (b >>> 16), 2246822507) ^ Math.imul(x ^ (x >>> 13), 3266489909);
  return (x >>> 0).toString(16).padStart(8, '0') + (y >>> 0).toString(16).padStart(8, '0');
}

function hashText(text: string): string {
  let a = SEED_A;
  let b = SEED_B;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    a = Math.imul(a ^ unit, 2654435761);
    b = Math.imul(b ^ unit, 1597334677);
  }
  return finish(a, b);
}

function hashBytes(bytes: Uint8Array): string {
  let a = SEED_A;
  let b = SEED_B;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    a = Math.imul(a ^ byte, 2654435761);
    b = Math.imul(b ^ byte, 1597334677);
  }
  return finish(a, b);
}
