/**
 * The Request model: what every adapter turns its runtime's request into.
 */

import { decodeText, decodeUtf8, withoutBom } from './body-text.js';
import { HttpError } from './errors.js';
import { charsetDecoder } from './http/charset.js';
import { parseCookieHeader } from './http/cookie.js';
import { DataRecord, ownEntry } from './http/data-record.js';
import { parseHttpDate } from './http/date.js';
import { parseEntityTagList } from './http/etag.js';
import { type HeadersInit, MultiValueHeaders } from './http/headers.js';
import { parseMethod } from './http/methods.js';
import { parseQueryString } from './http/query.js';
import { absoluteFormTarget } from './http/request-target.js';
import { parseJson, type RequestBody, readRequestBody, withinLimit } from './request-body.js';

export type {
  FramedBody,
  ReadableStreamLike,
  RequestBody,
  WholeBodyReader,
} from './request-body.js';

import type { ClientCertificate } from './client-certificate.js';
import type { LambdaContext } from './lambda-context.js';
import type { MetricsRecorder } from './metrics.js';

export type { ClientCertificate } from './client-certificate.js';
export type { LambdaContext } from './lambda-context.js';
export type { MetricsRecorder } from './metrics.js';

/**
 * Values an adapter adds for its runtime. They are injectable under the same names everywhere
 * (`undefined` outside the runtime that provides them), so one handler runs on every adapter.
 */
export interface PlatformContext {
  lambdaEvent?: unknown;
  lambdaContext?: LambdaContext;
  authorizer?: Record<string, unknown>;
  metrics?: MetricsRecorder;
  /** A Fetch runtime's arguments after the request (restmachine/fetch). */
  fetchEnv?: unknown;
  fetchContext?: unknown;
  /**
   * Lets the `signal` injectable learn that the client went away: `listener` runs once if the
   * connection closes before the response finished. Called only when a handler asks for it.
   */
  onClientGone?: (request: Request, listener: () => void) => void;
  /**
   * Set by an adapter that holds the whole body before sending anything (the buffered Lambda
   * handler): an event stream, which never ends, is then answered with a 500 instead.
   */
  buffered?: boolean;
  [key: string]: unknown;
}

/** What `new Request(...)` takes. */
export interface RequestInit {
  method: string;
  /** The path as sent, percent-encoding intact; a `?query` suffix is split off into the query. */
  path: string;
  headers?: HeadersInit | null;
  body?: RequestBody | null;
  /**
   * Query parameters: a map (array values for repeated keys) or the raw query string, as it
   * follows the `?` (a `?` of its own at the start is part of the first key).
   */
  queryParams?: Readonly<Record<string, string | readonly string[]>> | string | null;
  /** Path parameters by name; values that are not strings are left out. */
  pathParams?: Readonly<Record<string, string | undefined>> | null;
  tls?: boolean;
  clientCert?: ClientCertificate | null;
  /** The client's address, when the runtime knows it. */
  remoteAddress?: string;
  /** `http` or `https`, as the client used. */
  protocol?: string;
  /** An id the runtime assigned (a Lambda request id); otherwise one comes from `X-Request-ID`. */
  requestId?: string;
  /** The largest body `bytes()` reads, in bytes (no limit by default). */
  bodyLimit?: number;
  context?: PlatformContext;
}

