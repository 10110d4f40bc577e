/**
 * `restmachine/openapi`: the OpenAPI 3.1 document of an application, from its routes
 * (docs/openapi.md). Not imported by the core: an application that does not document itself
 * does not load it.
 */

export type { SecurityScheme } from '../app/features/authorization.js';
export type { ReturnsOptions, RouteDescription } from '../app/routing/route-docs.js';
export { type DocumentedApplication, openapi } from './document.js';
export {
  type OpenApiRouterApplication,
  type OpenApiRouterOptions,
  openapiRouter,
} from './router.js';
export type { ModuleResolver } from './swagger-ui.js';
export type {
  JsonSchema,
  OpenApiDocument,
  OpenApiInfo,
  OpenApiOperation,
  OpenApiOptions,
  OpenApiParameter,
  OpenApiResponse,
  OpenApiServer,
  OpenApiTag,
} from './types.js';
