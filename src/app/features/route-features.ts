/**
 * The HTTP features a route opts into (authorization hooks, conditional providers, CORS, CSP,
 * default headers, compression), compiled once per routing table. A route that uses none of them compiles to
 * `undefined` and the pipeline skips every step below with one comparison.
 */
import { ALLOW_ORDER, HTTPMethod, parseMethod } from '../../http/methods.js';
import { VaryMembers } from '../../http/vary.js';
import type { Request } from '../../request.js';
import type { Response } from '../../response.js';
import type { CompiledCompression } from '../compression/options.js';
import {
  type Getter,
  type GetterCompiler,
  NO_PATH_PARAMS,
  type PathParamPositions,
} from '../inject/getters.js';
import type { Injectable } from '../inject/handler-parameters.js';
import { newRequestState, type RequestState } from '../inject/request-state.js';
import type { AuthorizationHook } from './authorization.js';
import { hooksFor } from './authorization.js';
import { addProvidedValidators, type CompiledConditional } from './conditional.js';
import {
  addCorsHeaders,
  type CompiledCors,
  type CorsOptions,
  compileCors,
  preflightResponse,
  variesByOrigin,
} from './cors.js';
import { addCspHeader, type CompiledCsp } from './csp.js';
import {
  applyDefaultHeaders,
  type CompiledDefaultHeaderEntry,
  type CompiledDefaultHeaders,
  type DefaultHeadersSource,
} from './default-headers.js';

/** Everything beyond routing and rendering that one route does. */
export interface RouteFeatures {
  /** Step 2: the getters of the authorization hooks the route runs, 401 hooks first. */
  authorization: readonly Getter[] | undefined;
  /**
   * Request headers the answer depends on, for `Vary`: authorization's, `Accept` for a route
   * that answers a type itself, then CORS's `Origin`.
   */
  vary: VaryMembers | undefined;
  /** Step 5: the route's ETag / Last-Modified providers. */
  conditional: CompiledConditional | undefined;
  cors: CompiledCors | undefined;
  csp: CompiledCsp | undefined;
  defaults: CompiledDefaultHeaders | undefined;
  /** `compress()`: the innermost setting of the route and its routers, applied last. */
  compress?: CompiledCompression | undefined;
}

/** What the table compiler reads from the application for these features. */
export interface FeaturesSource {
  readonly authorizationHooks: readonly AuthorizationHook[];
  readonly defaultHeaderSources: readonly DefaultHeadersSource[];
  /**
   * The names the route's renderers and body parsers inject: checks they reach guard the route
   * too.
   */
  readonly rendererAndParserNames?: readonly string[];
}

/** Where the features keep their settings on routes and routers (`settings[key]`). */
export const SETTING = {
  etag: 'etag',
  lastModified: 'lastModified',
  cors: 'cors',
  csp: 'csp',
  compress: 'compress',
} as const;

const NONE: ReadonlySet<string> = new Set();

/** Compiles the application's default headers once per table; `undefined` when there are none. */
export function compileDefaultHeaders(
  compiler: GetterCompiler,
  sources: readonly DefaultHeadersSource[],
): CompiledDefaultHeaders | undefined {
  if (sources.length === 0) return undefined;
  const entries: CompiledDefaultHeaderEntry[] = sources.map((source, index) => {
    if (source.kind === 'fixed') return { fixed: source.headers };
    const { fn, names } = source.injectable;
    return {
      fn,
      names,
      getters: compiler.compile(names, `Default headers function #${index + 1}`, {
        params: NO_PATH_PARAMS,
        extras: NONE,
      }),
    };
  });
  return { entries };
}

/** What the features read from a router or a route: the settings registered on it. */
export interface FeatureLevel {
  readonly settings: Readonly<Record<string, unknown>>;
}

/** A route, as the features see it: its settings, the names its handler injects, its renderers. */
export interface FeatureRoute extends FeatureLevel {
  readonly handler: { readonly names: readonly string[] };
  /** By media type; `undefined` for a type the handler answers with itself. */
  readonly renderers: ReadonlyMap<string, unknown>;
}

