/**
 * The compiled routing table: every mounted route flattened under its prefixes, its injected
 * names bound to getters, its renderers ordered. Built once per registration generation, so a
 * request does no registration-time thinking.
 */

import { HttpError, libraryAnswer, SetupError } from '../../errors.js';
import { accessLogHook } from '../features/access-log.js';
import type { AuthorizationHook } from '../features/authorization.js';
import { type CompiledHook, compileHooks, orNothing, type RouteHooks } from '../features/hooks.js';
import type { CompiledRenderer } from '../features/renderers.js';
import { compileResultCheck, type ResultCheck } from '../features/response-validation.js';
import {
  compileDefaultHeaders,
  compileRouteFeatures,
  type FeaturesSource,
  type RouteFeatures,
} from '../features/route-features.js';
import type { Binding } from '../inject/bindings.js';
import {
  type Getter,
  type GetterCompiler,
  type InjectionHost,
  NO_PATH_PARAMS,
  type PathParamPositions,
} from '../inject/getters.js';
import type { Injectable } from '../inject/handler-parameters.js';
import type { Registry } from '../types.js';
import type { MultipartLimits } from '../uploads/limits.js';
import { RouteMatcher } from './path-matcher.js';
import { keptDuplicate } from './registration-site.js';
import type { Route } from './route.js';
import { compileRouteBodies } from './route-bodies.js';
import { orderRenderers, textFirst } from './route-renderers.js';
import type { Router } from './router.js';
import {
  applicationScope,
  type CompiledErrorHandler,
  compileRouteHooks,
  type ErrorHandlers,
  type FlatRoute,
  flatten,
  isPublic,
} from './scope.js';
import { templateParams, validateTemplate } from './template.js';
import { checkUses } from './uses.js';

export type { CompiledErrorHandler } from './scope.js';

/** A route ready to run. */
export interface CompiledRoute {
  route: Route<Registry>;
  /** The full template, prefixes included (`/api/v1/users/{id}`). */
  template: string;
  /** The routers the route sits in, outermost first (for router-level settings). */
  routers: ReadonlyArray<Router<Registry>>;
  paramNames: readonly string[];
  names: readonly string[];
  getters: readonly Getter[];
  /** Getters of the `resourceExists` providers the handler reaches, run before it (§5.7 step 4). */
  existsGetters: readonly Getter[];
  renderers: readonly CompiledRenderer[];
  /** The same renderers with `text/plain` first, for string results. */
  stringRenderers: readonly CompiledRenderer[];
  /** Set when the route cannot run (an unknown name, a cycle): requests to it answer 500. */
  problem: SetupError | undefined;
  /**
   * Authorization hooks, conditional providers, CORS, CSP and default headers of the route;
   * `undefined` when it uses none, so the pipeline skips them all with one comparison.
   */
  features: RouteFeatures | undefined;
  /** The error handlers of the route's scope (its routers' over the application's). */
  errorHandlers: ErrorHandlers;
  /** `onRequest` / `onResponse` hooks of its routers and its own; `undefined` for none. */
  hooks: RouteHooks | undefined;
  /** The media types the route reads, for the `Accept` of its 415 answers. */
  accept: string;
  /** `validateResponses`: checks the handler's result against `returns()`; usually none. */
  resultCheck: ResultCheck | undefined;
  /** The multipart limits of a route that takes uploads (docs/uploads.md). */
  uploads: MultipartLimits | undefined;
  /** Whether the handler reaches `jsonBody` (itself or through a validator of it). */
  readsJson: boolean;
}

/** A compiled route with what its scope registered: what `restmachine/openapi` reads. */
export interface ScopedRoute {
  compiled: CompiledRoute;
  /** The names the route sees: the application's and its routers'. */
  bindings: ReadonlyMap<string, Binding>;
  /** The authorization hooks in scope (none for a public route); the route runs some of them. */
  authorizationHooks: readonly AuthorizationHook[];
}

export interface RoutingTable {
  generation: number;
  matcher: RouteMatcher<CompiledRoute>;
  /** The application's renderers, for error handler results. */
  renderers: readonly CompiledRenderer[];
  stringRenderers: readonly CompiledRenderer[];
  errorHandlers: ReadonlyMap<number | 'default', CompiledErrorHandler>;
  problems: readonly SetupError[];
  /** The application's `onRequest` hooks, run for every request before routing answers. */
  onRequest: readonly CompiledHook[] | undefined;
  /** The application's `onResponse` hooks (the access log last), for every request. */
  onResponse: readonly CompiledHook[] | undefined;
  /** Routes no authorization hook guards and not marked `.public()` (`METHOD /template`). */
  unguarded: readonly string[];
  /** Every route with its scope, in registration order, for the OpenAPI document. */
  scoped: readonly ScopedRoute[];
  /** The application's CORS, CSP and default headers, for responses no route produced. */
  features: RouteFeatures | undefined;
  /** Only the default headers, for CORS preflight answers. */
  defaultsOnly: RouteFeatures | undefined;
}

