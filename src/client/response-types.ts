/**
 * The responses of a typed client: what a call resolves to, one response per status a route
 * declares or its handler's result gives, and how that result arrives (bytes as bytes, anything
 * else as JSON writes it).
 */
import type { RouteShape } from '../app/routing/route-types.js';
import type { FileBody, Response as RestResponse } from '../response.js';

/** `true` when `T` is `any`, which a handler returns for what TypeScript cannot see (`res.json()`). */
export type IsAny<T> = 0 extends 1 & T ? true : false;

/**
 * A stream as the pipeline tells one: an async iterable (an `async function*`), or anything with
 * `getReader()` (a WHATWG `ReadableStream`).
 */
export type StreamLike = AsyncIterable<unknown> | { getReader(...args: never[]): unknown };

/**
 * Results sent as the bytes they hold, as `application/octet-stream` unless the handler says
 * otherwise: byte arrays, an `ArrayBuffer`, any view of one (a `DataView`, an `Int16Array`...)
 * and streams. The client reads them as bytes.
 */
export type BytesResult = ArrayBuffer | ArrayBufferView | StreamLike;

/** A WHATWG `Response` or the application's own: it keeps its own status and body. */
export type ResponseResult = RestResponse | globalThis.Response;

/**
 * How a body the handler returns (a result, a tuple's body, a declared schema's output) arrives:
 * bytes as bytes (`Uint8Array`); a `Blob` or a `FileBody` with their own Content-Type, so as
 * parsed JSON, text or bytes, hence `unknown`; `any` as `unknown`; anything else through a
 * renderer, typed by `Jsonified`.
 */
export type Delivered<T> =
  IsAny<T> extends true
    ? unknown
    : T extends BytesResult
      ? Uint8Array
      : T extends Blob | FileBody
        ? unknown
        : Jsonified<T>;

/**
 * A value as it comes out of JSON: a `Date` becomes a string (its `toJSON()`), a `Map`, a `Set`,
 * a `Blob`, a stream or an `ArrayBuffer` an empty object, a typed array an object of its indexes,
 * functions nothing, `undefined` in an array `null`, and `any` is `unknown`.
 */
export type Jsonified<T> =
  IsAny<T> extends true
    ? unknown
    : T extends string | number | boolean | null | undefined
      ? T
      : T extends { toJSON(...args: never[]): infer Json }
        ? Jsonified<Json>
        : T extends (...args: never[]) => unknown
          ? never
          : T extends ArrayBufferView
            ? T extends DataView
              ? Record<string, never>
              : Record<string, number>
            : T extends
                  | ReadonlyMap<unknown, unknown>
                  | ReadonlySet<unknown>
                  | ArrayBuffer
                  | Blob
                  | ResponseResult
                  | StreamLike
              ? Record<string, never>
              : T extends readonly unknown[]
                ? { -readonly [K in keyof T]: JsonifiedElement<T[K]> }
                : T extends object
                  ? JsonifiedObject<T>
                  : unknown;

/**
 * An object as JSON writes it: a property that holds a function (or is left `undefined`) is
 * left out, as `JSON.stringify()` leaves it out (ECMA-262, SerializeJSONObject), so its key is
 * absent rather than typed `never`.
 */
export type JsonifiedObject<T> = {
  -readonly [K in keyof T as Exclude<T[K], undefined> extends (...args: never[]) => unknown
    ? never
    : K]: Jsonified<T[K]>;
};

/** An array element as JSON writes it: `undefined`, which an object leaves out, is `null`. */
export type JsonifiedElement<T> = T extends undefined ? null : Jsonified<T>;

/** One possible response: its status, headers and parsed body. */
export interface ClientResponse<Status extends number, Data> {
  status: Status;
  headers: Headers;
  /** JSON parsed, text as a string, other bodies as bytes; `undefined` without a body. */
  data: Data;
}

/**
 * Statuses the pipeline, `HttpError` or an error handler may answer: `304` and every status from
 * 400 to 599, not only those RFC 9110 §15 names (`new HttpError(418)`, a proxy's 499): the
 * numbers the texts `'400'` to `'599'` spell.
 */
export type ErrorStatus =
  | 304
  | (`${4 | 5}${0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9}${0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9}` extends `${infer Status extends number}`
      ? Status
      : never);

