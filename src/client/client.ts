/**
 * `createClient<typeof api>(...)`: calls an application's routes by template, over `fetch` or
 * in-process, typed from the routes `withRoutes()` registered (docs/openapi.md, "Typed clients").
 * Both ways build a WHATWG Request and read a WHATWG Response, so they behave alike; in-process
 * requests go through the Fetch adapter without a network.
 */
import { FetchAdapter, type FetchApplication } from '../adapters/fetch/index.js';
import { knownOptions } from '../app/options.js';
import { charsetDecoder } from '../http/charset.js';
import { isJsonMediaType, mediaTypeEssence } from '../http/media-type.js';
import { fillTemplate, formText, queryString } from './call-text.js';
import type { ClientResponse } from './response-types.js';
import type { Client } from './types.js';

/** Options of `createClient()` over `fetch`. */
export interface FetchClientOptions {
  /**
   * Where the application is served, with any prefix: `https://api.example/v1`. No query or
   * fragment: route paths are appended to it (a TypeError says so).
   */
  baseUrl: string | URL;
  /** The `fetch` to use (default: the global one). */
  fetch?: ((request: Request) => Promise<globalThis.Response>) | undefined;
  /**
   * Headers sent with every request (an `Authorization`, for example), unless a call sets one
   * to `undefined`.
   */
  headers?: Readonly<Record<string, string>> | undefined;
}

/**
 * Options of `createClient()` in-process: requests run through `app.execute()`. Without a type
 * argument, the client is typed from `app`'s type.
 */
export interface InProcessClientOptions<App extends FetchApplication = FetchApplication> {
  app: App;
  /** Headers sent with every request, unless a call sets one to `undefined`. */
  headers?: Readonly<Record<string, string>> | undefined;
}

export type ClientOptions = FetchClientOptions | InProcessClientOptions;

/**
 * What `createClient()` types its client from: its type argument, else the type of `app` (`App`
 * is `FetchApplication` when neither is given, which carries no routes: `unknown` then).
 */
export type ClientApi<Api, App> = [Api] extends [never]
  ? FetchApplication extends App
    ? unknown
    : App
  : Api;

/** What a call's options may hold at run time, whatever the route's types say. */
interface CallOptions {
  params?: Readonly<Record<string, unknown>>;
  query?: Readonly<Record<string, unknown>>;
  json?: unknown;
  form?: Readonly<Record<string, unknown>>;
  headers?: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal;
}

// The option names, each list checked against its type by the compiler.
const FETCH_CLIENT_OPTIONS = Object.keys({
  baseUrl: true,
  fetch: true,
  headers: true,
} satisfies Record<keyof FetchClientOptions, true>);
const IN_PROCESS_CLIENT_OPTIONS = Object.keys({
  app: true,
  headers: true,
} satisfies Record<keyof InProcessClientOptions, true>);
const CALL_OPTIONS = Object.keys({
  params: true,
  query: true,
  json: true,
  form: true,
  headers: true,
  signal: true,
} satisfies Record<keyof CallOptions, true>);

/**
 * Refuses option names `allowed` does not list, with a TypeError naming them: a misspelt
 * `query` would send the request without it, a misspelt `headers` without its credentials.
 */
function knownNames(what: string, options: object, allowed: readonly string[]): void {
  knownOptions(what, options, allowed, (message) => new TypeError(message));
}

// The origin of in-process requests: never resolved, only parsed.
const IN_PROCESS = 'http://in-process.invalid';

/**
 * A client of `Api` (an application or router whose type carries its routes): `get`, `post`,
 * `put`, `patch` and `delete` take a route template and `{ params, query, json, form, headers,
 * signal }` and resolve to `{ status, headers, data }`, a redirect included (none is followed).
 * Only a network failure or an aborted `signal` rejects.
 *
 * `Api` is the type argument, or else the type of `app` (in-process). Over `fetch` without one,
 * the client knows no routes: each call's path is then `NoTypedRoutes`, and does not compile.
 *
 * @example
 * const client = createClient<typeof api>({ baseUrl: 'http://127.0.0.1:3000' });
 * const { status, data } = await client.get('/notes/{id}', { params: { id: '1' } });
 * const inProcess = createClient({ app: api }); // typed from api
 */
export function createClient<Api = never, App extends FetchApplication = FetchApplication>(
  options: FetchClientOptions | InProcessClientOptions<App>,
): Client<ClientApi<Api, App>> {
  let send: (request: Request) => Promise<globalThis.Response>;
  let base: string;
  const inProcess = 'app' in options;
  knownNames(
    'createClient()',
    options,
    inProcess ? IN_PROCESS_CLIENT_OPTIONS : FETCH_CLIENT_OPTIONS,
  );
  if ('app' in options) {
    const adapter = new FetchAdapter(options.app);
    send = (request) => abortable(request, (aborted) => adapter.handle(aborted));
    base = IN_PROCESS;
  } else {
    const fetcher = options.fetch ?? ((request: Request) => fetch(request));
    send = fetcher;
    base = baseOf(options.baseUrl);
  }
  const defaults = options.headers ?? {};
  const call = (method: string) => (template: string, callOptions?: CallOptions) =>
    sendCall(send, base, defaults, method, template, callOptions ?? {});
  return {
    get: call('GET'),
    post: call('POST'),
    put: call('PUT'),
    patch: call('PATCH'),
    delete: call('DELETE'),
  } as unknown as Client<ClientApi<Api, App>>;
}

