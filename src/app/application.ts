/**
 * RestApplication: the registry of dependencies, renderers, error handlers and lifecycle
 * handlers, and the entry point that executes a Request into a Response.
 */

import type { HttpError } from '../errors.js';
import type { Request } from '../request.js';
import type { Response } from '../response.js';
import { APPLICATION_OPTIONS } from './application-options.js';
import { writeAccessLine } from './features/access-log.js';
import { type AuthorizationOptions, checkChallenge } from './features/authorization.js';
import {
  type DefaultHeadersInit,
  type DefaultHeadersSource,
  fixedDefaultHeaders,
} from './features/default-headers.js';
import { rendererMediaType } from './features/renderers.js';
import { assignRequestId } from './features/request-id.js';
import { validatorBinding } from './inject/bindings.js';
import { describeInjectable, type Injectable } from './inject/handler-parameters.js';
import type { StandardSchemaV1, ValidationSource } from './inject/validation.js';
import { Lifecycle, shuttingDown } from './lifecycle.js';
import type { LifecycleHandler } from './lifecycle-types.js';
import { createConsoleLogger, type Logger } from './logger.js';
import { adaptLogger } from './logger-adapters.js';
import {
  authorizationRequiredOption,
  autoEtagOption,
  bodyLimitOption,
  booleanOption,
  jsonOnlyOption,
  knownOptions,
  requestTimeoutOption,
} from './options.js';
import { builtinErrorResponse, failedApplicationResponse } from './pipeline/error-response.js';
import { finalizeResponse } from './pipeline/finalize.js';
import { refuseRequest, runPipeline } from './pipeline/pipeline.js';
import {
  DEPENDENCY_OPTIONS,
  type DependencyOptions,
  registeredScope,
  VALIDATES_OPTIONS,
  type ValidatesOptions,
} from './routing/registration.js';
import type {
  NotForHooks,
  RoutesCarriedBy,
  StartupResult,
  ValidatedBy,
} from './routing/route-types.js';
import { Router } from './routing/router.js';
import { compileTable, type RoutingTable } from './routing/routing-table.js';
import { logLateProblems, startupProblem } from './routing/table-problems.js';
import { testRequest } from './test-request.js';
import { isPending } from './thenable.js';
import type {
  ApplicationOptions,
  Provider,
  Registry,
  Renderer,
  TestRequestInit,
  TextInputCheck,
  Truthy,
  ValidatorFunction,
  ValidatorOutput,
  With,
} from './types.js';
import {
  DEFAULT_MULTIPART_LIMITS,
  type MultipartLimits,
  multipartLimits,
  withBodyLimit,
} from './uploads/limits.js';

// RestApplication's private dispatch, handed out by its static block.
let dispatchOwn: (
  app: RestApplication,
  request: Request,
  refusal: HttpError | undefined,
  hooksRan: boolean,
) => Response | Promise<Response>;

/**
 * Executes `request` on `app` like `app.execute()`, but hands back the response itself when a
 * RestApplication's pipeline finished synchronously. With `refusal`, the request is answered
 * with that error through the application's error path, unrouted: for a request an adapter
 * could not read. With `hooksRan`, the request was answered once already and its `onResponse`
 * hooks (the access log among them) saw that answer: the refusal replaces it (a body that
 * failed before anything was sent) without running them again. Adapters reach this through
 * `kernel.ts`.
 *
 * @internal
 */
export function dispatchRequest(
  app: { execute(request: Request): Promise<Response> },
  request: Request,
  refusal?: HttpError,
  hooksRan = false,
): Response | Promise<Response> {
  if (app instanceof RestApplication) return dispatchOwn(app, request, refusal, hooksRan);
  if (refusal === undefined) return app.execute(request);
  assignRequestId(request);
  return finalizeResponse(
    builtinErrorResponse(request, refusal.statusCode, refusal.message, refusal.details),
    request,
    request.method === 'HEAD',
  );
}

// The registration methods a RestApplication inherits from Router, typed to return the
// application itself, so a chain of registrations keeps every application method.
export interface RestApplication<Deps extends Registry = {}> {
  dependency<Name extends string, T>(
    name: Name,
    provider: Provider<Deps, T>,
    options?: DependencyOptions,
  ): RestApplication<With<Deps, Name, Awaited<T>>> & RoutesCarriedBy<this>;
  dependency(provider: Provider<Deps, unknown>, options?: DependencyOptions): this;
  authorized<Name extends string, T>(
    name: Name,
    check: Provider<Deps, T>,
    options?: AuthorizationOptions,
  ): RestApplication<With<Deps, Name, Truthy<Awaited<T>>> & NotForHooks<Name>> &
    RoutesCarriedBy<this>;
  forbidden<Name extends string>(
    name: Name,
    check: Provider<Deps, unknown>,
    options?: AuthorizationOptions,
  ): RestApplication<With<Deps, Name, false> & NotForHooks<Name>> & RoutesCarriedBy<this>;
}

