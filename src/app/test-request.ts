/**
 * The Request `app.request(path, init)` executes: a path and a fetch-like init, with `json` as
 * a shorthand for a JSON body and its Content-Type.
 */
import { MultiValueHeaders } from '../http/headers.js';
import { Request } from '../request.js';
import type { RequestBody } from '../request-body.js';
import type { TestRequestBody, TestRequestInit } from './types.js';

export function testRequest(path: string, init: TestRequestInit): Request {
  let headers = init.headers;
  let body: RequestBody | null | undefined;
  let type: string | null | undefined;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    type = 'application/json';
  } else {
    [body, type] = asRequestBody(init.body);
  }
  if (type !== undefined && type !== null) {
    const copy = new MultiValueHeaders(headers);
    if (!copy.has('content-type')) copy.set('Content-Type', type);
    headers = copy;
  }
  return new Request({
    method: init.method ?? 'GET',
    path,
    headers: headers ?? null,
    body: body ?? null,
  });
}

/**
 * A body as fetch takes it, and the Content-Type fetch would send with it: text as
 * `text/plain;charset=UTF-8`; bytes of any view as they are; a Blob, form data or URL-encoded parameters serialised by the runtime's own Request,
 * as `fetch()` would (a multipart boundary, `application/x-www-form-urlencoded;charset=UTF-8`,
 * the Blob's type).
 */
function asRequestBody(
  body: TestRequestBody | null | undefined,
): [RequestBody | null | undefined, string | null | undefined] {
  if (body instanceof ArrayBuffer) return [new Uint8Array(body), undefined];
  if (ArrayBuffer.isView(body) && !(body instanceof Uint8Array)) {
    return [new Uint8Array(body.buffer, body.byteOffset, body.byteLength), undefined];
  }
  if (
    (typeof Blob === 'function' && body instanceof Blob) ||
    (typeof FormData === 'function' && body instanceof FormData) ||
    (typeof URLSearchParams === 'function' && body instanceof URLSearchParams)
  ) {
    const serialised = new globalThis.Request('http://localhost/', { method: 'POST', body });
    return [serialised.body ?? undefined, serialised.headers.get('content-type')];
  }
  // Text goes as `fetch()` sends it, with its type.
  if (typeof body === 'string') return [body, 'text/plain;charset=UTF-8'];
  return [body as RequestBody | null | undefined, undefined];
}
