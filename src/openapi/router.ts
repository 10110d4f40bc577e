/**
 * `openapiRouter(app, options)`: a public Router, meant to be mounted at `/`, that serves the
 * application's OpenAPI document and an API reference page (Swagger UI, served from the
 * installed `swagger-ui-dist`, never from a CDN). Its own routes are not in the document.
 */

import { booleanOption, knownOptions } from '../app/options.js';
import type { Route } from '../app/routing/route.js';
import { Router } from '../app/routing/router.js';
import { normalizePrefix } from '../app/routing/template.js';
import { HttpError, SetupError } from '../errors.js';
import type { Request } from '../request.js';
import { Response } from '../response.js';
import { StaticRouter } from '../static/index.js';
import { type DocumentedApplication, openapi } from './document.js';
import { INIT_SCRIPT, referencePage, relativeUrl } from './reference-page.js';
import { locateSwaggerUi, type ModuleResolver, SWAGGER_UI_FILES } from './swagger-ui.js';
import { OPENAPI_OPTIONS, type OpenApiOptions } from './types.js';

/** What `openapiRouter()` needs of an application: its document, and its startup to check it. */
export interface OpenApiRouterApplication extends DocumentedApplication {
  readonly started: boolean;
  onStartup(handler: () => void): unknown;
}

/** Options of `openapiRouter()`: those of `openapi()`, and where the router serves. */
export interface OpenApiRouterOptions extends OpenApiOptions {
  /** Where the document is served (default `/openapi.json`). */
  path?: string;
  /** Where the API reference page is served (default `/docs`); `false` for none. */
  docs?: string | false;
  /** Where `swagger-ui-dist` is looked for (tests); the application's install by default. */
  resolver?: ModuleResolver | undefined;
  /**
   * Whether the router is `.public()` (the default): `false` leaves it to the authorization
   * hooks of the router it is mounted in, for a document of internal operations.
   */
  public?: boolean | undefined;
}
const OPENAPI_ROUTER_OPTIONS: readonly string[] = [
  ...Object.keys({
    path: true,
    docs: true,
    resolver: true,
    public: true,
  } satisfies Record<Exclude<keyof OpenApiRouterOptions, keyof OpenApiOptions>, true>),
  ...OPENAPI_OPTIONS,
];

function routePath(value: string, option: string): string {
  const path = normalizePrefix(value);
  if (path === '') {
    throw new SetupError('INVALID_OPTION', `openapiRouter(): ${option} cannot be the root`);
  }
  return path;
}

/**
 * A router serving the document of `app` at `path` and the reference page at `docs`. The
 * document is built when the application starts, so a route it cannot document (an
 * `operationId` used twice) fails startup, and again on the first request after a later
 * registration; it is kept until the next one.
 *
 * @example
 * import { openapiRouter } from 'restmachine/openapi';
 * app.mount('/', openapiRouter(app, { info: { title: 'Notes', version: '1.0.0' } }));
 * // GET /openapi.json: the document; GET /docs: the API reference page
 */
export function openapiRouter(
  app: OpenApiRouterApplication,
  options: OpenApiRouterOptions,
): Router {
  // Here, where the options are given, with the router's own names listed: openapi() would only
  // refuse a misspelt `doc: false` at startup, naming the document's options.
  knownOptions('openapiRouter()', options, OPENAPI_ROUTER_OPTIONS);
  const {
    path: documentOption,
    docs: docsOption,
    resolver,
    public: isPublic,
    ...documentOptions
  } = options;
  const documentPath = routePath(documentOption ?? '/openapi.json', 'path');
  const router = new Router();
  let cached: { table: unknown; json: string } | undefined;
  const documentJson = (): string => {
    const table = app.routingTable();
    if (cached?.table !== table) {
      cached = { table, json: JSON.stringify(openapi(app, documentOptions)) };
    }
    return cached.json;
  };
  const documentRoute = router.get(
    documentPath,
    () => new Response(200, documentJson(), { contentType: 'application/json' }),
  );
  const routes: Route[] = [documentRoute];

  if (docsOption !== false) {
    const docsPath = routePath(docsOption ?? '/docs', 'docs');
    if (docsPath === documentPath) {
      throw new SetupError('INVALID_OPTION', 'openapiRouter(): path and docs must differ');
    }
    // The static router serves the three files the page loads, with their validators, ranges and
    // precompressed variants; nothing else of the package (its demo page, its package.json with
    // the version, its source maps) gets through.
    const assets = new StaticRouter(locateSwaggerUi(resolver));
    const files = Object.values(SWAGGER_UI_FILES).map((file) => `/${file}`);
    assets.onRequest(({ request }) => {
      if (!files.some((file) => request.path.endsWith(file))) throw new HttpError(404);
    });
    router.mount(`${docsPath}/assets`, assets);
    routes.push(...assets.routes);
    const title = `${options.info.title} ${options.info.version}`;
    const page = ({ request }: { request: Request }) => {
      const link = (target: string) => relativeUrl(request.path, docsPath, target);
      const html = referencePage({
        title,
        document: link(documentPath),
        style: link(`${docsPath}/assets/${SWAGGER_UI_FILES.style}`),
        script: link(`${docsPath}/assets/${SWAGGER_UI_FILES.script}`),
        init: link(`${docsPath}/init.js`),
        // Named by the page, so a browser does not ask for /favicon.ico (a 404 in its console).
        icon: link(`${docsPath}/assets/${SWAGGER_UI_FILES.icon}`),
      });
      return new Response(200, html, { contentType: 'text/html; charset=utf-8' });
    };
    const init = () =>
      new Response(200, INIT_SCRIPT, { contentType: 'text/javascript; charset=utf-8' });
    routes.push(router.get(docsPath, page), router.get(`${docsPath}/init.js`, init));
  }

  for (const route of routes) {
    route.describe({ hidden: true });
    // Each answers in its own media type: no renderer to negotiate, so no 406.
    route.settings.negotiation = false;
  }
  // A document that cannot be built would answer 500 on every request to it: building it at
  // startup makes that a startup failure (serve() then listens to nothing), not a deployed
  // endpoint that never works. Registered last, once every option above was accepted.
  if (app.started) documentJson();
  else app.onStartup(() => void documentJson());
  return isPublic === undefined || booleanOption('openapiRouter(): public', isPublic)
    ? router.public()
    : router;
}
