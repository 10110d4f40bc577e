/**
 * Router: groups routes and mounts other routers under a prefix. What a router registers (names,
 * authorization hooks, error handlers, hooks, CORS, CSP) applies to every route under it and is
 * visible to those routes only (docs/hooks-and-scope.md); everything else comes from the
 * application it ends up mounted on.
 */

import { SetupError } from '../../errors.js';
import { type HTTPMethod, type MethodInput, normalizeMethod } from '../../http/methods.js';
import { type CompressOptions, compressSetting } from '../compression/options.js';
import {
  type AuthorizationHook,
  type AuthorizationOptions,
  guardBinding,
} from '../features/authorization.js';
import { type CorsOptions, checkCorsOptions } from '../features/cors.js';
import type { CspOptions } from '../features/csp.js';
import { describeHook } from '../features/hooks.js';
import type { Binding } from '../inject/bindings.js';
import { addParser } from '../inject/body-parsers.js';
import { describeInjectable, type Injectable } from '../inject/handler-parameters.js';
import type { CheckedHandler } from '../representable.js';
import type {
  ErrorHandler,
  OnRequestHook,
  OnResponseHook,
  Provider,
  Registry,
  Truthy,
  With,
} from '../types.js';
import {
  addBinding,
  DEPENDENCY_OPTIONS,
  type DependencyOptions,
  errorHandlerStatus,
  registeredScope,
} from './registration.js';
import { cspSetting, Route } from './route.js';
import type {
  CarriesRoutes,
  MethodOf,
  MountedRoutes,
  NewRoute,
  NotForHooks,
  RouteMap,
  RoutesCarriedBy,
  TypedRoute,
} from './route-types.js';
import { normalizePrefix, validateTemplate } from './template.js';

/** A router mounted under a prefix. */
export interface Mount {
  prefix: string;
  router: Router<Registry>;
}

/**
 * A group of routes mounted under a prefix.
 *
 * @example
 * const v1 = new Router();
 * v1.get('/bookmarks', ({ store }) => store.list());
 * app.mount('/api/v1', v1);
 */
export class Router<Deps extends Registry = {}> {
  /**
   * The application the router is written for, when given: passing it types
   * the router's handlers with the application's registered names.
   *
   * @example
   * const v1 = new Router(app); // handlers see every name `app` registered
   */
  readonly app: Router<Deps> | undefined;
  readonly routes: Route<Deps>[] = [];
  readonly mounts: Mount[] = [];
  /** Extensions of later features (CORS, CSP) that apply to every route of this router. */
  readonly settings: Record<string, unknown> = {};
  /** The names this router registered and how to produce them. */
  readonly bindings = new Map<string, Binding>();
  /** Authorization hooks in registration order (docs/http-semantics.md#authorization-hooks). */
  readonly authorizationHooks: AuthorizationHook[] = [];
  readonly errorHandlerSources = new Map<number | 'default', Injectable>();
  readonly onRequestHooks: Injectable[] = [];
  readonly onResponseHooks: Injectable[] = [];

  // What it is mounted on: a change here reaches every application that holds the router.
  readonly #mountedOn = new Set<Router<Registry>>();
  #generation = 0;

  constructor(app?: Router<Deps>) {
    this.app = app;
  }

  /**
   * Counts the registrations made on this router and on every router mounted on it, so an
   * application rebuilds its routing table only when something it holds changed: a mount is a
   * live reference, and routes added after it still count.
   *
   * @internal
   */
  get generation(): number {
    return this.#generation;
  }

