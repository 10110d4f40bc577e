/**
 * Router: groups routes and mounts other routers under a prefix. It has no registry of its own;
 * it uses the application it ends up mounted on (seed 000 §2.4).
 */

import { SetupError } from '../../errors.js';
import { type HTTPMethod, type MethodInput, normalizeMethod } from '../../http/methods.js';
import { type CorsOptions, checkCorsOptions } from '../features/cors.js';
import { type CspOptions, compileCsp } from '../features/csp.js';
import { describeInjectable } from '../inject/handler-parameters.js';
import type { Handler, Registry } from '../types.js';
import { Route } from './route.js';

/** A router mounted under a prefix. */
export interface Mount {
  prefix: string;
  router: Router<Registry>;
}

const PARAM = /^\{([A-Za-z_$][\w$]*)(\*)?\}$/;

/** Checks a route template: `/a/{b}/{rest*}`; a catch-all only as the last segment. */
export function validateTemplate(path: string): void {
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw new SetupError(
      'INVALID_ROUTE',
      `Route path must start with "/": ${JSON.stringify(path)}`,
    );
  }
  const segments = path.split('/').filter((segment) => segment !== '');
  const seen = new Set<string>();
  segments.forEach((segment, index) => {
    if (!segment.includes('{') && !segment.includes('}')) return;
    const match = PARAM.exec(segment);
    if (match === null) {
      throw new SetupError(
        'INVALID_ROUTE',
        `Route ${path}: "${segment}" is not a parameter; use a whole segment such as {id} or {path*}`,
      );
    }
    const name = match[1] as string;
    if (seen.has(name)) {
      throw new SetupError('INVALID_ROUTE', `Route ${path}: parameter "${name}" appears twice`);
    }
    seen.add(name);
    if (match[2] === '*' && index !== segments.length - 1) {
      throw new SetupError('INVALID_ROUTE', `Route ${path}: a catch-all must be the last segment`);
    }
  });
}

/** Normalises a mount prefix: leading slash, no trailing slash, `/` for the root. */
export function normalizePrefix(prefix: string): string {
  if (typeof prefix !== 'string')
    throw new SetupError('INVALID_ROUTE', 'Mount prefix must be a string');
  const trimmed = prefix
    .split('/')
    .filter((segment) => segment !== '')
    .join('/');
  if (trimmed.includes('{')) validateTemplate(`/${trimmed}`);
  return trimmed === '' ? '' : `/${trimmed}`;
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
   * The application the router is written for (seed 000 §2.4), when given: passing it types
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

  /** Registers `handler` for `method` at `path`. */
  route<Path extends string>(
    method: MethodInput,
    path: Path,
    handler: Handler<Deps, Path>,
  ): Route<Deps, Path> {
    const canonical: HTTPMethod = normalizeMethod(method);
    validateTemplate(path);
    const route = new Route<Deps, Path>(
      canonical,
      path,
      describeInjectable(handler, `Handler of ${canonical} ${path}`),
      () => this.changed(),
    );
    this.routes.push(route);
    this.changed();
    return route;
  }

  get<Path extends string>(path: Path, handler: Handler<Deps, Path>): Route<Deps, Path> {
    return this.route('GET', path, handler);
  }

  post<Path extends string>(path: Path, handler: Handler<Deps, Path>): Route<Deps, Path> {
    return this.route('POST', path, handler);
  }

  put<Path extends string>(path: Path, handler: Handler<Deps, Path>): Route<Deps, Path> {
    return this.route('PUT', path, handler);
  }

  patch<Path extends string>(path: Path, handler: Handler<Deps, Path>): Route<Deps, Path> {
    return this.route('PATCH', path, handler);
  }

  delete<Path extends string>(path: Path, handler: Handler<Deps, Path>): Route<Deps, Path> {
    return this.route('DELETE', path, handler);
  }

  head<Path extends string>(path: Path, handler: Handler<Deps, Path>): Route<Deps, Path> {
    return this.route('HEAD', path, handler);
  }

  options<Path extends string>(path: Path, handler: Handler<Deps, Path>): Route<Deps, Path> {
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
    this.settings.csp = options === false ? false : compileCsp(options);
    this.changed();
    return this;
  }

  /** Mounts `router` under `prefix`; later changes to `router` still count. */
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
