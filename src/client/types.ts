/**
 * The types of a typed client: the client, its paths and the request of each route, read from
 * the route map an application or router type carries (`withRoutes()`,
 * src/app/routing/route-types.ts). What a call resolves to is in response-types.ts.
 */
import type { RouteEntry, RouteShape } from '../app/routing/route-types.js';
import type { PathParamNames } from '../app/types.js';
import type { ResponseOf } from './response-types.js';

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

/** A query value: repeated keys as arrays. */
export type QueryValue = string | number | boolean | ReadonlyArray<string | number | boolean>;

/**
 * What a validator whose input is `T` can be given through text (a query or path parameter, a
 * form field): the members of `T` that take a string, as the value arrives as one (`null` would
 * arrive as the text "null", a number as its digits, which `z.number()` refuses). An input that
 * takes anything (`unknown`, as `z.coerce.number()`'s) reads the text it is given: a string or a
 * number. Not a boolean: `z.coerce.boolean()` reads any text but `""` as true, `"false"` too.
 */
export type TextInput<T> = unknown extends T ? string | number : Extract<T, string>;

/** A query parameter: its text, a list of texts where `T` takes one, or `undefined` (left out). */
export type QueryInput<T> =
  | TextInput<T>
  | (T extends readonly (infer Item)[] ? readonly TextInput<Item>[] : never)
  | Extract<T, undefined>;

/** `query` as a validator's input `Validated` types it, each member as text can carry it. */
export type QueryInputs<Validated> = { [K in keyof Validated]: QueryInput<Validated[K]> };

/** `params` as a validator's input `Validated` types them, each as text can carry it. */
export type ParamInputs<Validated> = { [K in keyof Validated]: TextInput<Validated[K]> };

/**
 * `form` as a validator's input `Validated` types it, each field as text can carry it (one
 * value per name: the server reads the first) or `undefined`, which leaves the field out.
 */
export type FormInputs<Validated> = {
  [K in keyof Validated]: TextInput<Validated[K]> | Extract<Validated[K], undefined>;
};

/** `T` as one object type, its intersections merged. */
export type Flattened<T> = { [K in keyof T]: T[K] } & {};

/**
 * A required property when `T` has required keys, an optional one otherwise, or when `T` takes
 * `undefined`: a query or headers validator is given an object (`{}` when nothing was sent).
 */
export type OptionsPart<Key extends string, T> = {} extends T
  ? { [K in Key]?: T | undefined }
  : undefined extends T
    ? { [K in Key]?: T | undefined }
    : { [K in Key]: T };

/** The request parts a route's validators describe (`route.uses()`). */
export type ShapeInputs<Shape extends RouteShape> = Shape['inputs'];

/** `params`: required, by name, when the template has parameters. */
export type ParamsPart<Path extends string, Shape extends RouteShape> = [
  PathParamNames<Path>,
] extends [never]
  ? { params?: never }
  : {
      params: ShapeInputs<Shape> extends { params: infer Validated }
        ? Flattened<
            Omit<{ [K in PathParamNames<Path>]: string | number }, keyof Validated> &
              ParamInputs<Validated>
          >
        : { [K in PathParamNames<Path>]: string | number };
    };

/** `query` as a validator types it (as text can carry it), or any query where none does. */
export type QueryPart<Shape extends RouteShape> =
  ShapeInputs<Shape> extends { query: infer Validated }
    ? OptionsPart<'query', QueryInputs<Validated>>
    : { query?: Readonly<Record<string, QueryValue | undefined>> | undefined };

/**
 * A validator's input as JSON can carry it: a member JSON writes as something else (a `Date` as
 * a string, a `Map` or a `Set` as `{}`, a function or a bigint not at all, as `Jsonified` says)
 * is `never`, so a call that would be refused every time (a `z.date()` is given a string) does
 * not compile. An input that takes anything (`unknown`, as `z.coerce.date()`'s) takes anything.
 */
export type JsonInput<T> = unknown extends T
  ? T
  : T extends string | number | boolean | null | undefined
    ? T
    : T extends
          | { toJSON(...args: never[]): unknown }
          | ((...args: never[]) => unknown)
          | ReadonlyMap<unknown, unknown>
          | ReadonlySet<unknown>
          | ArrayBuffer
          | ArrayBufferView
          | Blob
      ? never
      : T extends object
        ? { [K in keyof T]: JsonInput<T[K]> }
        : never;

/**
 * `json`: optional only when the validator's input takes `undefined`, which is what it is given
 * for a request without content (docs/application.md, "Request bodies"): an object of optional
 * fields still needs `{}` sent.
 */
