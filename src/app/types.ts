/**
 * The types of the injection object: what a handler, provider, renderer or error handler can
 * destructure, with path parameters inferred from the route string.
 */
import type { HeadersInit, MultiValueHeaders } from '../http/headers.js';
import type { LambdaContext, MetricsRecorder, Request, RequestBody } from '../request.js';
import type { Response } from '../response.js';
import type { StandardSchemaV1 } from './inject/validation.js';
import type { AnyLogger, Logger } from './logger.js';
import type { NotForHooksNames, ValidatorNames } from './routing/route-types.js';
import type { MultipartOptions } from './uploads/limits.js';
import type { MultipartPart, UploadedFile } from './uploads/types.js';

/** The parameter names in a route template: `'/users/{id}/files/{path*}'` gives `'id' | 'path'`. */
export type PathParamNames<Path extends string> =
  Path extends `${string}{${infer Name}}${infer Rest}`
    ? (Name extends `${infer Base}*` ? Base : Name) | PathParamNames<Rest>
    : never;

/** The path parameters of a route template, each a string. */
export type PathParams<Path extends string> = { [K in PathParamNames<Path>]: string };

/** The error record error handlers receive as `error`. */
export interface ErrorRecord {
  statusCode: number;
  message: string;
  path: string;
  /** Extra information: the issues of a 422, the available types of a 406. */
  details?: unknown;
  /** How many issues of a 422 `details` leaves out: it lists the first 100. */
  detailsOmitted?: number;
  /** The thrown value, when an exception caused the error. */
  cause?: unknown;
}

/** The names every injection object offers. */
export interface BuiltinInjectables {
  request: Request;
  pathParams: Record<string, string>;
  queryParams: Record<string, string>;
  queryParamsAll: Record<string, string[]>;
  headers: MultiValueHeaders;
  /** The body as text. */
  body: string;
  /** The body parsed as JSON (`application/json` or any `+json` type). */
  jsonBody: unknown;
  /**
   * The form's text fields, first value per name: an `application/x-www-form-urlencoded` body,
   * or the text fields of a `multipart/form-data` one (docs/uploads.md).
   */
  formBody: Record<string, string>;
  /** The files of a `multipart/form-data` body, in arrival order, read before the handler runs. */
  files: UploadedFile[];
  /** The parts of a `multipart/form-data` body as they arrive; nothing is buffered. */
  parts: AsyncIterable<MultipartPart>;
  /** The value of the `accepts()` parser for the request's Content-Type (415 when none fits). */
  parsedBody: unknown;
  cookies: Record<string, string>;
  requestId: string;
  /** This request's Content-Security-Policy nonce (the `'nonce'` source of `csp()` directives). */
  cspNonce: string;
  log: Logger;
  /** The Lambda event, on AWS Lambda; `undefined` elsewhere. */
  lambdaEvent: unknown;
  /** The Lambda context, on AWS Lambda; `undefined` elsewhere. */
  lambdaContext: LambdaContext | undefined;
  /** `requestContext.authorizer` of an API Gateway event; `undefined` elsewhere. */
  authorizer: Record<string, unknown> | undefined;
  /** Custom metrics for this invocation's metrics line; a no-op outside Lambda. */
  metrics: MetricsRecorder;
  /**
   * What a Fetch runtime passed after the request (restmachine/fetch): Cloudflare Workers' `env`
   * (its bindings), Deno's connection `info`, Bun's `server`; `undefined` elsewhere.
   */
  fetchEnv: unknown;
  /** Cloudflare Workers' `ctx` (`waitUntil`), the Fetch handler's third argument; else `undefined`. */
  fetchContext: unknown;
  /** Fires when the client goes away or `requestTimeout` expires (docs/streams.md). */
  signal: AbortSignal;
  /** The `Last-Event-ID` header of an event-stream client reconnecting (docs/streams.md). */
  lastEventId: string | undefined;
  /**
   * The media type content negotiation chose for the answer (`'application/json'`,
   * `'text/html'`), known from step 3 of the pipeline on: the `etag()` and `lastModified()`
   * providers and the handler have it, so that each representation gets its own strong tag
   * (RFC 9110 §8.8.3, docs/http-semantics.md). `undefined` before negotiation (`onRequest`
   * hooks, authorization checks).
   */
  mediaType: string | undefined;
}