  /**
   * Records a registration here; the routers this one is mounted on see it too.
   *
   * @internal
   */
  protected changed(): void {
    this.#generation++;
    for (const parent of this.#mountedOn) parent.changed();
  }

  /**
   * Adds a name to this router's registry; clashes with outer routers and the application are
   * found when the routing table is built.
   *
   * @internal
   */
  protected register(binding: Binding): void {
    addBinding(this.bindings, binding);
    this.changed();
  }

  /**
   * Registers a dependency. `scope: 'request'` (default) computes it once per request;
   * `'session'` once for the life of the application. On a router, the name is visible to the
   * routes under the router only.
   *
   * The one-argument form takes the name from the function, which minifiers rename: prefer
   * the named form in code that is bundled.
   *
   * @example
   * const app = new RestApplication()
   *   .dependency('db', () => openDatabase(), { scope: 'session' })
   *   .dependency('user', ({ db, headers }) => db.userFor(headers.get('authorization')));
   */
  dependency<Name extends string, T>(
    name: Name,
    provider: Provider<Deps, T>,
    options?: DependencyOptions,
  ): Router<With<Deps, Name, Awaited<T>>> & RoutesCarriedBy<this>;
  dependency(provider: Provider<Deps, unknown>, options?: DependencyOptions): this;
  dependency(
    nameOrProvider: string | Provider<Deps, unknown>,
    providerOrOptions?: Provider<Deps, unknown> | DependencyOptions,
    maybeOptions?: DependencyOptions,
  ): unknown {
    const [name, provider, options] =
      typeof nameOrProvider === 'function'
        ? [nameOrProvider.name, nameOrProvider, providerOrOptions as DependencyOptions | undefined]
        : [nameOrProvider, providerOrOptions as Provider<Deps, unknown>, maybeOptions];
    this.register({
      kind: 'provider',
      name,
      scope: registeredScope(`dependency "${name}"`, options, DEPENDENCY_OPTIONS),
      injectable: describeInjectable(provider, `Dependency "${name}"`),
    });
    return this;
  }

  /**
   * Registers an authorization hook: when `check` returns a falsy value the request ends with
   * 401 (with the `wwwAuthenticate` challenge), before content negotiation; otherwise the value
   * is injectable under `name`. On a router it guards every route under the router, whatever
   * the handler injects. On the application it guards the routes that inject `name` (directly
   * or through their providers), or every route with `{ global: true }`. Guarded responses
   * carry `Vary: Authorization`.
   *
   * @example
   * const notes = new Router()
   *   .authorized('user', ({ headers }) => users.byToken(headers.get('authorization')));
   * notes.get('/notes/{id}', ({ id }) => store.get(id)); // 401 without a user
   */
  authorized<Name extends string, T>(
    name: Name,
    check: Provider<Deps, T>,
    options?: AuthorizationOptions,
  ): Router<With<Deps, Name, Truthy<Awaited<T>>> & NotForHooks<Name>> & RoutesCarriedBy<this> {
    this.#registerHook('authorized', name, check, options);
    return this as never;
  }

  /**
   * Registers a permission check: when `check` returns a truthy value the request ends with
   * 403, after the `authorized()` hooks and before content negotiation. It guards the same
   * routes `authorized()` would.
   *
   * @example
   * admin.forbidden('notAdmin', ({ user }) => !user.roles.includes('admin'));
   */
  forbidden<Name extends string>(
    name: Name,
    check: Provider<Deps, unknown>,
    options?: AuthorizationOptions,
  ): Router<With<Deps, Name, false> & NotForHooks<Name>> & RoutesCarriedBy<this> {
    this.#registerHook('forbidden', name, check, options);
    return this as never;
  }

  #registerHook(
    kind: AuthorizationHook['kind'],
    name: string,
    check: Function,
    options: AuthorizationOptions | undefined,
  ): void {
    const { binding, hook } = guardBinding(kind, name, check, options);
    this.register(binding);
    this.authorizationHooks.push(hook);
  }

  /**
   * Registers an error handler for one status, or (without a status) for every error. A
   * router's handles the errors of the routes under it; the innermost for a status wins.
   *
   * @example
   * app.errorHandler(404, ({ error }) => ({ message: `Nothing at ${error.path}` }));
   */
  errorHandler(handler: ErrorHandler<Deps>): this;
  errorHandler(status: number, handler: ErrorHandler<Deps>): this;
  errorHandler(
    statusOrHandler: number | ErrorHandler<Deps>,
    maybeHandler?: ErrorHandler<Deps>,
  ): this {
    const [key, handler] =
      typeof statusOrHandler === 'number'
        ? [statusOrHandler, maybeHandler]
        : ['default' as const, statusOrHandler];
    this.errorHandlerSources.set(
      errorHandlerStatus(key),
      describeInjectable(handler as Function, `Error handler ${key}`),
    );
    this.changed();
    return this;
  }