/**
 * An HTTP application.
 *
 * @example
 * const app = new RestApplication()
 *   .dependency('store', () => new Map<string, string>(), { scope: 'session' });
 * app.get('/items/{id}', ({ store, id }) => store.get(id) ?? null);
 * const response = await app.request('/items/1');
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: see the interface above.
export class RestApplication<Deps extends Registry = {}> extends Router<Deps> {
  readonly bodyLimit: number;
  readonly debug: boolean;
  /** The `logger` option, speaking restmachine's order `(message, fields?)` whatever it is. */
  readonly logger: Logger;
  /** `renderers: 'json'`: JSON is the only built-in representation. */
  readonly jsonOnly: boolean;
  /** `etag: 'auto'`: weak ETags from the body of buffered GET answers. */
  readonly autoEtag: boolean;
  /** Session-scoped values, by binding. */
  readonly sessionCache = new Map<unknown, unknown>();
  readonly appRenderers = new Map<string, Injectable>();
  /** What `defaultHeaders()` registered, in order. */
  readonly defaultHeaderSources: DefaultHeadersSource[] = [];
  readonly wwwAuthenticate: string | undefined;
  /** `authorization: 'required'`: startup refuses routes no authorization hook guards. */
  readonly authorizationRequired: boolean;
  readonly accessLog: boolean;
  /** `requestTimeout`: ms before a pending answer becomes a 503 (docs/streams.md). */
  readonly requestTimeout: number | undefined;
  /** `validateResponses`: results checked against `returns()` (docs/openapi.md). */
  readonly validateResponses: boolean;
  /** `multipart`: the limits of uploads (docs/uploads.md). */
  readonly multipart: MultipartLimits;

  readonly #lifecycle: Lifecycle;
  // The failed startup attempt already logged: every request it fails shares one line.
  #loggedStartup: Promise<void> | undefined;
  #table: RoutingTable | undefined;
  readonly #loggedProblems = new Set<string>();

  constructor(options: ApplicationOptions = {}) {
    super();
    knownOptions('new RestApplication()', options, APPLICATION_OPTIONS);
    this.bodyLimit = bodyLimitOption(options.bodyLimit);
    this.debug = booleanOption('debug', options.debug);
    this.logger = adaptLogger(options.logger ?? createConsoleLogger());
    this.jsonOnly = jsonOnlyOption(options.renderers);
    this.autoEtag = autoEtagOption(options.etag);
    this.#lifecycle = new Lifecycle(this.logger);
    this.wwwAuthenticate = checkChallenge(options.wwwAuthenticate, 'wwwAuthenticate option');
    this.authorizationRequired = authorizationRequiredOption(options.authorization);
    this.accessLog = booleanOption('accessLog', options.accessLog);
    this.requestTimeout = requestTimeoutOption(options.requestTimeout);
    this.validateResponses = booleanOption('validateResponses', options.validateResponses);
    this.multipart = multipartLimits(
      options.multipart,
      'multipart',
      withBodyLimit(DEFAULT_MULTIPART_LIMITS, this.bodyLimit),
    );
  }

  get root(): Router<Registry> {
    return this as Router<Registry>;
  }

  /**
   * Registers a validated model under `name`: a function validator, or a Standard Schema
   * (zod, valibot, ...) applied to `source` (the JSON body by default). Invalid input is a
   * 422 listing the issues (the first 100, with `detailsOmitted` counting the rest).
   *
   * @example
   * app.validates('bookmark', z.object({ url: z.string().url() }));
   * app.post('/bookmarks', ({ bookmark }) => [store.add(bookmark), 201]);
   */
  validates<
    Name extends string,
    V extends StandardSchemaV1 | ValidatorFunction<Deps, unknown>,
    Source extends ValidationSource = 'jsonBody',
  >(
    name: Name,
    validator: V & TextInputCheck<V, Source>,
    options?: ValidatesOptions<Source>,
  ): RestApplication<With<Deps, Name, ValidatorOutput<V>> & ValidatedBy<Name, Source, V>> &
    RoutesCarriedBy<this> {
    // A misspelt `source` would leave a schema validating the JSON body instead.
    const scope = registeredScope(`validates "${name}"`, options, VALIDATES_OPTIONS);
    this.register(validatorBinding(name, validator, options?.source, scope));
    return this as never;
  }

  /**
   * Registers a provider of the resource a route acts on; when it returns `null` or
   * `undefined` the request ends with 404 before the handler runs.
   *
   * @example
   * app.resourceExists('bookmark', ({ store, pathParams }) => store.get(pathParams.id ?? ''));
   * app.get('/bookmarks/{id}', ({ bookmark }) => bookmark);
   */
  resourceExists<Name extends string, T>(
    name: Name,
    provider: Provider<Deps, T>,
    options?: DependencyOptions,
  ): RestApplication<With<Deps, Name, NonNullable<Awaited<T>>> & NotForHooks<Name>> &
    RoutesCarriedBy<this> {
    this.register({
      kind: 'exists',
      name,
      scope: registeredScope(`resourceExists "${name}"`, options, DEPENDENCY_OPTIONS),
      injectable: describeInjectable(provider, `resourceExists "${name}"`),
    });
    return this as never;
  }

  /**
   * Adds headers to every response the application sends, error responses included, where the
   * response does not already carry them: a fixed set, or a function of the injection object
   * (builtins and registered names) that returns them.
   *
   * @example
   * app.defaultHeaders({ 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' });
   * app.defaultHeaders(({ requestId }) => ({ 'X-Trace-Id': requestId }));
   */
  defaultHeaders(
    headers:
      | DefaultHeadersInit
      | Provider<Deps, DefaultHeadersInit | undefined | Promise<DefaultHeadersInit | undefined>>,
  ): this {
    if (typeof headers === 'function') {
      this.defaultHeaderSources.push({
        kind: 'function',
        injectable: describeInjectable(headers, 'Default headers function'),
      });
    } else {
      this.defaultHeaderSources.push({ kind: 'fixed', headers: fixedDefaultHeaders(headers) });
    }
    this.changed();
    return this;
  }

  /**
   * Registers a renderer for a media type, for every route.
   *
   * @example
   * app.provides('text/csv', ({ result }) => toCsv(result));
   */
  provides(mediaType: string, renderer: Renderer<Deps>): this {
    rendererMediaType(mediaType);
    this.appRenderers.set(mediaType, describeInjectable(renderer, `Renderer for ${mediaType}`));
    this.changed();
    return this;
  }

  /**
   * Registers a startup handler. Its result becomes a session dependency named after the
   * function, or after `name` when given.
   *
   * @example
   * const app = new RestApplication().onStartup('db', async () => connect());
   */
  onStartup<Name extends string, T>(
    name: Name,
    handler: LifecycleHandler<Deps, T>,
  ): RestApplication<With<Deps, Name, Awaited<T>> & StartupResult<Name>> & RoutesCarriedBy<this>;
  onStartup(handler: LifecycleHandler<Deps>): this;
  onStartup(
    nameOrHandler: string | LifecycleHandler<Deps>,
    maybeHandler?: LifecycleHandler<Deps>,
  ): unknown {
    const [name, handler] =
      typeof nameOrHandler === 'string'
        ? [nameOrHandler, maybeHandler as LifecycleHandler<Deps>]
        : [nameOrHandler.name || undefined, nameOrHandler];
    const injectable = describeInjectable(handler, `Startup handler ${name ?? '(anonymous)'}`);
    this.#lifecycle.onStartup({ name, injectable }, this.bindings);
    if (name !== undefined) this.register({ kind: 'startup', name });
    return this;
  }

  /**
   * Registers a shutdown handler; it may inject startup results and `log`. Once startup began,
   * one that injects any other name throws `UNKNOWN_DEPENDENCY` here.
   */
  onShutdown(handler: LifecycleHandler<Deps>): this {
    const name = handler.name || undefined;
    const injectable = describeInjectable(handler, `Shutdown handler ${name ?? '(anonymous)'}`);
    this.#lifecycle.onShutdown({ name, injectable }, this.bindings);
    return this;
  }

  /** The compiled routing table, rebuilt when anything was registered since. */
  routingTable(): RoutingTable {
    const generation = this.generation;
    if (this.#table?.generation !== generation) {
      this.#table = compileTable(this, generation);
      if (this.started) {
        logLateProblems(this.#table, this.#loggedProblems, this.logger, this.authorizationRequired);
      }
    }
    return this.#table;
  }

  #checkRoutes(): void {
    const problem = startupProblem(this.routingTable(), this.authorizationRequired);
    if (problem !== undefined) throw problem;
  }

  /** Runs the startup handlers once, then checks the routes; later calls share the promise. */
  startup(): Promise<void> {
    return this.#lifecycle.startup(() => this.#checkRoutes());
  }

  /**
   * Runs the startup handlers synchronously, for exit hooks and scripts; throws when a handler
   * returns a promise (use `await app.startup()` for those).
   */
  startupSync(): void {
    this.#lifecycle.startupSync(() => this.#checkRoutes());
  }

  /** Runs the shutdown handlers once (last registered first); later calls share the promise. */
  shutdown(): Promise<void> {
    return this.#lifecycle.shutdown();
  }

  /** Runs the shutdown handlers synchronously; throws when one returns a promise. */
  shutdownSync(): void {
    this.#lifecycle.shutdownSync();
  }

  /** Whether startup has completed. */
  get started(): boolean {
    return this.#lifecycle.started;
  }

  /**
   * Whether shutdown has begun (`shutdown()`, a server's `close()`, or a `serve()` that could
   * not start or listen): requests are then answered 503, and startup never runs again.
   */
  get stopping(): boolean {
    return this.#lifecycle.stopping;
  }

  /** Startup results, by the name they were registered under. */
  get startupValues(): ReadonlyMap<string, unknown> {
    return this.#lifecycle.startupValues;
  }

  /**
   * Executes a request and returns its response. Runs startup first if it has not run. Never
   * throws for anything a request can cause.
   */
  execute(request: Request): Promise<Response> {
    try {
      const response = this.#dispatch(request);
      return isPending(response) ? response : Promise.resolve(response);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  // What adapters call: the response itself when the pipeline finished synchronously, so a
  // server can write it in the same tick, without a promise.
  #dispatch(request: Request, refusal?: HttpError, hooksRan = false): Response | Promise<Response> {
    // Once shutdown began, what startup opened is being released: new requests are refused with
    // a 503, and startup never runs again for them.
    const stopping = this.#lifecycle.stopping;
    if (!this.#lifecycle.started && !stopping) return this.#executeAfterStartup(request, refusal);
    let table: RoutingTable;
    try {
      table = this.routingTable();
    } catch (error) {
      assignRequestId(request);
      this.logger.error('Routing table could not be built', {
        requestId: request.requestId,
        error,
      });
      return this.#failedApplication(request, performance.now());
    }
    if (stopping) refusal ??= shuttingDown();
    if (refusal !== undefined) return refuseRequest(this, table, request, refusal, hooksRan);
    return runPipeline(this, table, request);
  }

  async #executeAfterStartup(request: Request, refusal?: HttpError): Promise<Response> {
    // A failed startup is tried again by the next request, from the handler that failed.
    const started = performance.now();
    const attempt = this.startup();
    try {
      await attempt;
    } catch (error) {
      assignRequestId(request);
      if (this.#loggedStartup !== attempt) {
        this.#loggedStartup = attempt;
        this.logger.error('Application startup failed', { requestId: request.requestId, error });
      }
      return this.#failedApplication(request, started);
    }
    return this.#dispatch(request, refusal);
  }

  /**
   * The 500 of an application that cannot run (its startup failed, or its routes cannot be
   * compiled), with the access log's line: no hook runs, since what hooks inject may be what
   * failed, but the operator still sees the request.
   */
  #failedApplication(request: Request, started: number): Response {
    const response = failedApplicationResponse(request, this.jsonOnly);
    if (this.accessLog)
      writeAccessLine(this.logger, request, response, performance.now() - started);
    return response;
  }

  static {
    dispatchOwn = (app, request, refusal, hooksRan) => app.#dispatch(request, refusal, hooksRan);
  }

  /**
   * The testing shorthand: builds a Request from a path and fetch-like init and executes it.
   *
   * @example
   * const response = await app.request('/bookmarks', { method: 'POST', json: { url } });
   *
   * An init it cannot build a request from (a header value with a control character, a `json`
   * value JSON cannot encode) rejects the returned promise, as `fetch()` does; it never throws.
   */
  async request(path: string, init: TestRequestInit = {}): Promise<Response> {
    return this.execute(testRequest(path, init));
  }

  /** The error that made startup fail, if it did. */
  get startupError(): unknown {
    return this.#lifecycle.startupError;
  }
}
