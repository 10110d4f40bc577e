/**
 * The compiled routing table: every mounted route flattened under its prefixes, its injected
 * names bound to getters, its renderers ordered. Built once per registration generation, so a
 * request does no registration-time thinking.
 */

import { SetupError } from '../../errors.js';
import type { MediaType } from '../../http/media-type.js';
import {
  compileDefaultHeaders,
  compileRouteFeatures,
  type FeaturesSource,
  type RouteFeatures,
} from '../features/route-features.js';
import { type Getter, GetterCompiler, type InjectionHost } from '../inject/getters.js';
import type { Injectable } from '../inject/handler-parameters.js';
import {
  BUILTIN_RENDERERS,
  type CompiledRenderer,
  rendererMediaType,
} from '../pipeline/renderers.js';
import type { Registry } from '../types.js';
import { RouteMatcher } from './path-matcher.js';
import type { Route } from './route.js';
import type { Router } from './router.js';

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
  /** The same renderers with `text/plain` first, for string results (SPEC §17.17). */
  stringRenderers: readonly CompiledRenderer[];
  /** Set when the route cannot run (an unknown name, a cycle): requests to it answer 500. */
  problem: SetupError | undefined;
  /**
   * Authorization hooks, conditional providers, CORS, CSP and default headers of the route;
   * `undefined` when it uses none, so the pipeline skips them all with one comparison.
   */
  features: RouteFeatures | undefined;
}

/** A compiled error handler. */
export interface CompiledErrorHandler {
  fn: Function;
  names: readonly string[];
  getters: readonly Getter[];
}

export interface RoutingTable {
  generation: number;
  matcher: RouteMatcher<CompiledRoute>;
  /** The application's renderers, for error handler results. */
  renderers: readonly CompiledRenderer[];
  stringRenderers: readonly CompiledRenderer[];
  errorHandlers: ReadonlyMap<number | 'default', CompiledErrorHandler>;
  problems: readonly SetupError[];
  /** The application's CORS, CSP and default headers, for responses no route produced. */
  features: RouteFeatures | undefined;
  /** Only the default headers, for CORS preflight answers. */
  defaultsOnly: RouteFeatures | undefined;
}

/** What the table compiler reads from the application. */
export interface TableSource extends InjectionHost, FeaturesSource {
  readonly root: Router<Registry>;
  readonly appRenderers: ReadonlyMap<string, Injectable>;
  readonly errorHandlerSources: ReadonlyMap<number | 'default', Injectable>;
}

interface FlatRoute {
  template: string;
  route: Route<Registry>;
  routers: Router<Registry>[];
}

function joinPath(prefix: string, path: string): string {
  if (prefix === '') return path;
  return path === '/' ? prefix : `${prefix}${path}`;
}

function flatten(
  router: Router<Registry>,
  prefix: string,
  chain: Router<Registry>[],
  out: FlatRoute[],
): void {
  if (chain.includes(router)) {
    throw new SetupError('INVALID_ROUTE', 'Routers are mounted in a loop');
  }
  const routers = [...chain, router];
  for (const route of router.routes) {
    out.push({ template: joinPath(prefix, route.path), route: route as Route<Registry>, routers });
  }
  for (const mount of router.mounts) flatten(mount.router, prefix + mount.prefix, routers, out);
}

const RESULT = new Set(['result']);
const ERROR = new Set(['error']);
const NONE: ReadonlySet<string> = new Set();

function compileRenderer(
  compiler: GetterCompiler,
  mediaType: string,
  injectable: Injectable | undefined,
  builtin: ((result: unknown) => string) | undefined,
  contentType: string,
  label: string,
  params: ReadonlySet<string>,
): CompiledRenderer {
  const media: MediaType = rendererMediaType(mediaType);
  return {
    ...media,
    contentType,
    builtin,
    fn: injectable?.fn,
    names: injectable?.names ?? [],
    getters: injectable
      ? compiler.compile(injectable.names, label, { params, extras: RESULT })
      : [],
  };
}