/** A map of registered dependency names to their (resolved) types. */
export type Registry = object;

/** The injection object of a route handler. */
export type HandlerContext<Deps extends Registry, Path extends string> = Omit<
  BuiltinInjectables,
  'pathParams'
> &
  Deps &
  PathParams<Path> & { pathParams: PathParams<Path> };

/** The injection object of a provider, validator or hook: builtins and registered names. */
export type ProviderContext<Deps extends Registry> = BuiltinInjectables & Deps;

/**
 * What a handler may return (docs/application.md, "Handler results"): a value to render, a `[body, status, headers?]` tuple,
 * a `Response`, or nothing (204).
 */
export type HandlerResult = unknown;

/** A route handler. */
export type Handler<Deps extends Registry, Path extends string> = (
  context: HandlerContext<Deps, Path>,
) => HandlerResult | Promise<HandlerResult>;

/** A renderer for one media type: gets the handler's result as `result`. */
export type Renderer<Deps extends Registry> = (
  context: ProviderContext<Deps> & { result: unknown },
) => unknown;

/** An error handler: gets the error record as `error`. */
export type ErrorHandler<Deps extends Registry> = (
  context: ProviderContext<Deps> & { error: ErrorRecord },
) => HandlerResult | Promise<HandlerResult>;

/** Names a hook may not inject: hooks run before the body is read (docs/hooks-and-scope.md). */
export type HookBodyNames = 'body' | 'jsonBody' | 'formBody' | 'parsedBody' | 'files' | 'parts';

/**
 * The registered names a hook may inject: all but the validators', the `resourceExists`
 * providers' and the authorization hooks', which read the body or run code meant for the
 * handler before authorization (docs/hooks-and-scope.md). A name reached only through a
 * dependency is refused when the routing table is built (`INVALID_HOOK`).
 */
export type HookDependencies<Deps extends Registry> = [
  ValidatorNames<Deps> | NotForHooksNames<Deps>,
] extends [never]
  ? Deps
  : Omit<Deps, ValidatorNames<Deps> | NotForHooksNames<Deps>>;

/**
 * The injection object of an `onRequest` hook: request-level names and registered names. A
 * route's own hook also gets the route's path parameters.
 */
export type RequestHookContext<Deps extends Registry, Path extends string = never> = [
  Path,
] extends [never]
  ? Omit<BuiltinInjectables, HookBodyNames> & HookDependencies<Deps>
  : Omit<BuiltinInjectables, HookBodyNames | 'pathParams'> &
      HookDependencies<Deps> &
      PathParams<Path> & { pathParams: PathParams<Path> };

/** What an `onResponse` hook gets besides the request-level names. */
export interface ResponseHookExtras {
  /** The final response: change its headers, not its status. */
  response: Response;
  /** Milliseconds since the request reached the application. */
  elapsedMs: number;
}

/**
 * What an `onRequest` hook returns: nothing to let the request go on, or the answer that ends it,
 * a `Response` or a `[body, status, headers?]` tuple (rendered like a handler's result).
 */
export type OnRequestResult =
  | undefined
  // biome-ignore lint/suspicious/noConfusingVoidType: a hook that only looks (`() => { log... }`) returns void
  | void
  | Response
  | readonly [body: unknown, status: number, headers?: HeadersInit];

/**
 * An `onRequest` hook: returns nothing to go on, or ends the request by returning a `Response`
 * or a `[body, status, headers?]` tuple, or by throwing `HttpError`.
 */