function levelSetting<T>(
  routers: readonly FeatureLevel[],
  route: FeatureRoute | undefined,
  key: string,
) {
  const levels: Array<T | undefined> = routers.map(
    (router) => router.settings[key] as T | undefined,
  );
  if (route !== undefined) levels.push(route.settings[key] as T | undefined);
  return levels;
}

/**
 * The innermost CSP (or compression) setting wins whole (a policy is not merged directive by
 * directive).
 */
function innermost<T extends object>(levels: ReadonlyArray<T | false | undefined>) {
  let chosen: T | false | undefined;
  for (const level of levels) if (level !== undefined) chosen = level;
  return chosen === false ? undefined : chosen;
}

function compileProvider(
  compiler: GetterCompiler,
  injectable: Injectable | undefined,
  label: string,
  params: PathParamPositions,
) {
  if (injectable === undefined) return undefined;
  return {
    fn: injectable.fn,
    names: injectable.names,
    getters: compiler.compile(injectable.names, label, { params, extras: NONE }),
  };
}

/**
 * Compiles the features of one route (or, without a route, of the application for requests no
 * route matched). Throws a SetupError naming the route when a provider injects an unknown name.
 */
export function compileRouteFeatures(
  compiler: GetterCompiler,
  source: FeaturesSource,
  routers: readonly FeatureLevel[],
  route: FeatureRoute | undefined,
  label: string,
  params: PathParamPositions,
  defaults: CompiledDefaultHeaders | undefined,
  varyAccept: boolean,
): RouteFeatures | undefined {
  let conditional: CompiledConditional | undefined;
  let authorization: Getter[] | undefined;
  let vary: string[] = [];
  if (route !== undefined) {
    const etag = compileProvider(
      compiler,
      route.settings[SETTING.etag] as Injectable | undefined,
      `${label} etag()`,
      params,
    );
    const lastModified = compileProvider(
      compiler,
      route.settings[SETTING.lastModified] as Injectable | undefined,
      `${label} lastModified()`,
      params,
    );
    if (etag !== undefined || lastModified !== undefined) {
      conditional = { etag, lastModified, varyAccept };
    }
    if (source.authorizationHooks.length > 0) {
      // A renderer runs after the handler, a body parser and the default headers around it: a
      // check only they reach must still come first.
      const roots = [
        ...route.handler.names,
        ...(etag?.names ?? []),
        ...(lastModified?.names ?? []),
        ...(source.rendererAndParserNames ?? []),
      ];
      for (const defaults of source.defaultHeaderSources) {
        if (defaults.kind === 'function') roots.push(...defaults.injectable.names);
      }
      for (const hook of source.authorizationHooks) if (hook.global) roots.push(hook.name);
      const hooks = hooksFor(source.authorizationHooks, compiler.reach(roots));
      if (hooks.length > 0) {
        authorization = hooks.flatMap((hook) =>
          compiler.compile([hook.name], label, { params, extras: NONE }),
        );
        vary = hooks.flatMap((hook) => (hook.vary === undefined ? [] : [hook.vary]));
      }
    }
  }
  // A route that answers a type itself (`provides(type)` without a renderer) sends the handler's
  // file, bytes or Response, which no renderer marks; Accept still chose between it and the
  // others (RFC 9110 §12.5.5), so every answer says so.
  if (varyAccept && route !== undefined && [...route.renderers.values()].includes(undefined)) {
    vary.push('Accept');
  }
  const cors = compileCors(levelSetting<CorsOptions | false>(routers, route, SETTING.cors));
  if (cors !== undefined && variesByOrigin(cors)) vary.push('Origin');
  const csp = innermost(levelSetting<CompiledCsp | false>(routers, route, SETTING.csp));
  const compress = innermost(
    levelSetting<CompiledCompression | false>(routers, route, SETTING.compress),
  );
  if (
    authorization === undefined &&
    vary.length === 0 &&
    conditional === undefined &&
    cors === undefined &&
    csp === undefined &&
    defaults === undefined &&
    compress === undefined
  ) {
    return undefined;
  }
  return {
    authorization,
    vary: vary.length === 0 ? undefined : new VaryMembers(vary),
    conditional,
    cors,
    csp,
    defaults,
    compress,
  };
}

