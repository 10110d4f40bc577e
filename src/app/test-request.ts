/**
 * The Request `app.request(path, init)` executes: a path and a fetch-like init, with `json` as
 * a shorthand for a JSON body and its Content-Type.
 */
import { MultiValueHeaders } from '../http/headers.js';
import { Request } from '../request.js';
import type { TestRequestInit } from './types.js';

export function testRequest(path: string, init: TestRequestInit): Request {
  let headers = init.headers;
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    const copy = new MultiValueHeaders(headers);
    if (!copy.has('content-type')) copy.set('Content-Type', 'application/json');
    headers = copy;
  }
  return new Request({
    method: init.method ?? 'GET',
    path,
    headers: headers ?? null,
    body: body ?? null,
  });
}
