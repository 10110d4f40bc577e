/**
 * The types of a typed client: requests and responses of each route, read from the route map an
 * application or router type carries (`withRoutes()`, src/app/routing/route-types.ts).
 */
import type { RouteEntry, RouteShape } from '../app/routing/route-types.js';
import type { PathParamNames } from '../app/types.js';
import type { Response as RestResponse } from '../response.js';

/** The route map of `Api`: `{}` for a value whose type carries no routes. */
export type RoutesOf<Api> = Api extends { readonly '~routes'?: infer Map }
  ? [NonNullable<Map>] extends [never]
    ? {}
    : NonNullable<Map>
  : {};

/** The methods a client has, lower case as it names them. */
export type ClientMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The route templates of `Map` for `Method`. */
export type PathsFor<Map, Method extends string> = {
  [Key in keyof Map]: Key extends `${Method} ${infer Path}` ? Path : never;
}[keyof Map];

/** The route entry of `Method Path` in `Map`. */
export type EntryOf<Map, Method extends string, Path extends string> =
  Map[`${Method} ${Path}` & keyof Map] extends RouteEntry<string, infer Shape> ? Shape : RouteShape;

/**
 * What a result arrives as: through JSON a `Date` becomes a string, a `Map` or `Set` an empty
 * object, functions nothing; bytes are sent as they are and arrive as bytes.
 */
export type Jsonified<T> = T extends string | number | boolean | null | undefined
  ? T
  : T extends Uint8Array | ArrayBuffer
    ? Uint8Array
    : T extends { toJSON(...args: never[]): infer Json }
      ? Json
      : T extends (...args: never[]) => unknown
        ? never
        : T extends ReadonlyMap<unknown, unknown> | ReadonlySet<unknown>
          ? Record<string, never>
          : T extends object
            ? { -readonly [K in keyof T]: Jsonified<T[K]> }
            : unknown;

/** A query value: repeated keys as arrays. */
export type QueryValue = string | number | boolean | ReadonlyArray<string | number | boolean>;

type Flatten<T> = { [K in keyof T]: T[K] } & {};

/**
 * A required property when `T` has required keys, an optional one otherwise, or when `T` takes
 * `undefined`: a query or headers validator is given an object (`{}` when nothing was sent).
 */
type Part<Key extends string, T> = {} extends T
  ? { [K in Key]?: T }
  : undefined extends T
    ? { [K in Key]?: T }
    : { [K in Key]: T };

type Inputs<Shape extends RouteShape> = Shape['inputs'];

type ParamsPart<Path extends string, Shape extends RouteShape> = [PathParamNames<Path>] extends [
  never,
]
  ? { params?: never }
  : {
      params: Inputs<Shape> extends { params: infer Validated }
        ? Flatten<
            Omit<{ [K in PathParamNames<Path>]: string | number }, keyof Validated> & Validated
          >
        : { [K in PathParamNames<Path>]: string | number };
    };

type TypedOr<Shape extends RouteShape, Key extends string, Otherwise> =
  Inputs<Shape> extends { [K in Key]: infer Validated }
    ? Part<Key, Validated>
    : { [K in Key]?: Otherwise };

/**
 * `json`: optional only when the validator's input takes `undefined`, which is what it is given
 * for a request without content (docs/application.md, "Request bodies"): an object of optional
 * fields still needs `{}` sent.
 */
type JsonPart<Shape extends RouteShape> =
  Inputs<Shape> extends { json: infer Validated }
    ? undefined extends Validated
      ? { json?: Validated }
      : { json: Validated }
    : { json?: unknown };

/** `form`: required by a `formBody` validator, as a request without a form is a 415. */
type FormPart<Shape extends RouteShape> =
  Inputs<Shape> extends { form: infer Validated }
    ? { form: Validated }
    : { form?: Readonly<Record<string, string>> };

/**
 * `json` and `form`: none for GET and HEAD, which fetch cannot send with content (and whose
 * content has no defined meaning, RFC 9110 §9.3.1).
 */
type BodiesPart<Method extends string, Shape extends RouteShape> = [Method] extends ['GET' | 'HEAD']
  ? { json?: never; form?: never }
  : JsonPart<Shape> & FormPart<Shape>;

/**
 * `headers`: a validator names the headers it checks, but a request carries others its route
 * needs too (`Authorization`, `Accept`, `If-None-Match`), so any other name may be added.
 */