/** What the table compiler reads from the application. */
export interface TableSource extends InjectionHost, FeaturesSource {
  readonly root: Router<Registry>;
  readonly appRenderers: ReadonlyMap<string, Injectable>;
  readonly accessLog: boolean;
  /** `renderers: 'json'`: HTML and text only where a route or the application provides them. */
  readonly jsonOnly: boolean;
  /** `validateResponses`: handler results are checked against `returns()` (development). */
  readonly validateResponses?: boolean;
  readonly debug?: boolean;
  /** `authorization: 'required'`: a route no check guards (and not public) answers 500. */
  readonly authorizationRequired?: boolean;
}

/** The problem of a route that no authorization hook guards under `authorization: 'required'`. */
export function unguardedProblem(label: string): SetupError {
  const message = `${label}: authorization: 'required', but no authorization hook guards it`;
  return new SetupError('UNGUARDED_ROUTE', message);
}

/**
 * A key of the authorization hooks `route` runs (their kinds and names), `undefined` when it
 * runs none: equal keys, equal guards.
 */
function guardOf(route: CompiledRoute, hooks: readonly AuthorizationHook[]): string | undefined {
  if (route.features?.authorization === undefined) return undefined;
  return hooks.map((hook) => `${hook.kind} ${hook.name} ${hook.global === true}`).join(',');
}

const NONE: ReadonlySet<string> = new Set();

export function compileTable(source: TableSource, generation: number): RoutingTable {
  const matcher = new RouteMatcher<CompiledRoute>();
  const problems: SetupError[] = [];
  const appScope = applicationScope(source, source.root, problems);
  const compiler = appScope.compiler;
  const flat: FlatRoute[] = [];
  flatten(source.root, '', [], appScope, { host: source, problems }, flat);
  const appHooks = compileApplicationHooks(compiler, source, problems);
  const unguarded: string[] = [];
  const scoped: ScopedRoute[] = [];
  // Each compiled route's authorization, as a key two copies of a route can be compared by.
  const guards = new Map<CompiledRoute, string | undefined>();
  let defaults: ReturnType<typeof compileDefaultHeaders>;
  try {
    defaults = compileDefaultHeaders(compiler, source.defaultHeaderSources);
  } catch (error) {
    problems.push(error as SetupError);
  }
  for (const { template, route, routers, scope } of flat) {
    const compiler = scope.compiler;
    const label = `Route ${route.method} ${template}`;
    const paramNames = templateParams(template);
    const params: PathParamPositions = new Map(paramNames.map((name, at) => [name, at]));
    // A mount prefix and the route were each checked alone; joined, a parameter may appear
    // twice, or a prefix's catch-all stand before the route's segments. Such a route is left
    // out of the table: nothing could route to it as written.
    if (template !== route.path) {
      try {
        validateTemplate(template);
      } catch (error) {
        problems.push(error as SetupError);
        continue;
      }
    }
    let compiled: CompiledRoute;
    try {
      // The parameter stands in for the name in every function of the route (its error
      // handlers, default headers and hooks too, docs/application.md "Dependency injection by
      // name"), whether the handler asks for it or not: both together are refused.
      for (const name of paramNames) {
        if (compiler.bindings.has(name)) {
          throw new SetupError(
            'NAME_CLASH',
            `${label}: path parameter "${name}" clashes with a registered dependency`,
          );
        }
      }
      const bodies = compileRouteBodies(compiler, route, routers, label, params);
      const getters = compiler.compile(route.handler.names, label, {
        params,
        extras: NONE,
        parsers: bodies.parsers,
        multipart: bodies.ownUploads,
      });
      const reached = compiler.reach(route.handler.names);
      checkUses(route.settings, reached, compiler.bindings, label);
      const existsGetters: Getter[] = [];
      for (const name of reached) {
        if (compiler.bindings.get(name)?.kind === 'exists') {
          existsGetters.push(...compiler.compile([name], label, { params, extras: NONE }));
        }
      }
      const renderers = orderRenderers(compiler, source, route, label, params);
      const exempt = isPublic(scope, route);
      const features = compileRouteFeatures(
        compiler,
        {
          authorizationHooks: exempt ? [] : scope.authorizationHooks,
          defaultHeaderSources: source.defaultHeaderSources,
          rendererAndParserNames: [
            ...renderers.flatMap((renderer) => renderer.names),
            ...(bodies.parsers ?? []).flatMap((parser) => parser.injectable.names),
          ],
        },
        routers,
        route,
        label,
        params,
        defaults,
        renderers.length > 1,
      );
      compiled = {
        route,
        template,
        routers,
        paramNames,
        names: route.handler.names,
        getters,
        existsGetters,
        renderers,
        stringRenderers: textFirst(renderers),
        problem: undefined,
        features,
        errorHandlers: scope.errorHandlers,
        hooks: compileRouteHooks(scope, route, label, params, appHooks.onResponse),
        accept: bodies.accept,
        resultCheck: source.validateResponses
          ? compileResultCheck(route.settings, label, {
              logger: source.logger,
              debug: source.debug === true,
            })
          : undefined,
        uploads: bodies.uploads,
        readsJson: bodies.readsJson,
      };
      // A clash found after startup fails closed rather than run the outer name's provider.
      if (scope.problem !== undefined) compiled.problem = scope.problem;
      else if (!exempt && features?.authorization === undefined) {
        unguarded.push(`${route.method} ${template}`);
        // Fails closed, for a route added after startup checked the others too.
        if (source.authorizationRequired === true) compiled.problem = unguardedProblem(label);
      }
    } catch (error) {
      const problem =
        error instanceof SetupError
          ? error
          : new SetupError('INVALID_HANDLER', `${label}: ${(error as Error).message}`, {
              cause: error,
            });
      problems.push(problem);
      compiled = {
        route,
        template,
        routers,
        paramNames,
        names: [],
        getters: [],
        existsGetters: [],
        renderers: [],
        stringRenderers: [],
        problem,
        features: undefined,
        errorHandlers: scope.errorHandlers,
        hooks:
          appHooks.onResponse === undefined
            ? undefined
            : { onRequest: undefined, onResponse: appHooks.onResponse },
        accept: '*/*',
        resultCheck: undefined,
        uploads: undefined,
        readsJson: false,
      };
    }
    const authorizationHooks = isPublic(scope, route) ? [] : scope.authorizationHooks;
    scoped.push({ compiled, bindings: compiler.bindings, authorizationHooks });
    guards.set(compiled, guardOf(compiled, authorizationHooks));
    const previous = matcher.add(template, route.method, compiled);
    if (previous !== undefined) {
      const kept = keptDuplicate(
        route.method,
        previous,
        compiled,
        (copy) => guards.get(copy),
        problems,
      );
      matcher.add(template, route.method, kept);
    }
  }
  let renderers: CompiledRenderer[] = [];
  try {
    renderers = orderRenderers(compiler, source, undefined, 'application', NO_PATH_PARAMS);
  } catch (error) {
    problems.push(error as SetupError);
  }
  const features = compileRouteFeatures(
    compiler,
    source,
    [source.root],
    undefined,
    'application',
    NO_PATH_PARAMS,
    defaults,
    false,
  );
  const defaultsOnly =
    defaults === undefined
      ? undefined
      : {
          authorization: undefined,
          vary: undefined,
          conditional: undefined,
          cors: undefined,
          csp: undefined,
          defaults,
        };
  return {
    generation,
    matcher,
    renderers,
    stringRenderers: textFirst(renderers),
    errorHandlers: appScope.errorHandlers,
    problems,
    features,
    defaultsOnly,
    onRequest: appHooks.onRequest,
    onResponse: appHooks.onResponse,
    unguarded,
    scoped,
  };
}

