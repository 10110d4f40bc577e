/**
 * What a route's type carries beyond its handler's injection object, for typed clients
 * (`restmachine/client`, docs/openapi.md): its method, its handler's result, the responses
 * `returns()` declares and the validated inputs `uses()` names. Types only: nothing here exists
 * at run time.
 */
import type { HTTPMethod } from '../../http/methods.js';
import type { StandardSchemaV1, ValidationSource } from '../inject/validation.js';

/**
 * The key under which a registry type records, for each Standard Schema validator, where it
 * reads and what it accepts (`validates()` adds them).
 */
export declare const VALIDATED: unique symbol;

/** One validator as the registry type records it. */
export interface ValidatedInput<
  Source extends ValidationSource = ValidationSource,
  Input = unknown,
> {
  source: Source;
  input: Input;
}

/** The registry entry `validates(name, schema, { source })` adds beside the name itself. */
export type Validated<Name extends string, Source extends ValidationSource, Input> = {
  readonly [VALIDATED]?: { [K in Name]: ValidatedInput<Source, Input> };
};

/** The names of the Standard Schema validators a registry type holds. */
export type ValidatorNames<Deps> = Deps extends { readonly [VALIDATED]?: infer Map }
  ? Extract<keyof NonNullable<Map>, string>
  : never;

/**
 * The key under which a registry type records the names no hook may inject besides the Standard
 * Schema validators: function validators, `resourceExists` providers and `authorized()` or
 * `forbidden()` hooks, which run code meant for the request's handler (docs/hooks-and-scope.md).
 */
export declare const NOT_FOR_HOOKS: unique symbol;

/** The registry entry that keeps `Name` out of hook contexts. */
export type NotForHooks<Name extends string> = {
  readonly [NOT_FOR_HOOKS]?: { [K in Name]: true };
};

/** The names a registry type keeps out of hook contexts (Standard Schema validators aside). */
export type NotForHooksNames<Deps> = Deps extends { readonly [NOT_FOR_HOOKS]?: infer Map }
  ? Extract<keyof NonNullable<Map>, string>
  : never;

/**
 * The key under which a registry type records the names `onStartup(name, ...)` made: the only
 * registered names a startup or shutdown handler may inject (docs/application.md, "Lifecycle").
 */
export declare const STARTUP_RESULTS: unique symbol;

/** The registry entry that marks `Name` a startup result. */
export type StartupResult<Name extends string> = {
  readonly [STARTUP_RESULTS]?: { [K in Name]: true };
};

/** The startup results a registry type holds. */
export type StartupResultNames<Deps> = Deps extends { readonly [STARTUP_RESULTS]?: infer Map }
  ? Extract<keyof NonNullable<Map>, string>
  : never;

/** Where a client puts what each validation source reads. */
export interface SourceKeys {
  jsonBody: 'json';
  formBody: 'form';
  queryParams: 'query';
  headers: 'headers';
  pathParams: 'params';
}

/** The client key an entry is read into (one per entry: the conditional distributes). */
export type SourceKeyOf<Entry> =
  Entry extends ValidatedInput<infer Source> ? SourceKeys[Source] : never;

/**
 * A union made an intersection; each member is boxed first (`[A] | [B]`), so that an input that
 * is itself a union (`A | B`) stays one.
 */
export type IntersectionOf<Boxes> = Unboxed<
  (Boxes extends unknown ? (box: Boxes) => void : never) extends (box: infer Both) => void
    ? Both
    : never
>;

/** What a one-element tuple holds. */
export type Unboxed<Box> = Box extends readonly [unknown] ? Box[0] : never;

/**
 * The request parts the validators `Names` of `Deps` describe, by client key. Validators that
 * read the same part all check it, so the part must satisfy them all: their inputs intersect.
 */
export type InputsOf<Deps, Names extends string> = Deps extends {
  readonly [VALIDATED]?: infer Map;
}
  ? {
      [Key in SourceKeyOf<NonNullable<Map>[Names & keyof NonNullable<Map>]>]: IntersectionOf<
        {
          [Name in Names & keyof NonNullable<Map>]: SourceKeyOf<NonNullable<Map>[Name]> extends Key
            ? NonNullable<Map>[Name] extends ValidatedInput<ValidationSource, infer Input>
              ? [Input]
              : never
            : never;
        }[Names & keyof NonNullable<Map>]
      >;
    }
  : {};

