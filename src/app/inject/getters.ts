/**
 * Dependency injection by name. Each name a function destructures is bound, once per routing
 * table, to a getter; a request then calls only the getters its handler needs, each at most
 * once (request scope) or once per application (session scope). Getters return a value or a
 * promise; nothing awaits unless a provider is actually asynchronous.
 */

import { HttpError, SetupError } from '../../errors.js';
import type { Logger } from '../logger.js';
import { isPending, isThenable } from '../thenable.js';
import { readFiles, readFormOrUpload, readParts } from '../uploads/inject.js';
import { DEFAULT_MULTIPART_LIMITS, type MultipartLimits } from '../uploads/limits.js';
import type { Binding } from './bindings.js';
import { type CompiledParser, parsedBodyGetter, readValidatedJsonBody } from './body-parsers.js';
import { builtinGetter, isRouteBuiltin } from './builtins.js';
import type { Getter, RequestState } from './request-state.js';
import {
  headerInput,
  queryInput,
  refusingTooDeep,
  runStandardSchema,
  type StandardSchemaV1,
  type ValidationSource,
} from './validation.js';
import { cached, recall, sessionKey } from './value-cache.js';

/** What getters need from the application. */
export interface InjectionHost {
  readonly logger: Logger;
  readonly bindings: ReadonlyMap<string, Binding>;
  /** Session-scoped values, keyed by their binding (sibling routers may share a name). */
  readonly sessionCache: Map<unknown, unknown>;
  readonly startupValues: ReadonlyMap<string, unknown>;
  /** The challenge of an `authorized()` hook's 401 that gives none of its own. */
  readonly wwwAuthenticate: string | undefined;
  /** The application's `multipart` limits (docs/uploads.md). */
  readonly multipart?: MultipartLimits;
}

export type { Getter } from './request-state.js';

/**
 * A route's path parameters: each name and the position of its value among the values the
 * path matched (the last, when a template repeats a name).
 */
export type PathParamPositions = ReadonlyMap<string, number>;

/** The positions of a function that sees no path parameters. */
export const NO_PATH_PARAMS: PathParamPositions = new Map();

/** What a function may inject besides registered and built-in names, where it runs. */
export interface Available {
  params: PathParamPositions;
  extras: ReadonlySet<string>;
  /**
   * Path parameters of only some of the routes where the function runs (a router's error
   * handler), which it cannot be given: named as such when it asks for one.
   */
  someRoutesParams?: ReadonlySet<string>;
  /** The route's `accepts()` parsers, for `parsedBody` (none: every body is 415). */
  parsers?: readonly CompiledParser[] | undefined;
  /** The route's own `multipart()` limits, over the application's. */
  multipart?: MultipartLimits | undefined;
}

/**
 * Calls `getters` in order from the `from`-th, for what their values do rather than the values
 * themselves (an authorization hook or a `resourceExists` provider throws to end the request).
 * `undefined` when all of them answered synchronously, else a promise of the rest.
 */
export function runGetters(
  getters: readonly Getter[],
  state: RequestState,
  from: number,
): Promise<void> | undefined {
  for (let i = from; i < getters.length; i++) {
    const value = (getters[i] as Getter)(state);
    if (isThenable(value)) {
      return Promise.resolve(value).then(() => runGetters(getters, state, i + 1));
    }
  }
  return undefined;
}

/** Builds the injection object for `names`; a promise only when some value is asynchronous. */
export function buildContext(
  names: readonly string[],
  getters: readonly Getter[],
  state: RequestState,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  const context: Record<string, unknown> = {};
  // The first asynchronous value is awaited on its own (a JSON body, typically); Promise.all
  // only when there are several.
  let firstName: string | undefined;
  let first: PromiseLike<unknown> | undefined;
  let pending: Array<Promise<void>> | undefined;
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    const value = (getters[i] as Getter)(state);
    if (!isThenable(value)) context[name] = value;
    else if (first === undefined) {
      firstName = name;
      first = value;
    } else {
      pending ??= [];
      pending.push(
        Promise.resolve(value).then((resolved) => {
          context[name] = resolved;
        }),
      );
    }
  }
  if (first === undefined) return context;
  const settleFirst = Promise.resolve(first).then((resolved) => {
    context[firstName as string] = resolved;
    return context;
  });
  if (pending === undefined) return settleFirst;
  return Promise.all([settleFirst, ...pending]).then(() => context);
}

/**
 * Whether a name bound to `binding` has a value of its own in every request: a built-in, a path
 * parameter or extra (no binding), or a request-scoped dependency.
 */
function belongsToOneRequest(binding: Binding | undefined): boolean {
  if (binding === undefined) return true;
  return binding.kind !== 'startup' && binding.scope === 'request';
}