/** Statuses below 400: a route declaring none of them leaves its handler's answer undeclared. */
export type SuccessStatus =
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

/**
 * The response of a `[body, status, headers?]` tuple: a `Response` as its body keeps its own
 * status and body, as it does as a result.
 */
export type TupleResponse<Body, Status extends number> = Body extends ResponseResult
  ? ClientResponse<number, unknown>
  : ClientResponse<Status, Body extends null | undefined ? undefined : Delivered<Body>>;

/**
 * What an array typed as an array may be at run time besides one: `[body, 201, headers]` written
 * without `as const` types as `(Body | number | Headers)[]`, yet holding two or three members
 * with a status second it is sent as a tuple (`isTuple`, app/representable.ts). Wherever its
 * members may be numbers beside other values, so may its response be a tuple's: any status, any
 * member as the body. An array of numbers alone (`number[]`) is typed as the list it nearly
 * always is; the docs say to send a two-number list with `Response.json()`.
 */
export type UntypedTupleResponse<Member> = unknown extends Member
  ? ClientResponse<number, unknown>
  : [Extract<Member, number>] extends [never]
    ? never
    : [Exclude<Member, number>] extends [never]
      ? never
      : TupleResponse<Member, number>;

/**
 * The responses a handler's result type gives: distributed over a union of results. A `Response`
 * (the application's or a WHATWG one, such as `fetch()` gives) has a status and a body the types
 * cannot see; so has `any`.
 */
export type HandlerResponse<Result> =
  IsAny<Result> extends true
    ? ClientResponse<number, unknown>
    : Result extends ResponseResult
      ? ClientResponse<number, unknown>
      : Result extends readonly [infer Body, infer Status extends number, ...unknown[]]
        ? TupleResponse<Body, Status>
        : Result extends readonly (infer Member)[]
          ? ClientResponse<200, Delivered<Result>> | UntypedTupleResponse<Member>
          : // biome-ignore lint/suspicious/noConfusingVoidType: a handler written `() => {}` returns void.
            Result extends null | undefined | void
            ? ClientResponse<204, undefined>
            : ClientResponse<200, Delivered<Result>>;

/** One response per status `returns()` declares: its schema's output, `unknown` without one. */
export type DeclaredResponse<Returns> = {
  [Status in keyof Returns & number]: ClientResponse<
    Status,
    Returns[Status] extends undefined ? unknown : Delivered<Returns[Status]>
  >;
}[keyof Returns & number];

/** The successful responses of a route: declared by `returns()`, or its handler's result type. */
export type SuccessResponse<Shape extends RouteShape> =
  | ([keyof Shape['returns'] & SuccessStatus] extends [never]
      ? HandlerResponse<Awaited<Shape['result']>>
      : never)
  | DeclaredResponse<Shape['returns']>;

/**
 * The `206` a `Range` header gets from a GET route wherever it may answer `200` (ranges apply to
 * a GET's 200, docs/http-semantics.md, "Ranges"), unless `returns(206)` declares its own or the
 * handler only ever returns streams, which are sent whole. Its data is the bytes of the slice,
 * whatever the Content-Type (a slice of JSON or text is no JSON or text to parse): a
 * `Uint8Array`, the whole `multipart/byteranges` body for several ranges.
 */
export type PartialResponse<Shape extends RouteShape, Method extends string, Success> = [
  Method,
] extends ['GET']
  ? 206 extends keyof Shape['returns']
    ? never
    : OnlyStreams<Awaited<Shape['result']>> extends true
      ? never
      : 200 extends (Success extends ClientResponse<infer Status, unknown> ? Status : never)
        ? ClientResponse<206, Uint8Array>
        : never
  : never;

/** `true` when every result a handler may give is a stream (never `any`, which may be anything). */
export type OnlyStreams<Result> =
  IsAny<Result> extends true ? false : [Result] extends [StreamLike] ? true : false;

/**
 * What a call resolves to: one response per status `returns()` declares (or, without any, the
 * one the handler's result type gives), a `206` for a GET that may answer `200`, and the error
 * statuses with an `unknown` body.
 */
export type ResponseOf<Shape extends RouteShape, Method extends string = Shape['method']> =
  | SuccessResponse<Shape>
  | PartialResponse<Shape, Method, SuccessResponse<Shape>>
  | ClientResponse<Exclude<ErrorStatus, keyof Shape['returns']>, unknown>;