export type OnRequestHook<Deps extends Registry, Path extends string = never> = (
  context: RequestHookContext<Deps, Path>,
) => OnRequestResult | Promise<OnRequestResult>;

/** An `onResponse` hook: sees the final response; may change its headers. */
export type OnResponseHook<Deps extends Registry, Path extends string = never> = (
  context: RequestHookContext<Deps, Path> & ResponseHookExtras,
) => unknown;

/** Merges a new name into a registry type. */
export type With<Deps extends Registry, Name extends string, Value> = Deps & {
  [K in Name]: Value;
};

/** Options of `new RestApplication(options)`. */
export interface ApplicationOptions {
  /** The largest request body accepted, in bytes (default 1 MiB); larger ones get 413. */
  bodyLimit?: number | undefined;
  /** Adds the error's message and stack to 500 bodies. Never in production. */
  debug?: boolean | undefined;
  /**
   * The logger for everything the application writes (console JSON lines by default): any
   * object with `debug`, `info`, `warn` and `error` taking `(message, fields?)`, or a pino
   * logger or a Powertools `Logger` as they are; each is called in its own argument order
   * (docs/logging.md).
   */
  logger?: AnyLogger | undefined;
  /**
   * `'json'`: JSON is the only built-in representation. No HTML or text unless a route or the
   * application `provides` them, no `Vary: Accept` on routes with one representation, a string
   * result is sent as a JSON string and error bodies are always JSON. `'builtin'` (default):
   * JSON, HTML and text (docs/application.md, "JSON-only applications").
   */
  renderers?: 'builtin' | 'json' | undefined;
  /**
   * `'auto'`: a buffered 200 answer to GET or HEAD that carries no validator of its own gets a
   * weak ETag computed from its body, so `If-None-Match` answers 304 (docs/http-semantics.md,
   * "Automatic ETags"). Off (`false`) by default.
   */
  etag?: 'auto' | false | undefined;
  /**
   * The `WWW-Authenticate` challenge sent with the 401 of an `authorized()` hook, for example
   * `'Bearer realm="api"'` (RFC 9110 §15.5.2 expects one on every 401).
   */
  wwwAuthenticate?: string | undefined;
  /**
   * `'required'`: `startup()` rejects, listing them, when a route is guarded by no authorization
   * hook and is not marked `.public()` (docs/hooks-and-scope.md, "Deny by default").
   */
  authorization?: 'required' | 'optional' | undefined;
  /**
   * One `info` line per request through the logger: method, path, route template, status,
   * response bytes, duration in ms and request id. Off by default.
   */
  accessLog?: boolean | undefined;
  /**
   * Milliseconds a request may take: then its `signal` fires and, if nothing was sent yet, the
   * answer is 503. A stream body being sent is cut short (docs/streams.md). No limit by default.
   */
  requestTimeout?: number | undefined;
  /**
   * Development aid: checks each handler result against the schema `returns()` declares for its
   * status, before rendering; a mismatch answers 500 (the issues in the body in `debug` mode,
   * in the log always). Off by default, and then costs nothing (docs/openapi.md).
   */
  validateResponses?: boolean | undefined;
  /**
   * The limits of `multipart/form-data` bodies, which replace `bodyLimit` for them: `fileSize`
   * (10 MiB), `files` (10), `fields` (100), `parts` (110), `fieldSize` (1 MiB), `fieldsSize`
   * (all text fields together; the `bodyLimit`), `spillThreshold` (1 MiB) and `tmpDir`
   * (docs/uploads.md).
   */
  multipart?: MultipartOptions | undefined;
}

/** A dependency provider: takes the injection object, returns the value (or a promise). */
export type Provider<Deps extends Registry, T> = (context: ProviderContext<Deps>) => T;

/** A function validator: returns the model, throws `ValidationError` on bad input. */
export type ValidatorFunction<Deps extends Registry, T> = (context: ProviderContext<Deps>) => T;