function invoke(fn: Function, context: Record<string, unknown> | Promise<Record<string, unknown>>) {
  return isPending(context) ? context.then((resolved) => fn(resolved)) : fn(context);
}

function notFoundWhenEmpty(value: unknown): unknown {
  const check = (resolved: unknown) => {
    if (resolved === null || resolved === undefined) throw new HttpError(404);
    return resolved;
  };
  return isThenable(value) ? Promise.resolve(value).then(check) : check(value);
}

function schemaSource(
  source: ValidationSource,
  schema: StandardSchemaV1,
  state: RequestState,
  limits: MultipartLimits,
): unknown {
  switch (source) {
    case 'jsonBody':
      return readValidatedJsonBody(state.request);
    case 'formBody':
      return readFormOrUpload(state, limits);
    case 'queryParams':
      return queryInput(state.request, schema);
    case 'pathParams':
      return state.request.pathParams;
    case 'headers':
      return headerInput(state.request);
  }
}

/**
 * Compiles getters for one scope of one routing table: the application's names, or those a
 * route sees under its routers (`bindings`). Getters of registered names are shared by every
 * route of the scope; `compile` verifies one function's names (transitively) for one route.
 */
export class GetterCompiler {
  readonly #host: InjectionHost;
  readonly #bindings: ReadonlyMap<string, Binding>;
  readonly #getters = new Map<string, Getter>();

  constructor(host: InjectionHost, bindings: ReadonlyMap<string, Binding> = host.bindings) {
    this.#host = host;
    this.#bindings = bindings;
  }

  /** The application's `multipart` limits, under a route's own. */
  get multipart(): MultipartLimits {
    return this.#host.multipart ?? DEFAULT_MULTIPART_LIMITS;
  }

  /** The names this scope sees and how they are produced. */
  get bindings(): ReadonlyMap<string, Binding> {
    return this.#bindings;
  }