  /**
   * Runs `hook` for every request to a route under this router (every request at all, on the
   * application), after routing and before authorization. It may end the request by returning
   * a `Response` or a `[body, status]` tuple, or by throwing `HttpError`. It injects
   * request-level names only: no body, validator, `resourceExists` or authorization name.
   *
   * @example
   * app.onRequest(({ headers }) => {
   *   if (headers.get('x-maintenance') === 'on') return ['Back soon', 503];
   * });
   */
  onRequest(hook: OnRequestHook<Deps>): this {
    this.onRequestHooks.push(describeHook(hook, 'onRequest hook'));
    this.changed();
    return this;
  }

  /**
   * Runs `hook` once the response is final (after error handling, before it is sent), with
   * `response` and `elapsedMs` besides the request-level names. It may change headers, not the
   * status; one that throws is logged and the response goes out as it was. Hooks run from the
   * route out to the application.
   *
   * @example
   * app.onResponse(({ response, elapsedMs }) => {
   *   response.headers.set('Server-Timing', `app;dur=${elapsedMs.toFixed(1)}`);
   * });
   */
  onResponse(hook: OnResponseHook<Deps>): this {
    this.onResponseHooks.push(describeHook(hook, 'onResponse hook'));
    this.changed();
    return this;
  }

  /**
   * Exempts every route under this router from every authorization hook in scope (for a
   * `StaticRouter` or a docs router), including under `authorization: 'required'`.
   *
   * @example
   * app.mount('/assets', new StaticRouter('./public').public());
   */
  public(): this {
    this.settings.public = true;
    this.changed();
    return this;
  }

  /** Registers `handler` for `method` at `path`. */
  route<Path extends string, R, Method extends MethodInput = MethodInput>(
    method: Method,
    path: Path,
    handler: CheckedHandler<Deps, Path, R>,
  ): Route<Deps, Path, NewRoute<MethodOf<Method>, R>> {
    let canonical: HTTPMethod;
    try {
      canonical = normalizeMethod(method);
    } catch (error) {
      throw new SetupError('INVALID_METHOD', (error as Error).message);
    }
    validateTemplate(path);
    const route = new Route<Deps, Path, NewRoute<MethodOf<Method>, R>>(
      canonical,
      path,
      describeInjectable(handler, `Handler of ${canonical} ${path}`),
      () => this.changed(),
    );
    this.routes.push(route);
    this.changed();
    return route;
  }

  get<Path extends string, R>(
    path: Path,
    handler: CheckedHandler<Deps, Path, R>,
  ): Route<Deps, Path, NewRoute<'GET', R>> {
    return this.route('GET', path, handler);
  }

  post<Path extends string, R>(
    path: Path,
    handler: CheckedHandler<Deps, Path, R>,
  ): Route<Deps, Path, NewRoute<'POST', R>> {
    return this.route('POST', path, handler);
  }

  put<Path extends string, R>(
    path: Path,
    handler: CheckedHandler<Deps, Path, R>,
  ): Route<Deps, Path, NewRoute<'PUT', R>> {
    return this.route('PUT', path, handler);
  }

  patch<Path extends string, R>(
    path: Path,
    handler: CheckedHandler<Deps, Path, R>,
  ): Route<Deps, Path, NewRoute<'PATCH', R>> {
    return this.route('PATCH', path, handler);
  }

  delete<Path extends string, R>(
    path: Path,
    handler: CheckedHandler<Deps, Path, R>,
  ): Route<Deps, Path, NewRoute<'DELETE', R>> {
    return this.route('DELETE', path, handler);
  }

  head<Path extends string, R>(
    path: Path,
    handler: CheckedHandler<Deps, Path, R>,
  ): Route<Deps, Path, NewRoute<'HEAD', R>> {
    return this.route('HEAD', path, handler);
  }