/** What a route's type says about it (see the file comment). */
export interface RouteShape {
  method: HTTPMethod;
  /** The handler's return type, as written (a promise, a tuple...). */
  result: unknown;
  /** The body type of each status `returns()` declares (`undefined`: declared without schema). */
  returns: object;
  /** The request parts the route's validators describe: `json`, `query`, `headers`... */
  inputs: object;
}

/** The shape of a route just registered. */
export interface NewRoute<Method extends HTTPMethod, Result> extends RouteShape {
  method: Method;
  result: Result;
  returns: {};
  inputs: {};
}

/** The shape after `returns(status, schema)`. */
export type WithReturn<Shape extends RouteShape, Status extends number, Schema> = Omit<
  Shape,
  'returns'
> & {
  returns: Shape['returns'] & {
    [K in Status]: Schema extends StandardSchemaV1
      ? StandardSchemaV1.InferOutput<Schema>
      : undefined;
  };
};

/** The shape after `uses(...names)`. */
export type WithInputs<Shape extends RouteShape, Inputs extends object> = Omit<Shape, 'inputs'> & {
  inputs: Shape['inputs'] & Inputs;
};

/** One entry of a route map: a route's template and shape. */
export interface RouteEntry<Path extends string = string, Shape extends RouteShape = RouteShape> {
  path: Path;
  shape: Shape;
}

/** A route's type, as a route map reads it. */
export interface TypedRoute<Path extends string = string, Shape extends RouteShape = RouteShape> {
  readonly '~route'?: RouteEntry<Path, Shape>;
}

/**
 * The routes of a `routes()` call keyed `'GET /notes/{id}'`. An object, not a union, so that
 * the maps of several calls intersect into one.
 */
export type RouteMap<Routes extends readonly TypedRoute[]> = {
  [Entry in NonNullable<
    Routes[number]['~route']
  > as `${Entry['shape']['method']} ${Entry['path']}`]: Entry;
};

/** A value whose type carries a route map: an application or router after `routes()`. */
export interface CarriesRoutes<Map extends object> {
  readonly '~routes'?: Map;
}

/**
 * The route map `This` carries, kept by the registration methods that return an application or
 * router of a new registry type (`dependency()`, `validates()`...), so that a chain such as
 * `.withRoutes(...).dependency(...).withRoutes(...)` keeps the routes of both calls.
 */
export type RoutesCarriedBy<This> = This extends { readonly '~routes'?: infer Map }
  ? [NonNullable<Map>] extends [never]
    ? {}
    : CarriesRoutes<NonNullable<Map>>
  : {};

/** `P` without its trailing slashes. */
export type TrimTrailingSlash<P extends string> = P extends `${infer Head}/`
  ? TrimTrailingSlash<Head>
  : P;

/** `P` with a leading slash. */
export type WithLeadingSlash<P extends string> = P extends `/${string}` ? P : `/${P}`;

/** `prefix` + `path` as `mount()` joins them (`'/api/'` + `'/notes'` is `'/api/notes'`). */
export type JoinPath<Prefix extends string, Path extends string> =
  TrimTrailingSlash<Prefix> extends ''
    ? Path
    : Path extends '/'
      ? WithLeadingSlash<TrimTrailingSlash<Prefix>> // a mounted root route is the prefix itself, as served
      : `${WithLeadingSlash<TrimTrailingSlash<Prefix>>}${Path}`;

/** The route map of a router mounted under `Prefix`. */
export type MountedRoutes<Prefix extends string, Mounted> = Mounted extends {
  readonly '~routes'?: infer Map;
}
  ? [NonNullable<Map>] extends [never]
    ? {}
    : CarriesRoutes<{
        [Key in keyof NonNullable<Map> as Key extends `${infer Method} ${infer Path}`
          ? `${Method} ${JoinPath<Prefix, Path>}`
          : never]: NonNullable<Map>[Key] extends RouteEntry<infer Path, infer Shape>
          ? RouteEntry<JoinPath<Prefix, Path>, Shape>
          : never;
      }>
  : {};

/** What `validates(name, validator, { source })` records: Standard Schema validators only. */
export type ValidatedBy<
  Name extends string,
  Source extends ValidationSource,
  Validator,
> = Validator extends StandardSchemaV1
  ? Validated<Name, Source, StandardSchemaV1.InferInput<Validator>>
  : NotForHooks<Name>;

/** The method a registration call names, as the route's type records it. */
export type MethodOf<Method extends string> =
  Uppercase<Method> extends HTTPMethod ? Uppercase<Method> : HTTPMethod;