  /**
   * Verifies that every name `names` needs (transitively) can be produced where `label` runs,
   * and returns their getters. Throws a SetupError naming `label` and the name otherwise.
   */
  compile(names: readonly string[], label: string, available: Available): Getter[] {
    const getters: Getter[] = [];
    for (const name of names) {
      this.#verify(name, label, available, [], undefined);
      getters.push(this.#getter(name, available));
    }
    return getters;
  }

  /** The binding names `names` reach (transitively), for the pipeline's phases. */
  reach(names: readonly string[]): Set<string> {
    const seen = new Set<string>();
    const stack = [...names];
    while (stack.length > 0) {
      const name = stack.pop() as string;
      if (seen.has(name)) continue;
      seen.add(name);
      const binding = this.#bindings.get(name);
      if (binding !== undefined && 'injectable' in binding) stack.push(...binding.injectable.names);
    }
    return seen;
  }

  /**
   * What a session value is cached under: one value per way its names resolve. Sibling routers
   * may register the same name (docs/hooks-and-scope.md), so an application's session value
   * made from it is one value per router that resolves it differently, never the first
   * router's value handed to the other's routes.
   */
  #sessionKey(binding: Binding): object {
    const resolution = [...this.reach([binding.name])]
      .sort()
      .map((name) => this.#bindings.get(name));
    return sessionKey(this.#host.sessionCache, binding, resolution);
  }

  #verify(
    name: string,
    label: string,
    available: Available,
    chain: string[],
    session: string | undefined,
  ): void {
    const binding = this.#bindings.get(name);
    if (binding !== undefined && available.params.has(name)) {
      throw new SetupError(
        'NAME_CLASH',
        `${label}: "${name}" is both a path parameter and a registered dependency`,
      );
    }
    // A session value is made once and shared by every request: made from one request's
    // values, it would hand them to all the others (docs/application.md, "Dependency injection by name").
    if (session !== undefined && belongsToOneRequest(binding)) {
      throw new SetupError(
        'SCOPE_MISMATCH',
        `${label}: session-scoped "${session}" needs "${name}" (via ${chain.join(' -> ')}), which belongs to one request; a session value is shared by every request, so make "${session}" request-scoped or have it need only session values and startup results`,
      );
    }
    if (available.extras.has(name) || available.params.has(name)) return;
    if (binding === undefined) {
      if (isRouteBuiltin(name)) return;
      const via = chain.length > 0 ? ` (needed by ${chain.join(' -> ')})` : '';
      if (available.someRoutesParams?.has(name)) {
        throw new SetupError(
          'UNKNOWN_DEPENDENCY',
          `${label}: "${name}"${via} is a path parameter of some routes only, not of the path they are all mounted at; an error handler may inject the parameters of its router's mount path, which every route under it has, or read pathParams.${name} (docs/hooks-and-scope.md)`,
        );
      }
      throw new SetupError(
        'UNKNOWN_DEPENDENCY',
        `${label}: unknown dependency "${name}"${via}; register it with app.dependency("${name}", ...), or on a router holding this route (a router's dependencies are seen by its own routes only, docs/hooks-and-scope.md)`,
      );
    }
    if (!('injectable' in binding)) return;
    if (chain.includes(name)) {
      const cycle = [...chain.slice(chain.indexOf(name)), name].join(' -> ');
      throw new SetupError('DEPENDENCY_CYCLE', `${label}: dependency cycle ${cycle}`);
    }
    chain.push(name);
    const within = binding.scope === 'session' ? name : session;
    for (const inner of binding.injectable.names) {
      this.#verify(inner, label, available, chain, within);
    }
    chain.pop();
  }

  #getter(name: string, available: Available): Getter {
    if (available.extras.has(name)) return (s) => s.extra?.[name];
    // A path parameter's value by its position, with no record of them all built for it (with
    // the record made on first read: 1,516 instructions fewer per Lambda REST GET event, 677 per
    // node GET with two parameters, bench/RESULTS.md).
    const position = available.params.get(name);
    if (position !== undefined) return (s) => s.paramValues[position];
    // A route's parsers make its getters its own: a shared one may have been compiled without.
    const own = available.parsers !== undefined || available.multipart !== undefined;
    const existing = own ? undefined : this.#getters.get(name);
    if (existing !== undefined) return existing;
    const host = this.#host;
    const binding = this.#bindings.get(name);
    let getter: Getter;
    const limits = available.multipart ?? host.multipart ?? DEFAULT_MULTIPART_LIMITS;
    if (binding === undefined && name === 'parsedBody') {
      getter = parsedBodyGetter(available.parsers ?? [], (parser, s) =>
        invoke(parser.injectable.fn, buildContext(parser.injectable.names, parser.getters, s)),
      );
    } else if (binding === undefined && name === 'formBody') {
      getter = (s) => readFormOrUpload(s, limits);
    } else if (binding === undefined && name === 'files') {
      getter = (s) => readFiles(s, limits);
    } else if (binding === undefined && name === 'parts') {
      getter = (s) => readParts(s, limits);
    } else if (binding === undefined) {
      getter = builtinGetter(name, host) ?? ((s) => s.request.pathParams[name]);
    } else if (binding.kind === 'startup') {
      getter = () => host.startupValues.get(name);
    } else {
      let produce: (s: RequestState) => unknown;
      if (binding.kind === 'schema') {
        const { schema, source } = binding;
        produce = (s) => {
          const value = schemaSource(source, schema, s, limits);
          return isThenable(value)
            ? Promise.resolve(value).then((resolved) => runStandardSchema(schema, resolved))
            : runStandardSchema(schema, value);
        };
      } else {
        const { names } = binding.injectable;
        // Providers can only ask for names that verify() accepted for every route that uses
        // them, so their getters can be shared across routes.
        const inner = names.map((innerName) => this.#getter(innerName, available));
        let call: (s: RequestState) => unknown;
        if (binding.kind === 'provider' && binding.guard !== undefined) {
          // A guard also answers for the values its check injects (a 401 gets its challenge).
          const guarded = binding.guard.wrap(host.wwwAuthenticate);
          call = (s) => guarded(() => buildContext(names, inner, s));
        } else {
          const fn =
            binding.kind === 'validator'
              ? refusingTooDeep(binding.injectable.fn)
              : binding.injectable.fn;
          call = (s) => invoke(fn, buildContext(names, inner, s));
        }
        produce = binding.kind === 'exists' ? (s) => notFoundWhenEmpty(call(s)) : call;
      }
      const sessionKey = binding.scope === 'session' ? this.#sessionKey(binding) : binding;
      getter =
        binding.scope === 'session'
          ? (s) => {
              // A failure this request already met, which the session has forgotten.
              const failed = s.cache?.get(sessionKey);
              if (failed !== undefined) return recall(failed);
              return cached(
                host.sessionCache,
                sessionKey,
                () => produce(s),
                true,
                (failure) => {
                  s.cache ??= new Map();
                  s.cache.set(sessionKey, failure);
                },
              );
            }
          : (s) => {
              s.cache ??= new Map();
              return cached(s.cache, name, () => produce(s), false);
            };
    }
    // Getters that depend on which names are path parameters or extras are not shared.
    if (available.params.size === 0 && available.extras.size === 0 && !own) {
      this.#getters.set(name, getter);
    }
    return getter;
  }
}
