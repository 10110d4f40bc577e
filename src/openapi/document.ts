/**
 * `openapi(app, options)`: the OpenAPI 3.1 document of an application, built from its routing
 * table (every mounted router's routes, with the scope each sees) and nothing else.
 */

import type { AuthorizationHook, SecurityScheme } from '../app/features/authorization.js';
import type { Logger } from '../app/logger.js';
import { knownOptions } from '../app/options.js';
import { DOCS_SETTING, type RouteDescription } from '../app/routing/route-docs.js';
import type { RoutingTable } from '../app/routing/routing-table.js';
import { SetupError } from '../errors.js';
import { encodeStaticSegment } from '../http/percent.js';
import { buildOperation } from './operation.js';
import {
  ERROR_SCHEMA,
  PIPELINE_RESPONSES,
  type PipelineStatus,
  pipelineResponse,
} from './responses.js';
import { SchemaConverter, warnOnce } from './schemas.js';
import {
  OPENAPI_OPTIONS,
  type OpenApiDocument,
  type OpenApiOperation,
  type OpenApiOptions,
  type OpenApiResponse,
  type OpenApiTag,
} from './types.js';

/** What `openapi()` reads from an application (a `RestApplication`). */
export interface DocumentedApplication {
  routingTable(): RoutingTable;
  readonly logger: Logger;
  readonly appRenderers: ReadonlyMap<string, unknown>;
  /** `renderers: 'json'`: error bodies are JSON only. */
  readonly jsonOnly?: boolean;
  /** `etag: 'auto'`: buffered answers to GET and HEAD get an ETag, so a 304. */
  readonly autoEtag?: boolean;
}

/** Default for `authorized()` hooks registered without `{ openapi }` (RFC 6750). */
const BEARER: SecurityScheme = { type: 'http', scheme: 'bearer' };

/**
 * The OpenAPI 3.1 document of `app`: a plain object, ready for `JSON.stringify`. Throws the
 * first setup problem of the routes, as starting the application would.
 *
 * @example
 * import { openapi } from 'restmachine/openapi';
 * const document = openapi(app, { info: { title: 'Notes', version: '1.0.0' } });
 */
export function openapi(app: DocumentedApplication, options: OpenApiOptions): OpenApiDocument {
  knownOptions('openapi()', options, OPENAPI_OPTIONS);
  const table = app.routingTable();
  if (table.problems.length > 0) throw table.problems[0];
  const schemas = new SchemaConverter(app.logger);
  const responses: Record<string, OpenApiResponse> = {};
  const securitySchemes: Record<string, SecurityScheme> = {};
  // The name each hook's scheme is documented under, by hook name and then scheme.
  const schemeNames = new Map<string, Map<SecurityScheme, string>>();
  const context = {
    schemas,
    appRenderers: app.appRenderers.size > 0,
    autoEtag: app.autoEtag === true,
    warnOnce(subject: object, message: string): void {
      warnOnce(app.logger, subject, message);
    },
    pipelineResponse(status: PipelineStatus): OpenApiResponse {
      const { key } = PIPELINE_RESPONSES[status];
      responses[key] ??= pipelineResponse(status, app.jsonOnly === true);
      return { $ref: `#/components/responses/${key}` };
    },
    securityScheme(hook: AuthorizationHook): string {
      // A route guarded by the hook `user` requires the scheme `user`, whatever other hooks of
      // the same kind were documented first; the same name with another scheme is `user2`.
      const scheme = hook.openapi ?? BEARER;
      let named = schemeNames.get(hook.name);
      if (named === undefined) {
        named = new Map();
        schemeNames.set(hook.name, named);
      }
      let name = named.get(scheme);
      if (name === undefined) {
        name = hook.name;
        for (let n = 2; name in securitySchemes; n++) name = `${hook.name}${n}`;
        named.set(scheme, name);
        securitySchemes[name] = scheme;
      }
      return name;
    },
  };

  const paths: OpenApiDocument['paths'] = {};
  const pathsByShape = new Map<string, string>();
  const operationIds = new Set<string>();
  for (const scoped of table.scoped) {
    const { route, template } = scoped.compiled;
    const description = route.settings[DOCS_SETTING.describe] as RouteDescription | undefined;
    if (description?.hidden === true) continue;
    const operation = buildOperation(scoped, context);
    if (operation.operationId !== undefined) {
      // OpenAPI 3.1 §4.8.10: operationId is unique among all operations.
      if (operationIds.has(operation.operationId)) {
        throw new SetupError(
          'INVALID_OPTION',
          `describe() of ${route.method} ${template}: operationId "${operation.operationId}" is used twice`,
        );
      }
      operationIds.add(operation.operationId);
    }
    const path = documentedPath(template, operation, pathsByShape);
    paths[path] ??= {};
    const item = paths[path] as Record<string, unknown>;
    const method = route.method.toLowerCase();
    if (item[method] !== undefined) {
      // `GET /files/{name}` beside `GET /files/{name*}`: one path item, one GET in OpenAPI.
      app.logger.warn(
        `OpenAPI: ${route.method} ${template} is left out: its path item ${path} already has a ${route.method} (OpenAPI has no catch-all templates)`,
      );
      continue;
    }
    item[method] = operation;
  }

  const document: OpenApiDocument = { openapi: '3.1.1', info: options.info, paths };
  if (options.servers !== undefined) document.servers = [...options.servers];
  const tags = documentTags(options.tags ?? [], paths);
  if (tags.length > 0) document.tags = tags;
  const components: NonNullable<OpenApiDocument['components']> = {};
  const usesError = Object.keys(responses).some((key) => key !== 'NotModified');
  if (usesError || Object.keys(schemas.components).length > 0) {
    components.schemas = { ...schemas.components, ...(usesError ? { Error: ERROR_SCHEMA } : {}) };
  }
  if (Object.keys(responses).length > 0) components.responses = responses;
  if (Object.keys(securitySchemes).length > 0) components.securitySchemes = securitySchemes;
  if (Object.keys(components).length > 0) document.components = components;
  return document;
}