  options<Path extends string, R>(
    path: Path,
    handler: CheckedHandler<Deps, Path, R>,
  ): Route<Deps, Path, NewRoute<'OPTIONS', R>> {
    return this.route('OPTIONS', path, handler);
  }

  /**
   * CORS for every route of this router (the application's routes too, when called on it):
   * options merged over the enclosing routers', or `false` to switch CORS off here.
   *
   * @example
   * app.cors({ origin: 'https://app.example', credentials: true });
   */
  cors(options: CorsOptions | false): this {
    this.settings.cors = checkCorsOptions(options);
    this.changed();
    return this;
  }

  /**
   * The Content-Security-Policy of every response of this router's routes (of every response,
   * when called on the application), unless an inner router or route sets its own.
   *
   * @example
   * app.csp({ directives: { defaultSrc: ["'self'"], scriptSrc: ["'self'", "'nonce'"] } });
   */
  csp(options: CspOptions | false): this {
    this.settings.csp = cspSetting(options);
    this.changed();
    return this;
  }

  /**
   * Compresses the responses of every route of this router (of every response, when called on
   * the application) for clients that accept it: gzip, Brotli, and zstd where the runtime has it,
   * chosen from `Accept-Encoding`; only compressible types over `threshold` bytes (1 KiB by
   * default), streams as they are produced. An inner router or a route may set its own, or
   * `false` (docs/streams.md, "Compression").
   *
   * @example
   * app.compress();
   */
  compress(options?: CompressOptions | false): this {
    this.settings.compress = compressSetting(options);
    this.changed();
    return this;
  }

  /**
   * Parses request bodies of `mediaType` for every route of this router (every route, when called
   * on the application) into `parsedBody`. `mediaType` may be a range (`text/*`) or name a
   * structured suffix (`application/*+json`); a route's and an inner router's parser for the
   * same type win. A body no parser takes is 415 with `Accept` listing what the route takes.
   *
   * @example
   * app.accepts('text/csv', ({ body }) => body.split('\n').map((line) => line.split(',')));
   * app.post('/rows', ({ parsedBody }) => ({ rows: (parsedBody as string[][]).length }));
   */
  accepts(mediaType: string, parser: Provider<Deps, unknown>): this {
    addParser(this.settings, mediaType, describeInjectable(parser, `accepts(${mediaType})`));
    this.changed();
    return this;
  }

  /**
   * Registers the routes `build` makes, as separate statements would, and returns this router
   * typed with them: the form typed clients read (docs/openapi.md, "Typed clients").
   *
   * @example
   * const api = app.withRoutes((r) => [r.get('/notes/{id}', ({ note }) => note).returns(200, Note)]);
   * const client = createClient<typeof api>({ app: api });
   */
  withRoutes<const Routes extends readonly TypedRoute[]>(
    build: (router: this) => Routes,
  ): this & CarriesRoutes<RouteMap<Routes>> {
    build(this);
    return this;
  }

  /**
   * Mounts `router` under `prefix`; later changes to `router` still count. A router whose type
   * carries its routes (`routes()`) adds them, prefixed, to the type returned.
   */
  mount<Prefix extends string, Mounted extends Router<Registry>>(
    prefix: Prefix,
    router: Mounted,
  ): this & MountedRoutes<Prefix, Mounted>;
  mount(prefix: string, router: Router<Registry>): this {
    if (!(router instanceof Router)) {
      throw new SetupError('INVALID_ROUTE', 'mount() needs a Router');
    }
    if (router === (this as Router<Registry>)) {
      throw new SetupError('INVALID_ROUTE', 'A router cannot be mounted on itself');
    }
    if (router.#holds(this as Router<Registry>)) {
      throw new SetupError('INVALID_ROUTE', 'Routers are mounted in a loop');
    }
    this.mounts.push({ prefix: normalizePrefix(prefix), router });
    router.#mountedOn.add(this as Router<Registry>);
    this.changed();
    return this;
  }

  /** Whether `router` is mounted on this one, directly or through other routers. */
  #holds(router: Router<Registry>): boolean {
    return this.mounts.some((mount) => mount.router === router || mount.router.#holds(router));
  }
}
