/**
 * Scope (docs/hooks-and-scope.md): what a route sees and what guards it depends on where it is
 * mounted. The application's scope holds its names, authorization hooks and error handlers; each
 * router adds its own for the routes under it, so sibling routers may register the same name and
 * each route gets its own router's. A router may not register a name its application or an
 * outer router already has: one name meaning two things along one route is refused at startup.
 */
import { SetupError } from '../../errors.js';
import type { AuthorizationHook } from '../features/authorization.js';
import { type CompiledHook, compileHooks, orNothing, type RouteHooks } from '../features/hooks.js';
import type { Binding } from '../inject/bindings.js';
import {
  GetterCompiler,
  type InjectionHost,
  NO_PATH_PARAMS,
  type PathParamPositions,
} from '../inject/getters.js';
import type { Injectable } from '../inject/handler-parameters.js';
import type { Registry } from '../types.js';
import type { Route } from './route.js';
import type { Router } from './router.js';
import { templateParams } from './template.js';

/** A compiled error handler. */
export interface CompiledErrorHandler {
  fn: Function;
  names: readonly string[];
  getters: ReturnType<GetterCompiler['compile']>;
}

export type ErrorHandlers = ReadonlyMap<number | 'default', CompiledErrorHandler>;

/** What every route under one router (or the application) shares. */
export interface CompiledScope {
  compiler: GetterCompiler;
  /** Who registered each name, for clash messages. */
  owners: ReadonlyMap<string, string>;
  /** The application's hooks as registered, then the routers' (which guard every route). */
  authorizationHooks: readonly AuthorizationHook[];
  /** Innermost first per status: a router's `default` handler shadows outer ones. */
  errorHandlers: ErrorHandlers;
  /** The routers' hooks, outermost first (the application's run on their own). */
  onRequest: readonly Injectable[];
  /** The routers' `onResponse` hooks, one list per router, outermost first. */
  onResponse: ReadonlyArray<readonly Injectable[]>;
  /** Set under a `.public()` router. */
  isPublic: boolean;
  /**
   * What was wrong with this scope or an outer one (a name clash): startup refuses it, and a
   * route registered after startup under it fails closed, since the name it would see is not
   * the one its router registered (an authorization hook could run another's check).
   */
  problem: SetupError | undefined;
}

const ERROR: ReadonlySet<string> = new Set(['error']);

/** The path parameter names of the routes under `router`, at any depth. */
function paramsBeneath(router: Router<Registry>, names = new Set<string>()): Set<string> {
  for (const route of router.routes) for (const name of templateParams(route.path)) names.add(name);
  for (const mount of router.mounts) {
    for (const name of templateParams(mount.prefix)) names.add(name);
    paramsBeneath(mount.router, names);
  }
  return names;
}

/**
 * Error handlers answer errors of every route under their router, so they may inject the
 * parameters of the path it is mounted at (`prefix`, outer mounts included), which every one
 * of those routes has; they come first in each route's template, so at the same positions
 * (docs/hooks-and-scope.md). A parameter of some routes only is refused, saying so.
 */
function compileErrorHandlers(
  compiler: GetterCompiler,
  router: Router<Registry>,
  prefix: string,
  where: string,
  problems: SetupError[],
): Map<number | 'default', CompiledErrorHandler> {
  const handlers = new Map<number | 'default', CompiledErrorHandler>();
  if (router.errorHandlerSources.size === 0) return handlers;
  const names = templateParams(prefix);
  const params: PathParamPositions =
    names.length === 0 ? NO_PATH_PARAMS : new Map(names.map((name, at) => [name, at]));
  const someRoutesParams = paramsBeneath(router);
  for (const [status, injectable] of router.errorHandlerSources) {
    const label = `Error handler ${status === 'default' ? '(default)' : status} of ${where}`;
    try {
      handlers.set(status, {
        fn: injectable.fn,
        names: injectable.names,
        getters: compiler.compile(injectable.names, label, {
          params,
          extras: ERROR,
          someRoutesParams,
        }),
      });
    } catch (error) {
      problems.push(error as SetupError);
    }
  }
  return handlers;
}

/** The application's scope. */
export function applicationScope(
  host: InjectionHost,
  app: Router<Registry>,
  problems: SetupError[],
): CompiledScope {
  const compiler = new GetterCompiler(host);
  const owners = new Map<string, string>();
  for (const name of app.bindings.keys()) owners.set(name, 'the application');
  const guardsNothing = publicWithOwnGuard(app, 'the application');
  if (guardsNothing !== undefined) problems.push(guardsNothing);
  return {
    compiler,
    owners,
    authorizationHooks: app.authorizationHooks,
    errorHandlers: compileErrorHandlers(compiler, app, '', 'the application', problems),
    onRequest: [],
    onResponse: [],
    isPublic: app.settings.public === true,
    problem: undefined,
  };
}