/** The application's own hooks, and the access log as the outermost `onResponse` hook. */
function compileApplicationHooks(
  compiler: GetterCompiler,
  source: TableSource,
  problems: SetupError[],
): RouteHooks {
  const root = source.root;
  let broken: SetupError | undefined;
  const compile = (hooks: readonly Injectable[], kind: 'onRequest' | 'onResponse') => {
    try {
      return compileHooks(compiler, hooks, 'Application', NO_PATH_PARAMS, kind);
    } catch (error) {
      problems.push(error as SetupError);
      broken ??= error as SetupError;
      return [];
    }
  };
  const onResponse = compile(root.onResponseHooks, 'onResponse');
  if (source.accessLog) onResponse.push(accessLogHook(source.logger));
  const onRequest = compile(root.onRequestHooks, 'onRequest');
  // Hooks that cannot run fail closed, as a route's do (startup refuses them; one registered
  // after startup is logged): every request answers 500 rather than going on without them.
  if (broken !== undefined) onRequest.unshift(failingHook(broken));
  return { onRequest: orNothing(onRequest), onResponse: orNothing(onResponse) };
}

/**
 * The 500 a request gets from a route or hook that fails closed: the problem is its cause, and
 * it is not logged again (it was when it was registered, once).
 */
export function failedClosed(problem: SetupError): HttpError {
  const error = libraryAnswer(new HttpError(500));
  error.cause = problem;
  return error;
}

/** A hook that fails every request it sees with `error`. */
function failingHook(error: SetupError): CompiledHook {
  return {
    fn: () => {
      throw failedClosed(error);
    },
    names: [],
    getters: [],
  };
}