export type JsonPart<Shape extends RouteShape> =
  ShapeInputs<Shape> extends { json: infer Validated }
    ? undefined extends Validated
      ? { json?: JsonInput<Validated> | undefined }
      : { json: JsonInput<Validated> }
    : { json?: unknown };

/** `form`: required by a `formBody` validator, as a request without a form is a 415. */
export type FormPart<Shape extends RouteShape> =
  ShapeInputs<Shape> extends { form: infer Validated }
    ? { form: FormInputs<Validated> }
    : { form?: Readonly<Record<string, string>> | undefined };

/**
 * `json` and `form`: none for GET and HEAD, which fetch cannot send with content (and whose
 * content has no defined meaning, RFC 9110 §9.3.1). A request has one body, so a route whose
 * validator types one of them takes no other; elsewhere, giving both rejects at run time.
 */
export type BodiesPart<Method extends string, Shape extends RouteShape> = [Method] extends [
  'GET' | 'HEAD',
]
  ? { json?: never; form?: never }
  : ShapeInputs<Shape> extends { json: unknown }
    ? ShapeInputs<Shape> extends { form: unknown }
      ? JsonPart<Shape> & FormPart<Shape>
      : JsonPart<Shape> & { form?: never }
    : ShapeInputs<Shape> extends { form: unknown }
      ? { json?: never } & FormPart<Shape>
      : JsonPart<Shape> & FormPart<Shape>;

/**
 * `headers`: a validator names the headers it checks, but a request carries others its route
 * needs too (`Authorization`, `Accept`, `If-None-Match`), so any other name may be added. A
 * header set to `undefined` is not sent, so an optional one may be; nor is the client's default
 * of that name, so a call may go without the client's `Authorization`.
 */
export type HeadersPart<Shape extends RouteShape> =
  ShapeInputs<Shape> extends { headers: infer Validated }
    ? OptionsPart<'headers', Validated & Readonly<Record<string, string | undefined>>>
    : { headers?: Readonly<Record<string, string | undefined>> | undefined };

/**
 * The second argument of a client call: `params` from the template, `query`, `json`, `form`
 * and `headers` from the validators the route `uses()`, anything where it names none (and,
 * for `headers`, any other header beside the validated ones); no `json` or `form` for GET.
 */
export type RequestOptions<
  Path extends string,
  Shape extends RouteShape,
  Method extends string = Shape['method'],
> = Flattened<
  ParamsPart<Path, Shape> &
    QueryPart<Shape> &
    BodiesPart<Method, Shape> &
    HeadersPart<Shape> & {
      /** Cancels the request: the call rejects with the signal's reason, as fetch does. */
      signal?: AbortSignal | undefined;
    }
>;

/** The options as an argument: optional when nothing in them is required. */
export type OptionsArgument<Options> = {} extends Options
  ? [options?: Options]
  : [options: Options];

/**
 * The path parameter of a call the client has no typed route for: `createClient()` was given
 * neither the application (`{ app: api }`) nor its type (`createClient<typeof api>(...)`), or the
 * application's type carries no route of that method, its routes being registered by statements
 * (`app.get(...)`) rather than by `withRoutes()`. No path is one: the call's error names this
 * type (docs/openapi.md, "Typed clients").
 */
export type NoTypedRoutes = string & {
  readonly '~noTypedRoutes': 'give createClient() the application, or its type: createClient<typeof api>(...), of routes registered with withRoutes()';
};

/** The paths a call of `Method` takes: the templates of `Map`, or `NoTypedRoutes`. */
export type ClientPath<Map, Method extends string> = [PathsFor<Map, Method>] extends [never]
  ? NoTypedRoutes
  : PathsFor<Map, Method>;

/** One method of the client: a route template of that method, then the request's parts. */
export type ClientCall<Map, Method extends string> = <Path extends ClientPath<Map, Method>>(
  path: Path,
  ...options: OptionsArgument<RequestOptions<Path, EntryOf<Map, Method, Path>, Method>>
) => Promise<ResponseOf<EntryOf<Map, Method, Path>, Method>>;

/** The client of `Api`. */
export interface Client<Api> {
  get: ClientCall<RoutesOf<Api>, 'GET'>;
  post: ClientCall<RoutesOf<Api>, 'POST'>;
  put: ClientCall<RoutesOf<Api>, 'PUT'>;
  patch: ClientCall<RoutesOf<Api>, 'PATCH'>;
  delete: ClientCall<RoutesOf<Api>, 'DELETE'>;
}