/**
 * The document's `tags` (OpenAPI 3.1 §4.8.1): the described ones first, in their order, then
 * every other tag an operation names, in the order the operations name them.
 */
function documentTags(
  described: readonly OpenApiTag[],
  paths: OpenApiDocument['paths'],
): OpenApiTag[] {
  const tags = new Map<string, OpenApiTag>();
  for (const tag of described) tags.set(tag.name, { ...tag });
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      for (const name of operation.tags ?? []) if (!tags.has(name)) tags.set(name, { name });
    }
  }
  return [...tags.values()];
}

const PARAMETER = /\{([^}*]+)(\*?)\}/g;

/**
 * `template` as a request's path carries it, which is what a consumer of the document appends
 * to a server's URL (OpenAPI 3.1 §4.8.8, Paths Object): each static segment percent-encoded as
 * the typed client sends it (`/100%/{id}` is requested as `/100%25/{id}`, an unencoded `?` or
 * `#` would end the path: RFC 3986 §3.3), its parameters as written. A segment holding a lone
 * surrogate has no UTF-8 (RFC 3629 §3), so no URL reaches it: it stays as written.
 */
function requestPath(template: string): string {
  return template
    .split('/')
    .map((segment) =>
      segment.startsWith('{') || /\p{Surrogate}/u.test(segment)
        ? segment
        : encodeStaticSegment(segment),
    )
    .join('/');
}

/**
 * The key of `template`'s path item, its static segments as a request carries them
 * (`requestPath`). A catch-all `{rest*}` documents as `{rest}`: OpenAPI
 * templates have no catch-all, so it shares the path item of a one-segment parameter in the
 * same place. Templates that differ only in their parameters' names are one
 * path to the router, and one path item to OpenAPI 3.1 ("templated paths with the same
 * hierarchy but different templated names MUST NOT exist"): the first one documented names it,
 * and the path parameters of later operations are renamed to match, position by position.
 */
function documentedPath(
  template: string,
  operation: OpenApiOperation,
  pathsByShape: Map<string, string>,
): string {
  const requested = requestPath(template);
  const path = requested.replace(PARAMETER, '{$1}');
  // A catch-all has the same hierarchy as a one-segment parameter once documented.
  const shape = requested.replace(PARAMETER, '{}');
  const documented = pathsByShape.get(shape);
  if (documented === undefined) {
    pathsByShape.set(shape, path);
    return path;
  }
  if (documented !== path) {
    const own = [...path.matchAll(PARAMETER)].map((match) => match[1]);
    const names = [...documented.matchAll(PARAMETER)].map((match) => match[1] as string);
    for (const parameter of operation.parameters ?? []) {
      const at = parameter.in === 'path' ? own.indexOf(parameter.name) : -1;
      if (at !== -1) parameter.name = names[at] as string;
    }
  }
  return documented;
}
