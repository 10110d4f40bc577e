/**
 * A registered route, and the options that chain on it.
 */
import { SetupError } from '../../errors.js';
import type { HTTPMethod } from '../../http/methods.js';
import { type CompressOptions, compressSetting } from '../compression/options.js';
import { type CorsOptions, checkCorsOptions } from '../features/cors.js';
import { type CompiledCsp, type CspOptions, compileCsp } from '../features/csp.js';
import { describeHook } from '../features/hooks.js';
import { rendererMediaType } from '../features/renderers.js';
import { addParser } from '../inject/body-parsers.js';
import { describeInjectable, type Injectable } from '../inject/handler-parameters.js';
import type { StandardSchemaV1 } from '../inject/validation.js';
import { knownOptions } from '../options.js';
import type {
  HandlerContext,
  OnRequestHook,
  OnResponseHook,
  Registry,
  Renderer,
} from '../types.js';
import { type MultipartOptions, multipartLimits } from '../uploads/limits.js';
import { RegistrationSite } from './registration-site.js';
import {
  checkDescription,
  DOCS_SETTING,
  type DocumentedResponse,
  documentedResponse,
  type ReturnsOptions,
  type RouteDescription,
} from './route-docs.js';
import type {
  InputsOf,
  NewRoute,
  RouteEntry,
  RouteShape,
  ValidatorNames,
  WithInputs,
  WithReturn,
} from './route-types.js';

// The names of `describe()`'s and `returns()`'s options (their types are in ./route-docs.ts),
// checked against those types.
const DESCRIBE_OPTIONS = Object.keys({
  summary: true,
  description: true,
  tags: true,
  operationId: true,
  deprecated: true,
  hidden: true,
} satisfies Record<keyof RouteDescription, true>);
const RETURNS_OPTIONS = Object.keys({
  description: true,
  mediaType: true,
} satisfies Record<keyof ReturnsOptions, true>);
// The names of `csp()`'s options (CspOptions is in ../features/csp.ts), checked against its type.
const CSP_OPTIONS = Object.keys({
  directives: true,
  reportOnly: true,
} satisfies Record<keyof CspOptions, true>);

/**
 * What `csp()` stores on a route or router: the compiled policy, or `false` for none. A
 * misspelt `reportOnly` would otherwise enforce a policy meant to be tried out.
 */
export function cspSetting(options: CspOptions | false): CompiledCsp | false {
  if (options === false) return false;
  knownOptions('csp()', options, CSP_OPTIONS);
  return compileCsp(options);
}

/** A route-level provider: takes the handler's injection object, returns a value or a promise. */
export type RouteProvider<Deps extends Registry, Path extends string, T> = (
  context: HandlerContext<Deps, Path>,
) => T | Promise<T>;

/**
 * A route object: returned by every registration call, with route-level options. `Shape` is what
 * a typed client reads from it (route-types.ts): types only.
 */
export class Route<
  Deps extends Registry = Registry,
  Path extends string = string,
  Shape extends RouteShape = NewRoute<HTTPMethod, unknown>,