/** The string values of `given` in a map that inherits nothing (a gateway may send `null`s). */
function copyStrings(
  given: Readonly<Record<string, unknown>> | null | undefined,
): Record<string, string> {
  const out = new DataRecord<string>();
  if (given === null || given === undefined) return out;
  for (const key of Object.keys(given)) {
    const value = given[key];
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}

/** The route's parameters by name, from its names and the values the path matched. */
function pairUp(names: readonly string[], values: readonly string[]): Record<string, string> {
  const out = new DataRecord<string>();
  for (let i = 0; i < names.length; i++) out[names[i] as string] = values[i] as string;
  return out;
}

// What a request outside any adapter's runtime carries: nothing, shared.
const NO_CONTEXT: PlatformContext = Object.freeze({});

/**
 * What the pipeline records about a request as it decides: the route it matched, the request
 * id, the body limit in force. Readable on the request, written only
 * here.
 *
 * @internal
 */
export let recordRouting: (request: Request, template: string) => void;
/**
 * The path parameters routing found: the route's names and the values the path matched, in the
 * same order. They replace any given to the constructor and are paired up on first read.
 *
 * @internal
 */
export let recordPathParams: (
  request: Request,
  names: readonly string[],
  values: readonly string[],
) => void;
/** @internal */
export let recordRequestId: (request: Request, id: string) => void;
/** @internal */
export let recordBodyLimit: (request: Request, limit: number) => void;
/**
 * The body once the pipeline has read it whole, and reading it back: `jsonBodyNow` then parses
 * it without waiting.
 *
 * @internal
 */
export let recordBody: (request: Request, bytes: Uint8Array) => void;
/** @internal */
export let bodyRead: (request: Request) => Uint8Array | undefined;

/**
 * An HTTP request.
 *
 * @example
 * const request = new Request({ method: 'GET', path: '/users/1?full=yes', headers: { Accept: 'application/json' } });
 * request.queryParams.full; // 'yes'
 */
export class Request {
  /** The method in upper case when it is a known one, else exactly as received. */
  readonly method: string;
  readonly path: string;
  readonly headers: MultiValueHeaders;
  body: RequestBody | undefined;
  #pathParams: Record<string, string> | undefined;
  // The parameters given to the constructor, copied on first read: the pipeline replaces them
  // with the route's own before anything reads them (bench/RESULTS.md).
  #givenPathParams: Readonly<Record<string, unknown>> | null | undefined;
  // The route's, once routing recorded them: names and values, paired up on first read.
  #paramNames: readonly string[] | undefined;
  #paramValues: readonly string[] | undefined;
  readonly tls: boolean;
  readonly clientCert: ClientCertificate | undefined;
  readonly remoteAddress: string | undefined;
  readonly protocol: string;
  /** What the adapter added for its runtime; an empty, frozen object when nothing did. */
  readonly context: PlatformContext;
  #bodyLimit: number;
  #requestId: string | undefined;
  #routeTemplate: string | undefined;

  #rawQuery: string | undefined;
  #query: Map<string, string[]> | undefined;
  #queryFirst: Record<string, string> | undefined;
  #queryAll: Record<string, string[]> | undefined;
  #bytes: Promise<Uint8Array> | undefined;
  #read: Uint8Array | undefined;
  #text: Promise<string> | undefined;
  #cookies: Record<string, string> | undefined;

  constructor(init: RequestInit) {
    this.method = parseMethod(init.method) ?? init.method;
    let path = init.path;
    let headers = init.headers;
    // An absolute URL (a test's `app.request('http://localhost/users/1')`) is read as the Node
    // server reads that target (docs/testing.md); an adapter's path starts with `/`.
    if (path.charCodeAt(0) !== 47 /* / */) [path, headers] = absoluteFormTarget(path, headers);
    // A fragment never reaches a server (RFC 9110 §4.2.5); a target that carries one anyway is
    // read without it, as a Fetch runtime's URL parser reads it.
    const hash = path.indexOf('#');
    if (hash !== -1) path = path.slice(0, hash);
    const question = path.indexOf('?');
    if (question !== -1) {
      if (init.queryParams === undefined || init.queryParams === null) {
        this.#rawQuery = path.slice(question + 1);
      }
      path = path.slice(0, question);
    }
    this.path = path === '' ? '/' : path;
    // Kept, not copied, unlike a Response's: adapters pass an instance built for this request,
    // and nothing the library does writes into a request's headers, so a caller's shared
    // instance (tests, `app.execute`) never picks up another request's values.
    this.headers = headers instanceof MultiValueHeaders ? headers : new MultiValueHeaders(headers);
    this.body = init.body ?? undefined;
    const query = init.queryParams;
    if (typeof query === 'string') this.#rawQuery = query;
    else if (query !== undefined && query !== null) {
      const map = new Map<string, string[]>();
      for (const key in query) {
        if (!ownEntry(query, key)) continue;
        const value = query[key] as string | readonly string[];
        map.set(key, typeof value === 'string' ? [value] : value.slice());
      }
      this.#query = map;
    }
    this.#givenPathParams = init.pathParams;
    this.tls = init.tls ?? false;
    this.clientCert = init.clientCert ?? undefined;
    this.remoteAddress = init.remoteAddress;
    this.protocol = init.protocol ?? (this.tls ? 'https' : 'http');
    this.#requestId = init.requestId;
    this.#bodyLimit = init.bodyLimit ?? Number.POSITIVE_INFINITY;
    this.context = init.context ?? NO_CONTEXT;
  }

  /** Path parameters by name; like every map here, it inherits nothing (no `toString`). */
  get pathParams(): Readonly<Record<string, string>> {
    this.#pathParams ??=
      this.#paramNames === undefined
        ? copyStrings(this.#givenPathParams)
        : pairUp(this.#paramNames, this.#paramValues as readonly string[]);
    return this.#pathParams;
  }

  /**
   * The request's id: the client's `X-Request-ID` when well-formed, the gateway's on Lambda,
   * else a fresh one; set once the application has seen the request.
   */
  get requestId(): string | undefined {
    return this.#requestId;
  }

  /**
   * The template of the route the path matched (`/users/{id}`); `undefined` when nothing
   * matched. Adapters use it where the raw path would be unbounded, such as a metric dimension.
   */
  get routeTemplate(): string | undefined {
    return this.#routeTemplate;
  }

  /** The largest body `bytes()` reads, in bytes; the application sets it from its `bodyLimit`. */
  get bodyLimit(): number {
    return this.#bodyLimit;
  }

  static {
    recordRouting = (request, template) => {
      request.#routeTemplate = template;
    };
    recordPathParams = (request, names, values) => {
      request.#paramNames = names;
      request.#paramValues = values;
      request.#pathParams = undefined;
    };
    recordRequestId = (request, id) => {
      request.#requestId = id;
    };
    recordBodyLimit = (request, limit) => {
      request.#bodyLimit = limit;
    };
    recordBody = (request, bytes) => {
      request.#read = bytes;
    };
    bodyRead = (request) => request.#read;
  }

  #queryMap(): Map<string, string[]> {
    if (this.#query === undefined) {
      this.#query = this.#rawQuery ? parseQueryString(this.#rawQuery) : new Map();
    }
    return this.#query;
  }

  /**
   * Each query key with its first value. Keys are whatever the client sent: the object inherits
   * nothing, so `?__proto__=x` is an entry and `queryParams.toString` is `undefined`.
   */
  get queryParams(): Record<string, string> {
    if (this.#queryFirst === undefined) {
      const out = new DataRecord<string>();
      for (const [key, values] of this.#queryMap()) out[key] = values[0] as string;
      this.#queryFirst = out;
    }
    return this.#queryFirst;
  }

  /** Each query key with all of its values, in order; inherits nothing, as `queryParams`. */
  get queryParamsAll(): Record<string, string[]> {
    if (this.#queryAll === undefined) {
      const out = new DataRecord<string[]>();
      for (const [key, values] of this.#queryMap()) out[key] = values.slice();
      this.#queryAll = out;
    }
    return this.#queryAll;
  }

  /**
   * What a log line shows of the request, and `JSON.stringify` gives: method, path, query,
   * headers (as `headers.toJSON()` gives them), request id and client address. Never the body,
   * which may be large, unread or a password form, nor the adapter's context (a Lambda event).
   */
  toJSON(): {
    method: string;
    path: string;
    query: string;
    headers: Record<string, string | string[]>;
    requestId: string | undefined;
    remoteAddress: string | undefined;
    protocol: string;
  } {
    return {
      method: this.method,
      path: this.path,
      query: this.queryString,
      headers: this.headers.toJSON(),
      requestId: this.requestId,
      remoteAddress: this.remoteAddress,
      protocol: this.protocol,
    };
  }

  /** The raw query string without `?` (`''` when there is none). */
  get queryString(): string {
    if (this.#rawQuery !== undefined) return this.#rawQuery;
    const parts: string[] = [];
    for (const [key, values] of this.#queryMap()) {
      for (const value of values) {
        parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(value)}`);
      }
    }
    return parts.join('&');
  }

  /** The `Cookie` header as a name → value map (inheriting nothing). */
  get cookies(): Record<string, string> {
    this.#cookies ??= parseCookieHeader(this.headers.getAll('cookie').join('; '));
    return this.#cookies;
  }

  /** The whole body as bytes, read once (later calls share the result). */
  bytes(): Promise<Uint8Array> {
    if (this.#bytes === undefined) {
      this.#bytes = readRequestBody(this.body, this.bodyLimit);
    }
    return this.#bytes;
  }

  /**
   * The body as text in its declared charset (UTF-8 by default): text the charset cannot hold
   * is a 400, a charset `TextDecoder` does not know a 415.
   */
  text(): Promise<string> {
    this.#text ??= (async () => {
      const body = this.body;
      const type = this.headers.get('content-type');
      if (typeof body === 'string') {
        // Already text (an event's body, a test's string), yet its declared charset is checked
        // as the bytes' would be: one nobody knows is 415 on every adapter.
        if (charsetDecoder(type) === null)
          throw new HttpError(415, `Unsupported charset in ${type}`);
        return withoutBom(withinLimit(body, this.bodyLimit));
      }
      return decodeText(await this.bytes(), type);
    })();
    return this.#text;
  }

  /** The body parsed as JSON; malformed JSON is a 400. */
  async json(): Promise<unknown> {
    return parseJson(await this.text());
  }

  /** The `Accept` header, or `*\/*` when the client sent none. */
  getAcceptHeader(): string {
    return MultiValueHeaders.getList(this.headers, 'accept') ?? '*/*';
  }

  getAuthorizationHeader(): string | undefined {
    return this.headers.get('authorization');
  }

  getContentType(): string | undefined {
    return this.headers.get('content-type');
  }

  /** The entity tags of `If-Match` (with quotes, `W/` kept; `['*']` for `*`). */
  getIfMatch(): string[] {
    return parseEntityTagList(MultiValueHeaders.getList(this.headers, 'if-match'));
  }

  /** The entity tags of `If-None-Match` (with quotes, `W/` kept; `['*']` for `*`). */
  getIfNoneMatch(): string[] {
    return parseEntityTagList(MultiValueHeaders.getList(this.headers, 'if-none-match'));
  }

  /** `If-Modified-Since` as a date; `undefined` when absent or not an HTTP date. */
  getIfModifiedSince(): Date | undefined {
    return parseHttpDate(this.headers.get('if-modified-since'));
  }

  /** `If-Unmodified-Since` as a date; `undefined` when absent or not an HTTP date. */
  getIfUnmodifiedSince(): Date | undefined {
    return parseHttpDate(this.headers.get('if-unmodified-since'));
  }
}

/**
 * The body parsed as JSON, at once when it is already in memory (a string or bytes, as on
 * Lambda), else as `request.json()` does. Same errors as `json()`: 413 over the body limit,
 * 400 for invalid UTF-8 or malformed JSON.
 *
 * @internal
 */
export function jsonBodyNow(request: Request): unknown {
  const body = bodyRead(request) ?? request.body;
  if (typeof body === 'string') return parseJson(withoutBom(withinLimit(body, request.bodyLimit)));
  if (body instanceof Uint8Array)
    return parseJson(decodeUtf8(withinLimit(body, request.bodyLimit)));
  return request.bytes().then(parseJsonBytes);
}

function parseJsonBytes(bytes: Uint8Array): unknown {
  return parseJson(decodeUtf8(bytes));
}