/**
 * Adds the headers the route's features imply to any response it sends, errors included:
 * provided validators (GET/HEAD), `Vary` for authorization, CORS, CSP, then default headers
 * (last, so they fill only what nothing else set).
 */
export function decorateResponse(
  features: RouteFeatures,
  response: Response,
  request: Request,
  state: RequestState | undefined,
  asError = false,
): void | Promise<void> {
  // An error answer is no representation of the resource, whatever its status.
  const conditional = features.conditional;
  if (conditional !== undefined && !asError) addProvidedValidators(conditional, response, state);
  // One merge for every name instead of one scan each: with CORS and authorization, 3,038
  // instructions per response before (bench/RESULTS.md).
  if (features.vary !== undefined) features.vary.addTo(response.headers);
  if (features.cors !== undefined) addCorsHeaders(features.cors, request, response);
  let requestState = state;
  if (features.csp !== undefined) {
    // Where no route ran (404, 405, the automatic OPTIONS) there is no request state yet: the
    // policy and the default headers share one, so both carry the request's one nonce
    // (docs/http-semantics.md, Content-Security-Policy).
    if (requestState === undefined && features.defaults !== undefined) {
      requestState = newRequestState(request);
    }
    addCspHeader(features.csp, response, request, requestState);
  }
  if (features.defaults !== undefined) {
    return applyDefaultHeaders(
      features.defaults,
      response,
      requestState ?? newRequestState(request),
    );
  }
}

/** What the preflight glue needs from a routing-table entry. */
interface FeaturesCarrier {
  value: { features: RouteFeatures | undefined };
}

/**
 * The features for a response about a path rather than one of its routes (405, OPTIONS without
 * a handler): those of the first of its routes with CORS, so a browser can read the answer;
 * when none has CORS (each opted out with `.cors(false)`), the first route's, never the
 * application's CORS; `fallback` (the application's) only for a path without routes.
 */
export function pathFeatures(
  byMethod: ReadonlyMap<string, FeaturesCarrier>,
  fallback: RouteFeatures | undefined,
): RouteFeatures | undefined {
  for (const entry of byMethod.values()) {
    const features = entry.value.features;
    if (features?.cors !== undefined) return features;
  }
  const first = byMethod.values().next();
  return first.done === true ? fallback : first.value.value.features;
}

/**
 * Answers a CORS preflight for a path whose routes use CORS; `undefined` when the request is not
 * a preflight or no route of the path has CORS (then OPTIONS is handled as usual).
 */
export function answerPreflight(
  byMethod: ReadonlyMap<string, FeaturesCarrier>,
  request: Request,
): Response | undefined {
  let anyCors = false;
  for (const entry of byMethod.values()) {
    if (entry.value.features?.cors !== undefined) {
      anyCors = true;
      break;
    }
  }
  if (!anyCors) return undefined;
  const pathMethods = new Set<string>();
  for (const method of ALLOW_ORDER) {
    if (byMethod.has(method) || (method === HTTPMethod.HEAD && byMethod.has(HTTPMethod.GET))) {
      pathMethods.add(method);
    }
  }
  const entry = preflightEntry(byMethod, request);
  // Each method's own CORS (HEAD's is its GET route's), for what the preflight may list.
  const corsOf = (method: string) =>
    (
      byMethod.get(method) ??
      (method === HTTPMethod.HEAD ? byMethod.get(HTTPMethod.GET) : undefined)
    )?.value.features?.cors;
  return preflightResponse(entry?.value.features?.cors, request, pathMethods, corsOf);
}

/** The route of a path that a CORS preflight asks about (`Access-Control-Request-Method`). */
export function preflightEntry<Entry>(
  byMethod: ReadonlyMap<string, Entry>,
  request: Request,
): Entry | undefined {
  const sent = (request.headers.get('access-control-request-method') ?? '').trim();
  const asked = parseMethod(sent) ?? sent;
  return (
    byMethod.get(asked) ?? (asked === HTTPMethod.HEAD ? byMethod.get(HTTPMethod.GET) : undefined)
  );
}