> {
  /** The route's template and shape, for typed clients; never set at run time. */
  declare readonly '~route'?: RouteEntry<Path, Shape>;
  readonly method: HTTPMethod;
  readonly path: string;
  readonly handler: Injectable;
  /**
   * Renderers for this route only, by media type, in registration order; `undefined` for a type
   * the handler answers with itself (`provides(type)` without a renderer).
   */
  readonly renderers = new Map<string, Injectable | undefined>();
  /** Extensions of later features (conditional providers, CORS, CSP) keyed by feature. */
  readonly settings: Record<string, unknown> = {};
  /** Where the application registered the route, for the duplicate route error. */
  readonly site = new RegistrationSite();
  readonly onRequestHooks: Injectable[] = [];
  readonly onResponseHooks: Injectable[] = [];

  /** Tells the router that holds the route that its routing table must be built again. */
  readonly #changed: () => void;

  constructor(method: HTTPMethod, path: string, handler: Injectable, changed: () => void) {
    this.method = method;
    this.path = path;
    this.handler = handler;
    this.#changed = changed;
  }

  /**
   * Adds a renderer for `mediaType` to this route; it wins over the application's for the
   * same type. Without a renderer, the route declares that its handler answers with this type
   * itself (a file, bytes, a Response of that type): a request for it is let through to the
   * handler, whose result is sent as it is (docs/application.md, "Content negotiation").
   *
   * @example
   * app.get('/report', () => data).provides('text/csv', ({ result }) => toCsv(result));
   * app.get('/report.pdf', () => Response.file('report.pdf')).provides('application/pdf');
   */
  provides(mediaType: string, renderer?: Renderer<Deps>): this {
    rendererMediaType(mediaType);
    this.renderers.set(
      mediaType,
      renderer === undefined
        ? undefined
        : describeInjectable(renderer, `Renderer for ${mediaType}`),
    );
    this.#changed();
    return this;
  }

  /**
   * Gives the route the current entity tag of its resource (quoted or not; `W/"..."` for a weak
   * one), computed before the handler runs: a GET whose `If-None-Match` matches gets 304 without
   * running the handler, and a PUT/PATCH/DELETE whose `If-Match` does not match gets 412 before
   * any side effect (RFC 9110 §13.2.2). Return `undefined` when the resource does not exist.
   *
   * @example
   * app.put('/notes/{id}', ({ id, jsonBody }) => notes.save(id, jsonBody))
   *   .etag(({ id }) => notes.get(id)?.version.toString());
   */
  etag(provider: RouteProvider<Deps, Path, string | null | undefined>): this {
    this.settings.etag = describeInjectable(provider, `etag() of ${this.method} ${this.path}`);
    this.#changed();
    return this;
  }

  /**
   * Gives the route the last modification date of its resource, computed before the handler
   * runs, for `If-Modified-Since` (304) and `If-Unmodified-Since` (412). Compared at one-second
   * precision. Return `undefined` when the resource does not exist or has no date.
   *
   * @example
   * app.get('/notes/{id}', ({ id }) => notes.get(id)).lastModified(({ id }) => notes.get(id)?.updatedAt);
   */
  lastModified(provider: RouteProvider<Deps, Path, Date | null | undefined>): this {
    this.settings.lastModified = describeInjectable(
      provider,
      `lastModified() of ${this.method} ${this.path}`,
    );
    this.#changed();
    return this;
  }

  /**
   * CORS for this route: options merged over its routers' and the application's, or `false`
   * to switch CORS off here.
   *
   * @example
   * app.get('/public', () => data).cors({ origin: '*' });
   */
  cors(options: CorsOptions | false): this {
    this.settings.cors = checkCorsOptions(options);
    this.#changed();
    return this;
  }

  /**
   * The Content-Security-Policy of this route's responses, replacing its routers' and the
   * application's, or `false` for none.
   *
   * @example
   * app.get('/page', ({ cspNonce }) => page(cspNonce)).csp({ directives: { scriptSrc: ["'nonce'"] } });
   */
  csp(options: CspOptions | false): this {
    this.settings.csp = cspSetting(options);
    this.#changed();
    return this;
  }

  /**
   * Runs `hook` for this route's requests, after the application's and its routers' `onRequest`
   * hooks and before authorization; it sees the route's path parameters by name.
   *
   * @example
   * app.get('/files/{name}', ({ name }) => read(name)).onRequest(({ name, log }) => {
   *   log.info('file asked', { name });
   * });
   */
  onRequest(hook: OnRequestHook<Deps, Path>): this {
    this.onRequestHooks.push(describeHook(hook, `onRequest hook of ${this.method} ${this.path}`));
    this.#changed();
    return this;
  }

  /**
   * Runs `hook` on this route's final responses, before its routers' and the application's
   * `onResponse` hooks.
   *
   * @example
   * app.get('/report', () => data).onResponse(({ response }) => {
   *   response.headers.set('Cache-Control', 'no-store');
   * });
   */
  onResponse(hook: OnResponseHook<Deps, Path>): this {
    this.onResponseHooks.push(describeHook(hook, `onResponse hook of ${this.method} ${this.path}`));
    this.#changed();
    return this;
  }

  /**
   * Compresses this route's responses (gzip, Brotli, zstd where the runtime has it) for clients
   * that accept it, replacing its routers' and the application's `compress()`; `false` turns it
   * off here (docs/streams.md, "Compression").
   *
   * @example
   * app.get('/report', () => bigReport()).compress({ threshold: 4096 });
   */
  compress(options?: CompressOptions | false): this {
    this.settings.compress = compressSetting(options);
    this.#changed();
    return this;
  }

  /**
   * Parses this route's request bodies of `mediaType` into `parsedBody`, before its routers' and
   * the application's parsers for the same type (see `Router.accepts`).
   *
   * @example
   * app.put('/notes/{id}', ({ id, parsedBody }) => notes.save(id, parsedBody))
   *   .accepts('text/markdown', ({ body }) => ({ markdown: body }));
   */
  accepts(mediaType: string, parser: RouteProvider<Deps, Path, unknown>): this {
    addParser(this.settings, mediaType, describeInjectable(parser, `accepts(${mediaType})`));
    this.#changed();
    return this;
  }

  /**
   * Exempts this route from every authorization hook in scope, including under
   * `authorization: 'required'`.
   *
   * @example
   * app.get('/health', () => ({ ok: true })).public();
   */
  public(): this {
    this.settings.public = true;
    this.#changed();
    return this;
  }

  /**
   * The largest request body this route accepts, in bytes, instead of the application's
   * `bodyLimit`: a declared Content-Length over it is 413 before the handler runs, and reading
   * a longer body fails with 413.
   *
   * @example
   * app.post('/uploads', ({ body }) => store(body)).bodyLimit(50 * 1024 * 1024);
   */
  bodyLimit(bytes: number): this {
    if (typeof bytes !== 'number' || !(bytes >= 0)) {
      throw new SetupError(
        'INVALID_OPTION',
        `bodyLimit of ${this.method} ${this.path} must be a number >= 0, got ${String(bytes)}`,
      );
    }
    this.settings.bodyLimit = bytes;
    this.#changed();
    return this;
  }

  /**
   * This route's `multipart/form-data` limits, over the application's `multipart` option (the
   * limits not given keep the application's). For multipart bodies they replace `bodyLimit`.
   *
   * @example
   * app.post('/videos', ({ files }) => store(files)).multipart({ fileSize: 500 * 1024 * 1024, files: 1 });
   */
  multipart(limits: MultipartOptions): this {
    // Checked now, so a misspelt limit fails at registration; laid over the application's later.
    multipartLimits(limits, `multipart() of ${this.method} ${this.path}`);
    this.settings.multipart = limits;
    this.#changed();
    return this;
  }

  /**
   * Documents the route in the OpenAPI document (`restmachine/openapi`); fields given again
   * replace earlier ones. `hidden: true` keeps the route out of the document.
   *
   * @example
   * app.get('/notes', () => notes.list()).describe({ summary: 'List notes', tags: ['notes'] });
   */
  describe(description: RouteDescription): this {
    const label = `${this.method} ${this.path}`;
    knownOptions(`describe() of ${label}`, description, DESCRIBE_OPTIONS);
    checkDescription(description, label);
    const previous = this.settings[DOCS_SETTING.describe] as RouteDescription | undefined;
    this.settings[DOCS_SETTING.describe] = { ...previous, ...description };
    this.#changed();
    return this;
  }

  /**
   * Documents one response of the route: its status, the schema of its body (its output JSON
   * Schema is documented) and options. Once per status.
   *
   * @example
   * app.get('/notes/{id}', ({ note }) => note).returns(200, Note, { description: 'The note' });
   */
  returns<Status extends number, Schema extends StandardSchemaV1 | undefined = undefined>(
    status: Status,
    schema?: Schema,
    options?: ReturnsOptions,
  ): Route<Deps, Path, WithReturn<Shape, Status, Schema>> {
    const label = `${this.method} ${this.path}`;
    knownOptions(`returns() of ${label}`, options, RETURNS_OPTIONS);
    const declared = this.settings[DOCS_SETTING.returns] as
      | Map<number, DocumentedResponse>
      | undefined;
    const response = documentedResponse(declared, status, schema, options, label);
    const responses = declared ?? new Map<number, DocumentedResponse>();
    responses.set(status, response);
    this.settings[DOCS_SETTING.returns] = responses;
    this.#changed();
    return this as never;
  }

  /**
   * Names the validators (`validates()` with a Standard Schema) whose input the route takes, so
   * a typed client (`restmachine/client`) knows its JSON body, query, headers and path
   * parameters. Startup refuses a name the handler does not reach.
   *
   * @example
   * app.withRoutes((r) => [r.post('/notes', ({ newNote }) => add(newNote)).uses('newNote')]);
   */
  uses<Names extends ValidatorNames<Deps>>(
    ...names: Names[]
  ): Route<Deps, Path, WithInputs<Shape, InputsOf<Deps, Names>>> {
    const used = (this.settings.uses as string[] | undefined) ?? [];
    this.settings.uses = [...used, ...names];
    this.#changed();
    return this as never;
  }
}