type HeadersPart<Shape extends RouteShape> =
  Inputs<Shape> extends { headers: infer Validated }
    ? Part<'headers', Validated & Readonly<Record<string, string>>>
    : { headers?: Readonly<Record<string, string>> };

/**
 * The second argument of a client call: `params` from the template, `query`, `json`, `form`
 * and `headers` from the validators the route `uses()`, anything where it names none (and,
 * for `headers`, any other header beside the validated ones); no `json` or `form` for GET.
 */
export type RequestOptions<
  Path extends string,
  Shape extends RouteShape,
  Method extends string = Shape['method'],
> = Flatten<
  ParamsPart<Path, Shape> &
    TypedOr<Shape, 'query', Readonly<Record<string, QueryValue | undefined>>> &
    BodiesPart<Method, Shape> &
    HeadersPart<Shape> & {
      /** Cancels the request: the call rejects with the signal's reason, as fetch does. */
      signal?: AbortSignal;
    }
>;

/** The options as an argument: optional when nothing in them is required. */
export type OptionsArgument<Options> = {} extends Options
  ? [options?: Options]
  : [options: Options];

/** One possible response: its status, headers and parsed body. */
export interface ClientResponse<Status extends number, Data> {
  status: Status;
  headers: Headers;
  /** JSON parsed, text as a string, other bodies as bytes; `undefined` without a body. */
  data: Data;
}

/** Statuses the pipeline, `HttpError` or an error handler may answer (RFC 9110 §15). */
export type ErrorStatus =
  | 304
  | 400
  | 401
  | 402
  | 403
  | 404
  | 405
  | 406
  | 407
  | 408
  | 409
  | 410
  | 411
  | 412
  | 413
  | 414
  | 415
  | 416
  | 417
  | 421
  | 422
  | 423
  | 424
  | 425
  | 426
  | 428
  | 429
  | 431
  | 451
  | 500
  | 501
  | 502
  | 503
  | 504
  | 505
  | 507
  | 508
  | 511;

/** Statuses below 400: a route declaring none of them leaves its handler's answer undeclared. */
type SuccessStatus =
  | 200
  | 201
  | 202
  | 203
  | 204
  | 205
  | 206
  | 207
  | 208
  | 226
  | 300
  | 301
  | 302
  | 303
  | 307
  | 308;

/** The responses a handler's result type gives: distributed over a union of results. */
export type HandlerResponse<Result> = Result extends RestResponse
  ? ClientResponse<number, unknown>
  : Result extends readonly [infer Body, infer Status extends number, ...unknown[]]
    ? ClientResponse<Status, Body extends null | undefined ? undefined : Jsonified<Body>>
    : // biome-ignore lint/suspicious/noConfusingVoidType: a handler written `() => {}` returns void.
      Result extends null | undefined | void
      ? ClientResponse<204, undefined>
      : ClientResponse<200, Jsonified<Result>>;

type Declared<Returns> = {
  [Status in keyof Returns & number]: ClientResponse<
    Status,
    Returns[Status] extends undefined ? unknown : Jsonified<Returns[Status]>
  >;
}[keyof Returns & number];

/**
 * What a call resolves to: one response per status `returns()` declares (or, without any, the
 * one the handler's result type gives), and the error statuses with an `unknown` body.
 */
export type ResponseOf<Shape extends RouteShape> =
  | ([keyof Shape['returns'] & SuccessStatus] extends [never]
      ? HandlerResponse<Awaited<Shape['result']>>
      : never)
  | Declared<Shape['returns']>
  | ClientResponse<Exclude<ErrorStatus, keyof Shape['returns']>, unknown>;

/** One method of the client: a route template of that method, then the request's parts. */
export type ClientCall<Map, Method extends string> = <Path extends PathsFor<Map, Method>>(
  path: Path,
  ...options: OptionsArgument<RequestOptions<Path, EntryOf<Map, Method, Path>, Method>>
) => Promise<ResponseOf<EntryOf<Map, Method, Path>>>;

/** The client of `Api`. */
export interface Client<Api> {
  get: ClientCall<RoutesOf<Api>, 'GET'>;
  post: ClientCall<RoutesOf<Api>, 'POST'>;
  put: ClientCall<RoutesOf<Api>, 'PUT'>;
  patch: ClientCall<RoutesOf<Api>, 'PATCH'>;
  delete: ClientCall<RoutesOf<Api>, 'DELETE'>;
}
