/**
 * The parts of an OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.1) that `openapi()`
 * takes and gives. The document is plain JSON: serialise it with `JSON.stringify`.
 */

/** A JSON Schema (draft 2020-12), the dialect OpenAPI 3.1 Schema Objects use. */
export type JsonSchema = { [key: string]: unknown };

/** The Info Object (OpenAPI 3.1 §4.8.2). */
export interface OpenApiInfo {
  title: string;
  version: string;
  summary?: string;
  description?: string;
  termsOfService?: string;
  contact?: { name?: string; url?: string; email?: string };
  license?: { name: string; identifier?: string; url?: string };
}

/** The Server Object (OpenAPI 3.1 §4.8.5). */
export interface OpenApiServer {
  url: string;
  description?: string;
  variables?: Record<string, { default: string; enum?: string[]; description?: string }>;
}

/** The Tag Object (OpenAPI 3.1 §4.8.22). */
export interface OpenApiTag {
  name: string;
  description?: string;
  externalDocs?: { url: string; description?: string };
}

/** Options of `openapi()`. */
export interface OpenApiOptions {
  info: OpenApiInfo;
  servers?: readonly OpenApiServer[];
  /**
   * Descriptions of the tags routes name in `describe({ tags })`, in the order they are listed;
   * the document lists every tag a route names, these first.
   */
  tags?: readonly OpenApiTag[];
}
/** The names of {@link OpenApiOptions}: `openapi()` refuses any other. */
export const OPENAPI_OPTIONS: readonly string[] = Object.keys({
  info: true,
  servers: true,
  tags: true,
} satisfies Record<keyof OpenApiOptions, true>);

/** A Parameter Object (OpenAPI 3.1 §4.8.12). */
export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema: JsonSchema;
}

/** A Response Object, or a reference to one under `components.responses`. */
export type OpenApiResponse =
  | { description: string; headers?: Record<string, unknown>; content?: Record<string, unknown> }
  | { $ref: string };

/** An Operation Object (OpenAPI 3.1 §4.8.10). */
export interface OpenApiOperation {
  summary?: string;
  description?: string;
  tags?: string[];
  operationId?: string;
  deprecated?: boolean;
  parameters?: OpenApiParameter[];
  requestBody?: { required: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, OpenApiResponse>;
  security?: Array<Record<string, string[]>>;
}

/** The document `openapi()` returns. */
export interface OpenApiDocument {
  openapi: '3.1.1';
  info: OpenApiInfo;
  servers?: OpenApiServer[];
  tags?: OpenApiTag[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: {
    schemas?: Record<string, JsonSchema>;
    responses?: Record<string, OpenApiResponse>;
    securitySchemes?: Record<string, unknown>;
  };
}