/** The scope of the routes under `router`, mounted inside `outer` at `prefix`. */
export function routerScope(
  host: InjectionHost,
  outer: CompiledScope,
  router: Router<Registry>,
  prefix: string,
  problems: SetupError[],
): CompiledScope {
  const where = `the router mounted at ${prefix === '' ? '/' : prefix}`;
  let compiler = outer.compiler;
  let owners = outer.owners;
  let problem = outer.problem;
  if (router.bindings.size > 0) {
    const bindings = new Map<string, Binding>(compiler.bindings);
    const mine = new Map(owners);
    for (const [name, binding] of router.bindings) {
      const owner = owners.get(name);
      if (owner !== undefined) {
        const clash = new SetupError(
          'NAME_CLASH',
          `"${name}" is registered by ${where} and already by ${owner}; ` +
            'a router may not register a name its application or an outer router has',
        );
        problems.push(clash);
        problem ??= clash;
        continue;
      }
      bindings.set(name, binding);
      mine.set(name, where);
    }
    compiler = new GetterCompiler(host, bindings);
    owners = mine;
  }
  let errorHandlers = outer.errorHandlers;
  if (router.errorHandlerSources.size > 0) {
    const own = compileErrorHandlers(compiler, router, prefix, where, problems);
    errorHandlers = own.has('default') ? own : new Map([...outer.errorHandlers, ...own]);
  }
  const hooks = router.authorizationHooks;
  const guardsNothing = publicWithOwnGuard(router, where);
  if (guardsNothing !== undefined) {
    problems.push(guardsNothing);
    problem ??= guardsNothing;
  }
  // A router's hooks guard every route under it, whatever the route injects.
  const own = hooks.map((hook) => ({ ...hook, global: true }));
  let authorizationHooks =
    own.length === 0 ? outer.authorizationHooks : [...outer.authorizationHooks, ...own];
  let exempt = outer.isPublic || router.settings.public === true;
  if (own.length > 0 && outer.isPublic && router.settings.public !== true) {
    // Inside a public router (or application): public() exempts its routes from the hooks of
    // the routers around it, not from this router's own, which guard every route it holds.
    authorizationHooks = own;
    exempt = false;
  }
  return {
    compiler,
    owners,
    authorizationHooks,
    errorHandlers,
    onRequest: [...outer.onRequest, ...router.onRequestHooks],
    onResponse:
      router.onResponseHooks.length === 0
        ? outer.onResponse
        : [...outer.onResponse, router.onResponseHooks],
    isPublic: exempt,
    problem,
  };
}

/**
 * A `.public()` router that registers an authorization hook of its own exempts every route
 * under it from that very hook, which then guards nothing: almost always a mistake that leaves
 * the routes open, so it is one that `startup()` reports (docs/hooks-and-scope.md).
 */
function publicWithOwnGuard(router: Router<Registry>, where: string): SetupError | undefined {
  const hook = router.authorizationHooks[0];
  if (router.settings.public !== true || hook === undefined) return undefined;
  return new SetupError(
    'INVALID_OPTION',
    `${where} is .public() and registers the authorization hook "${hook.name}", which then guards none of its routes; remove .public(), or register the hook on a router that is not public`,
  );
}

/** Whether `route` is exempt from every authorization hook in its scope. */
export function isPublic(scope: CompiledScope, route: Route<Registry>): boolean {
  return scope.isPublic || route.settings.public === true;
}

/**
 * The hooks of one route: its routers' and its own `onRequest` in order; `onResponse` from the
 * route out (levels in reverse, registration order within a level), then the application's.
 * `undefined` when the route adds none to the application's.
 */
export function compileRouteHooks(
  scope: CompiledScope,
  route: Route<Registry>,
  label: string,
  params: PathParamPositions,
  application: readonly CompiledHook[] | undefined,
): RouteHooks | undefined {
  const requestHooks = [...scope.onRequest, ...route.onRequestHooks];
  if (
    requestHooks.length === 0 &&
    scope.onResponse.length === 0 &&
    route.onResponseHooks.length === 0
  ) {
    return undefined;
  }
  const compiler = scope.compiler;
  const onResponse = compileHooks(compiler, route.onResponseHooks, label, params, 'onResponse');
  for (let level = scope.onResponse.length - 1; level >= 0; level--) {
    const hooks = scope.onResponse[level] as readonly Injectable[];
    onResponse.push(...compileHooks(compiler, hooks, label, params, 'onResponse'));
  }
  onResponse.push(...(application ?? []));
  return {
    onRequest: orNothing(compileHooks(compiler, requestHooks, label, params, 'onRequest')),
    onResponse: orNothing(onResponse),
  };
}

/** A route with its full template, the routers holding it and its scope. */
export interface FlatRoute {
  template: string;
  route: Route<Registry>;
  routers: Router<Registry>[];
  scope: CompiledScope;
}

/** Where a router adds to the scope of the routes under it. */
export interface ScopeBuilder {
  host: InjectionHost;
  problems: SetupError[];
}

function joinPath(prefix: string, path: string): string {
  if (prefix === '') return path;
  return path === '/' ? prefix : `${prefix}${path}`;
}

/** The routes under `router`, mounted at `prefix`, into `out`, each with its scope. */
export function flatten(
  router: Router<Registry>,
  prefix: string,
  chain: Router<Registry>[],
  scope: CompiledScope,
  builder: ScopeBuilder,
  out: FlatRoute[],
): void {
  if (chain.includes(router)) {
    throw new SetupError('INVALID_ROUTE', 'Routers are mounted in a loop');
  }
  const routers = [...chain, router];
  for (const route of router.routes) {
    const template = joinPath(prefix, route.path);
    out.push({ template, route: route as Route<Registry>, routers, scope });
  }
  for (const mount of router.mounts) {
    const inner = prefix + mount.prefix;
    const innerScope = routerScope(builder.host, scope, mount.router, inner, builder.problems);
    flatten(mount.router, inner, routers, innerScope, builder, out);
  }
}