/** Orders renderers: JSON first, then the route's own, then the application's (SPEC §17.9). */
function orderRenderers(
  compiler: GetterCompiler,
  source: TableSource,
  route: Route<Registry> | undefined,
  label: string,
  params: ReadonlySet<string>,
): CompiledRenderer[] {
  const entries = new Map<string, CompiledRenderer>();
  const essence = (type: string) => {
    const media = rendererMediaType(type);
    return `${media.type}/${media.subtype}`;
  };
  const jsonOverride =
    route?.renderers.get('application/json') ?? source.appRenderers.get('application/json');
  const json = BUILTIN_RENDERERS[0] as (typeof BUILTIN_RENDERERS)[number];
  entries.set(
    'application/json',
    compileRenderer(
      compiler,
      'application/json',
      jsonOverride,
      jsonOverride ? undefined : json.render,
      json.contentType,
      `Renderer for application/json (${label})`,
      params,
    ),
  );
  const add = (type: string, injectable: Injectable) => {
    const key = essence(type);
    if (entries.has(key)) return;
    entries.set(
      key,
      compileRenderer(
        compiler,
        type,
        injectable,
        undefined,
        type,
        `Renderer for ${type} (${label})`,
        params,
      ),
    );
  };
  if (route !== undefined) for (const [type, injectable] of route.renderers) add(type, injectable);
  for (const builtin of BUILTIN_RENDERERS.slice(1)) {
    const override = source.appRenderers.get(builtin.mediaType);
    if (override !== undefined) add(builtin.mediaType, override);
    else if (!entries.has(builtin.mediaType)) {
      entries.set(
        builtin.mediaType,
        compileRenderer(
          compiler,
          builtin.mediaType,
          undefined,
          builtin.render,
          builtin.contentType,
          label,
          params,
        ),
      );
    }
  }
  for (const [type, injectable] of source.appRenderers) add(type, injectable);
  return [...entries.values()];
}

function textFirst(renderers: readonly CompiledRenderer[]): CompiledRenderer[] {
  const text = renderers.find((r) => r.type === 'text' && r.subtype === 'plain');
  return text === undefined ? renderers.slice() : [text, ...renderers.filter((r) => r !== text)];
}

export function compileTable(source: TableSource, generation: number): RoutingTable {
  const compiler = new GetterCompiler(source);
  const matcher = new RouteMatcher<CompiledRoute>();
  const problems: SetupError[] = [];
  const flat: FlatRoute[] = [];
  flatten(source.root, '', [], flat);
  let defaults: ReturnType<typeof compileDefaultHeaders>;
  try {
    defaults = compileDefaultHeaders(compiler, source.defaultHeaderSources);
  } catch (error) {
    problems.push(error as SetupError);
  }
  for (const { template, route, routers } of flat) {
    const label = `Route ${route.method} ${template}`;
    const paramNames = template
      .split('/')
      .filter((segment) => segment.startsWith('{'))
      .map((segment) => segment.slice(1, segment.endsWith('*}') ? -2 : -1));
    const params = new Set(paramNames);
    let compiled: CompiledRoute;
    try {
      for (const name of paramNames) {
        if (source.bindings.has(name) && route.handler.names.includes(name)) {
          throw new SetupError(
            'NAME_CLASH',
            `${label}: path parameter "${name}" clashes with a registered dependency`,
          );
        }
      }
      const getters = compiler.compile(route.handler.names, label, { params, extras: NONE });
      const reached = compiler.reach(route.handler.names);
      const existsGetters: Getter[] = [];
      for (const name of reached) {
        if (source.bindings.get(name)?.kind === 'exists') {
          existsGetters.push(...compiler.compile([name], label, { params, extras: NONE }));
        }
      }
      const renderers = orderRenderers(compiler, source, route, label, params);
      const features = compileRouteFeatures(
        compiler,
        source,
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
      };
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
      };
    }
    const previous = matcher.add(template, route.method, compiled);
    if (previous !== undefined) {
      problems.push(
        new SetupError(
          'DUPLICATE_ROUTE',
          `${route.method} ${template} is registered more than once`,
        ),
      );
      matcher.add(template, route.method, previous);
    }
  }
  const errorHandlers = new Map<number | 'default', CompiledErrorHandler>();
  for (const [status, injectable] of source.errorHandlerSources) {
    const label = `Error handler ${status === 'default' ? '(default)' : status}`;
    try {
      errorHandlers.set(status, {
        fn: injectable.fn,
        names: injectable.names,
        getters: compiler.compile(injectable.names, label, { params: NONE, extras: ERROR }),
      });
    } catch (error) {
      problems.push(error as SetupError);
    }
  }
  let renderers: CompiledRenderer[] = [];
  try {
    renderers = orderRenderers(compiler, source, undefined, 'application', NONE);
  } catch (error) {
    problems.push(error as SetupError);
  }
  const features = compileRouteFeatures(
    compiler,
    source,
    [source.root],
    undefined,
    'application',
    NONE,
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
    errorHandlers,
    problems,
    features,
    defaultsOnly,
  };
}
