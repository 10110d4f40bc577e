/**
 * FetchAdapter: an application as a WHATWG `fetch` handler, `(Request) => Promise<Response>`,
 * for Bun, Deno, Cloudflare Workers and Node's own `Request`/`Response`.
 */

import { dispatch } from '../../app/kernel.js';
import type { Logger } from '../../app/logger.js';
import { HttpError, libraryAnswer, SetupError } from '../../errors.js';
import { exactly, fileSpan } from '../../file-span.js';
import { discardBody } from '../../http/bytes.js';
import { MultiValueHeaders } from '../../http/headers.js';
import { reasonPhrase } from '../../http/status.js';
import { Request as RestRequest } from '../../request.js';
import { FileBody, isStream, type Response as RestResponse, streamChunks } from '../../response.js';
import { receivedBody } from './request-body.js';
import { byteStream, type StreamFailureLog, toReadableStream } from './stream.js';
import { keepRunning, type RuntimeResponseInit, waitUntilOf, withKnownLength } from './workers.js';

/** What the adapter needs from an application (every `RestApplication` has it). */
export interface FetchApplication {
  execute(request: RestRequest): Promise<RestResponse>;
  readonly logger: Logger;
}

/**
 * `(request) => Promise<Response>` in the runtime's own WHATWG types. What a runtime passes
 * after the request (Cloudflare Workers: `env` and `ctx`; Deno: the connection's `info`; Bun:
 * the `server`) is injectable as `fetchEnv` and `fetchContext`.
 */
export type FetchHandler = (
  request: globalThis.Request,
  env?: unknown,
  context?: unknown,
) => Promise<globalThis.Response>;

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

// The `signal` injectable's listener of each request that made one, until the request is
// collected: a response body the consumer cancels fires it (see toBody).
const CLIENT_GONE = new WeakMap<RestRequest, () => void>();

/**
 * The `signal` injectable follows the incoming request's own signal, which the runtime aborts
 * when the client goes away (Fetch standard, "Request": `signal`), and the cancelling of the
 * response body, which is how a consumer says it reads no more.
 */
function observeFetchSignal(request: RestRequest, listener: () => void): void {
  CLIENT_GONE.set(request, listener);
  const signal = request.context.fetchSignal as AbortSignal | undefined;
  if (signal === undefined) return;
  if (signal.aborted) listener();
  else signal.addEventListener('abort', listener, { once: true });
}

/**
 * The client's address where the runtime tells it beside the request: Deno's `info.remoteAddr`,
 * Bun's `server.requestIP(request)`, the socket of `@hono/node-server`'s `incoming`.
 * `undefined` elsewhere (Workers put it in a header).
 */
function clientAddress(request: globalThis.Request, env: unknown): string | undefined {
  if (env === null || typeof env !== 'object') return undefined;
  const { remoteAddr, requestIP, incoming } = env as {
    remoteAddr?: unknown;
    requestIP?: unknown;
    incoming?: { socket?: { remoteAddress?: unknown } | null } | null;
  };
  if (remoteAddr !== null && typeof remoteAddr === 'object') {
    const hostname = (remoteAddr as { hostname?: unknown }).hostname;
    return typeof hostname === 'string' ? hostname : undefined;
  }
  if (incoming !== null && typeof incoming === 'object') {
    const address = incoming.socket?.remoteAddress;
    return typeof address === 'string' ? address : undefined;
  }
  if (typeof requestIP !== 'function') return undefined;
  try {
    const socket: unknown = requestIP.call(env, request);
    const address = (socket as { address?: unknown } | null)?.address;
    return typeof address === 'string' ? address : undefined;
  } catch {
    // A `requestIP` that is not Bun's (a Workers binding of that name): no address, no failure.
    return undefined;
  }
}

/**
 * The request's fields as the runtime's parser accepted them, unchecked, as the other adapters
 * take theirs: a client's value is what it is (RFC 9110 §5.5 lets a recipient keep a control
 * character), where the checks of `MultiValueHeaders` are for what an application sends. WHATWG
 * Headers join repeated request headers with ", " (Fetch §5.2); that is all a Fetch runtime
 * tells us, and it is the same list by RFC 9110 §5.3. The names are in lower case.
 */
function requestHeaders(headers: globalThis.Headers): MultiValueHeaders {
  const pairs: string[] = [];
  headers.forEach((value, name) => {
    pairs.push(name, value);
  });
  return MultiValueHeaders.fromRawPairs(pairs, true);
}

function toRestRequest(request: globalThis.Request, env: unknown, context: unknown): RestRequest {
  const [path, query] = splitUrl(request.url);
  const tls = request.url.startsWith('https:');
  return new RestRequest({
    method: request.method,
    path,
    headers: requestHeaders(request.headers),
    // A body the client stops sending is the Node adapter's 400, not a 500 (request-body.ts).
    // One declared empty is no body, as on Node (RFC 9112 §6.3), whatever stream a runtime
    // gives for it.
    body:
      request.body === null || request.headers.get('content-length') === '0'
        ? undefined
        : receivedBody(request.body),
    queryParams: query,
    tls,
    protocol: tls ? 'https' : 'http',
    remoteAddress: clientAddress(request, env),
    context: {
      fetchSignal: request.signal,
      onClientGone: observeFetchSignal,
      fetchEnv: env,
      fetchContext: context,
    },
  });
}

/**
 * A file body as a stream of exactly the bytes its Content-Length declared: `start`..`end`
 * (inclusive, as in Content-Range), else the file as long as it was when its length was
 * decided (`size`). The file is opened here, before the response exists, so a file gone since
 * the pipeline looked it up fails now, while a whole 404 or 500 can still answer.
 */
