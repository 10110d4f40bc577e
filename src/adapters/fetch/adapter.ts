/**
 * FetchAdapter: an application as a WHATWG `fetch` handler, `(Request) => Promise<Response>`,
 * for Bun, Deno, Cloudflare Workers and Node's own `Request`/`Response`.
 */

import type { Logger } from '../../app/logger.js';
import { SetupError } from '../../errors.js';
import { MultiValueHeaders } from '../../http/headers.js';
import { Request as RestRequest } from '../../request.js';
import { FileBody, isStream, type Response as RestResponse, streamChunks } from '../../response.js';
import { toReadableStream } from './stream.js';

/** What the adapter needs from an application (every `RestApplication` has it). */
export interface FetchApplication {
  execute(request: RestRequest): Promise<RestResponse>;
  readonly logger: Logger;
}

/** `(request) => Promise<Response>` in the runtime's own WHATWG types. */
export type FetchHandler = (request: globalThis.Request) => Promise<globalThis.Response>;

/**
 * The path and query of a request URL as the client sent them. The URL is sliced rather than
 * parsed so percent-encoding stays exactly as it arrived: the router decodes each segment
 * once, and `%2F` must not turn into a separator here.
 */
function splitUrl(url: string): [path: string, query: string | undefined] {
  const scheme = url.indexOf('://');
  const start = scheme === -1 ? 0 : url.indexOf('/', scheme + 3);
  let end = url.indexOf('#', start === -1 ? 0 : start);
  if (end === -1) end = url.length;
  if (start === -1 || start > end) {
    // `http://host?x` has an empty path, which means `/` (RFC 9110 §4.2.3).
    const question = url.indexOf('?', scheme + 3);
    const query = question === -1 || question > end ? undefined : url.slice(question + 1, end);
    return ['/', query];
  }
  const question = url.indexOf('?', start);
  if (question === -1 || question > end) return [url.slice(start, end), undefined];
  return [url.slice(start, question), url.slice(question + 1, end)];
}

/**
 * The `signal` injectable follows the incoming request's own signal, which the runtime aborts
 * when the client goes away (Fetch standard, "Request": `signal`).
 */
function observeFetchSignal(request: RestRequest, listener: () => void): void {
  const signal = request.context.fetchSignal as AbortSignal | undefined;
  if (signal === undefined) return;
  if (signal.aborted) listener();
  else signal.addEventListener('abort', listener, { once: true });
}

function toRestRequest(request: globalThis.Request): RestRequest {
  const [path, query] = splitUrl(request.url);
  const tls = request.url.startsWith('https:');
  return new RestRequest({
    method: request.method,
    path,
    // WHATWG Headers join repeated request headers with ", " (Fetch §5.2); that is all a
    // Fetch runtime tells us, and it is the same list by RFC 9110 §5.3.
    headers: new MultiValueHeaders(request.headers),
    body: request.body,
    queryParams: query,
    tls,
    protocol: tls ? 'https' : 'http',
    context: { fetchSignal: request.signal, onClientGone: observeFetchSignal },
  });
}

async function fileStream(body: FileBody): Promise<ReadableStream<Uint8Array>> {
  // Loaded only when a file is actually served, so the adapter still loads on runtimes without
  // `node:fs` (Workers); there a file body fails here and the request gets a 500.
  const { createReadStream } = await import('node:fs');
  const stream =
    body.start === undefined && body.end === undefined
      ? createReadStream(body.path)
      : createReadStream(body.path, { start: body.start, end: body.end });
  return toReadableStream(stream);
}

async function toBody(
  body: RestResponse['body'],
): Promise<string | Uint8Array | ReadableStream<Uint8Array> | null> {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof FileBody) return fileStream(body);
  if (body instanceof ReadableStream) return body as ReadableStream<Uint8Array>;
  if (isStream(body)) {
    return toReadableStream(Symbol.asyncIterator in body ? body : streamChunks(body));
  }
  return null;
}

async function toFetchResponse(response: RestResponse): Promise<globalThis.Response> {
  const headers = new Headers();
  // append(), never set(): each Set-Cookie stays its own header (RFC 6265 §3); Headers keeps
  // them apart and runtimes send one line each.
  for (const [name, value] of response.headers) headers.append(name, value);
  return new Response(await toBody(response.body), { status: response.statusCode, headers });
}

/** The plain 500 when the normal response cannot be made, echoing the request id if any. */
function failure(requestId: string | undefined): globalThis.Response {
  const headers = new Headers({ 'Content-Type': 'text/plain; charset=utf-8' });
  if (requestId !== undefined) headers.set('X-Request-ID', requestId);
  return new Response('Internal Server Error', { status: 500, headers });
}

/**
 * Serves an application through the WHATWG Fetch API. Request bodies are streamed to the
 * pipeline (which enforces `bodyLimit`), response streams and files are streamed out, and
 * every `Set-Cookie` stays separate. Startup handlers run before the first request; if they
 * fail, requests get 500 and the error is logged once.
 *
 * @example
 * import { FetchAdapter } from 'restmachine/fetch';
 *
 * const adapter = new FetchAdapter(app);
 * export default { fetch: adapter.fetch }; // Bun, Cloudflare Workers
 * // Deno: Deno.serve(adapter.fetch);
 */
export class FetchAdapter {
  readonly app: FetchApplication;
  /** The handler; bound, so it can be passed around on its own. */
  readonly fetch: FetchHandler;

  constructor(app: FetchApplication) {
    if (app === null || typeof app !== 'object' || typeof app.execute !== 'function') {
      throw new SetupError('INVALID_OPTION', 'FetchAdapter needs a RestApplication');
    }
    this.app = app;
    this.fetch = (request) => this.handle(request);
  }

  /** Handles one request. Never rejects: anything unexpected is logged and answered with 500. */
  async handle(request: globalThis.Request): Promise<globalThis.Response> {
    let response: RestResponse | undefined;
    let restRequest: ReturnType<typeof toRestRequest> | undefined;
    try {
      restRequest = toRestRequest(request);
      response = await this.app.execute(restRequest);
      return await toFetchResponse(response);
    } catch (error) {
      const requestId = restRequest?.requestId;
      this.app.logger.error('Request could not be handled', { requestId, error });
      const body = response?.body;
      if (body !== null && typeof body === 'object' && 'destroy' in body) {
        (body as { destroy(): void }).destroy();
      }
      return failure(requestId);
    }
  }
}