export type ValidatorOutput<V> = V extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<V>
  : V extends (...args: never[]) => infer R
    ? Awaited<R>
    : never;

/**
 * Whether some text (or, for a query parameter of a validator whose lists are known, a list of
 * texts) can be a `T`. A list must take text too: `?ids=1&ids=2` is `['1', '2']`, which no
 * `number[]` is.
 */
export type TakesText<T, Source, Lists = true> = unknown extends T
  ? true
  : [Extract<T, string>] extends [never]
    ? Source extends 'queryParams'
      ? Lists extends true
        ? ListOfText<Extract<T, readonly unknown[]>>
        : false
      : false
    : true;

/** Whether some member of `Lists` (the array members of a query property) can hold texts. */
export type ListOfText<Lists extends readonly unknown[]> = [Lists] extends [never]
  ? false
  : TakesText<Lists[number], 'element'>;

/**
 * Whether a validator says which of its properties take lists: only one with a Standard JSON
 * Schema (zod 4, arktype) does; any other gets each query key's first value.
 */
export type KnowsLists<V> = V extends { readonly '~standard': { readonly jsonSchema: unknown } }
  ? true
  : false;

/**
 * The keys of `Input` (each member of a union apart) whose values text cannot be, with
 * `[key: string]` for a record's or a catch-all's values: a key no property names gets its
 * first value only, never a list (docs/application.md, "Validation").
 */
export type TextMismatchIn<Input, Source, Lists = true> = Input extends unknown
  ? {
      [K in keyof Input]-?: string extends K
        ? // zod writes an empty object's input as Record<string, never>: no key is asked for.
          [Input[K]] extends [never]
          ? never
          : TakesText<Input[K], Source, false> extends false
            ? '[key: string]'
            : never
        : TakesText<Input[K], Source, Lists> extends false
          ? K
          : Source extends 'headers'
            ? K extends Lowercase<K & string>
              ? never
              : K
            : never;
    }[keyof Input]
  : never;

/**
 * The properties of a Standard Schema's input that `source` can never satisfy: query
 * parameters, headers, path parameters and form fields arrive as text (a query property may
 * take a list of them), and header names in lower case. `never` when there are none.
 */
export type TextInputMismatch<V, Source> = V extends StandardSchemaV1
  ? Source extends 'queryParams' | 'headers' | 'pathParams' | 'formBody'
    ? TextMismatchIn<StandardSchemaV1.InferInput<V>, Source, KnowsLists<V>>
    : never
  : never;

/**
 * `unknown` when a validator can read its source, else a type no schema has, whose one property
 * says what to change: a mismatch is a compile error at `validates()`, not a 422 for every
 * request.
 */
export type TextInputCheck<V, Source> = [TextInputMismatch<V, Source>] extends [never]
  ? unknown
  : {
      readonly '~restmachine': `${Source & string} arrive as text${Source extends 'headers' ? ' with lower-case names' : ''}: make ${TextInputMismatch<V, Source> & string} accept a string (z.coerce, for one)`;
    };

/** What a truthy value can be: the type without its falsy members. */
export type Truthy<T> = Exclude<T, false | 0 | 0n | '' | null | undefined>;

/** A body `app.request()` sends: one the library reads, or any `fetch()` takes. */
export type TestRequestBody =
  | RequestBody
  | ArrayBuffer
  | ArrayBufferView
  | Blob
  | FormData
  | URLSearchParams;

/** The `init` of `app.request()`: like fetch's, plus `json`. */
export interface TestRequestInit {
  method?: string | undefined;
  headers?: HeadersInit | undefined;
  /** Sent as `fetch()` would send it, with its Content-Type when the headers name none. */
  body?: TestRequestBody | null | undefined;
  /** Sent as JSON with `Content-Type: application/json`. */
  json?: unknown | undefined;
}