/**
 * `baseUrl` without its trailing slashes. Paths are appended to it as text, so a query or a
 * fragment would swallow them (`?key=abc/items`): refused, rather than sent somewhere else.
 */
function baseOf(baseUrl: string | URL): string {
  const text = String(baseUrl);
  if (/[?#]/.test(text)) {
    throw new TypeError(
      `createClient: baseUrl ${JSON.stringify(text)} has a query or fragment; route paths are appended to baseUrl, so give it none (send a key with \`headers\`, or \`query\` per call)`,
    );
  }
  return text.replace(/\/+$/, '');
}

/**
 * `handle(request)`, rejected with the signal's reason once `request.signal` aborts, as fetch
 * rejects: before the call nothing runs; during it the handler sees the abort (its `signal`)
 * and the caller stops waiting. The body follows the signal too, as a fetched body does: an
 * abort while it arrives errors the read with the reason and cancels the application's stream.
 */
async function abortable(
  request: Request,
  handle: (request: Request) => Promise<globalThis.Response>,
): Promise<globalThis.Response> {
  const signal = request.signal;
  signal.throwIfAborted();
  const response = await new Promise<globalThis.Response>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    handle(request)
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', abort));
  });
  if (response.body === null) return response;
  // An aborted pipe cancels its source with the reason and errors what it feeds (WHATWG
  // Streams, "ReadableStreamPipeTo"): the generator's `finally` runs, the reader rejects.
  const body = response.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>(), {
    signal,
  });
  return new globalThis.Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

async function sendCall(
  send: (request: Request) => Promise<globalThis.Response>,
  base: string,
  defaults: Readonly<Record<string, string>>,
  method: string,
  template: string,
  options: CallOptions,
): Promise<ClientResponse<number, unknown>> {
  knownNames(`${method} ${template}`, options, CALL_OPTIONS);
  // A request has one body: sending the JSON alone would drop the form unseen (and the reverse).
  if (options.json !== undefined && options.form !== undefined) {
    throw new TypeError(`${method} ${template}: json and form cannot both be sent; give one`);
  }
  const headers = new Headers(defaults);
  // A header the call sets to `undefined` (an optional one a headers validator types) is not
  // sent, the client's default of that name included: an anonymous call from a client made with
  // an `authorization` (docs/openapi.md). Headers would send the text "undefined".
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === undefined) headers.delete(name);
    else headers.set(name, value);
  }
  let body: string | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    if (!headers.has('content-type')) headers.set('Content-Type', 'application/json');
  } else if (options.form !== undefined) {
    body = formText(`${method} ${template}`, options.form);
    if (!headers.has('content-type')) {
      headers.set('Content-Type', 'application/x-www-form-urlencoded');
    }
  }
  const path = fillTemplate(template, options.params ?? {});
  const url = `${base}${path}${queryString(`${method} ${template}`, options.query)}`;
  // Redirects are not followed: every status resolves as the application sent it, as in-process
  // and as the types say (a 303 stays a 303, with its Location).
  const init: RequestInit = { method, headers, redirect: 'manual' };
  if (body !== undefined) init.body = body;
  if (options.signal !== undefined) init.signal = options.signal;
  const response = await send(new Request(url, init));
  return { status: response.status, headers: response.headers, data: await readData(response) };
}

/**
 * The body as JSON, text or bytes by its Content-Type. A `206` is bytes whatever its type: a
 * slice of JSON or text (which may cut a character in two) is no document to parse, and several
 * ranges come as one `multipart/byteranges` body.
 */
async function readData(response: globalThis.Response): Promise<unknown> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const type = mediaTypeEssence(response.headers.get('content-type') ?? undefined);
  if (bytes.length === 0) return emptyData(response.status, type);
  if (response.status === 206) return bytes;
  if (type === '') return bytes;
  const text = () => new TextDecoder().decode(bytes);
  if (isJsonMediaType(type)) {
    try {
      return JSON.parse(text());
    } catch {
      // A body that says JSON but is not: the text, rather than an exception for a server's bug.
      return text();
    }
  }
  if (type.startsWith('text/')) return declaredText(bytes, response.headers.get('content-type'));
  return bytes;
}

/**
 * Text in the charset its Content-Type declares (`text/plain; charset=iso-8859-1`), UTF-8 when
 * it declares none or one this runtime does not know; bytes invalid in it become U+FFFD.
 */
function declaredText(bytes: Uint8Array, contentType: string | null): string {
  const decoder = charsetDecoder(contentType ?? undefined);
  if (decoder === undefined || decoder === null) return new TextDecoder().decode(bytes);
  try {
    return decoder.decode(bytes);
  } catch {
    return new TextDecoder(decoder.encoding).decode(bytes);
  }
}

/**
 * An empty body: `undefined` where there is no content (a 204, 205 or 304, a body of no type
 * such as a `[undefined, 202]` tuple's, or JSON, which is never empty), else the empty value the
 * handler returned as its type says it arrives: `''` for text, zero bytes for bytes.
 */
function emptyData(status: number, type: string): string | Uint8Array | undefined {
  if (status === 204 || status === 205 || status === 304) return undefined;
  if (type === '' || isJsonMediaType(type)) return undefined;
  return type.startsWith('text/') ? '' : new Uint8Array(0);
}