async function fileStream(
  body: FileBody,
  failureLog: StreamFailureLog,
  onCancel: () => void,
): Promise<ReadableStream<Uint8Array> | Uint8Array> {
  // Loaded only when a file is actually served, so the adapter still loads on runtimes without
  // `node:fs` (Workers); there a file body fails here and the request gets a 500.
  const { open } = await import('node:fs/promises');
  const handle = await open(body.path, 'r');
  const { start, end, length } = fileSpan(body);
  if (length === 0) {
    await handle.close();
    return new Uint8Array(0);
  }
  try {
    // Never read past `end`: a file that grows is not sent beyond its declared length.
    const stream = handle.createReadStream({ start, end });
    const source = length === undefined ? stream : exactly(stream, length, body.path);
    return toReadableStream(source, failureLog, onCancel);
  } catch (error) {
    // A `start`/`end` set by hand that Node refuses (negative, fractional): the caller's 500.
    await handle.close();
    throw error;
  }
}

async function toBody(
  body: RestResponse['body'],
  request: RestRequest,
  failureLog: StreamFailureLog,
): Promise<string | Uint8Array | ReadableStream<Uint8Array> | null> {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  // A consumer that cancels a streamed body is a client going away, whether or not the runtime
  // aborts the request's signal too: the `signal` injectable fires, so a source waiting on it
  // (`on(bus, 'message', { signal })`) stops at once instead of at its next event.
  const clientGone = (): void => CLIENT_GONE.get(request)?.();
  const fetchContext = request.context.fetchContext;
  if (body instanceof FileBody) return fileStream(body, failureLog, clientGone);
  if (body instanceof ReadableStream) {
    return byteStream(body, failureLog, clientGone, keepRunning(fetchContext, body));
  }
  if (isStream(body)) {
    const whileReleasing = keepRunning(fetchContext, body);
    return toReadableStream(streamChunks(body), failureLog, clientGone, whileReleasing);
  }
  return null;
}

async function toFetchResponse(
  response: RestResponse,
  request: RestRequest,
  failureLog: StreamFailureLog,
): Promise<globalThis.Response> {
  let body: Awaited<ReturnType<typeof toBody>>;
  try {
    body = await toBody(response.body, request, failureLog);
  } catch (error) {
    // A file gone since the pipeline looked it up: the 404 any missing file gets
    // (docs/static-files.md). Anything else is the caller's 500.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return failure(response.request?.requestId, 404);
    throw error;
  }
  try {
    const headers = new Headers();
    // append(), never set(): each Set-Cookie stays its own header (RFC 6265 §3); Headers keeps
    // them apart and runtimes send one line each.
    for (const [name, value] of response.headers) headers.append(name, value);
    const init: RuntimeResponseInit = { status: response.statusCode, headers };
    if (body instanceof ReadableStream) {
      body = withKnownLength(body, headers, waitUntilOf(request.context.fetchContext));
    }
    // Workers encode a body themselves when its Content-Encoding names a coding they know, so a
    // body the pipeline compressed already would go out compressed twice; `manual` sends it as
    // it is. Other runtimes ignore the option.
    if (headers.has('content-encoding')) init.encodeBody = 'manual';
    return new Response(body, init);
  } catch (error) {
    // The body made for the runtime holds the handler's stream (its reader, its iterator): it
    // is what must be let go.
    discardBody(body);
    throw error;
  }
}

/**
 * The plain answer (500 unless told) when the normal response cannot be made, echoing the
 * request id if any.
 */
function failure(requestId: string | undefined, status = 500): globalThis.Response {
  const headers = new Headers({ 'Content-Type': 'text/plain; charset=utf-8' });
  if (requestId !== undefined) headers.set('X-Request-ID', requestId);
  return new Response(reasonPhrase(status), { status, headers });
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
    this.fetch = (request, env, context) => this.handle(request, env, context);
  }

  /**
   * Handles one request. Never rejects: anything unexpected is logged and answered with 500.
   * `env` and `context` are what the runtime passed after the request, injectable as
   * `fetchEnv` and `fetchContext`.
   */
  async handle(
    request: globalThis.Request,
    env?: unknown,
    context?: unknown,
  ): Promise<globalThis.Response> {
    let response: RestResponse | undefined;
    let restRequest: ReturnType<typeof toRestRequest> | undefined;
    try {
      restRequest = toRestRequest(request, env, context);
      response = await this.app.execute(restRequest);
      return await this.#send(response, restRequest);
    } catch (error) {
      const requestId = restRequest?.requestId;
      // The body nobody will send is let go: a stream cancelled, a generator's `finally` run.
      discardBody(response?.body);
      if (response !== undefined && restRequest !== undefined) {
        // The answer could not be made for the runtime before a byte of it was sent (a stream
        // whose iteration cannot start, a header WHATWG refuses): answered as a thrown error is, through
        // the application's error path, as the Lambda adapter answers a body that fails; its
        // onResponse hooks saw the first answer already.
        this.app.logger.error('Response could not be sent; answering 500', {
          requestId,
          error,
        });
        const refusal = libraryAnswer(new HttpError(500));
        refusal.cause = error;
        try {
          return await this.#send(
            await dispatch(this.app, restRequest, refusal, true),
            restRequest,
          );
        } catch {
          // Even the error answer cannot be made: the plain 500 below.
        }
      } else {
        this.app.logger.error('Request could not be handled', { requestId, error });
      }
      return failure(requestId);
    }
  }

  #send(response: RestResponse, request: RestRequest): Promise<globalThis.Response> {
    return toFetchResponse(response, request, {
      logger: this.app.logger,
      requestId: request.requestId,
    });
  }
}
