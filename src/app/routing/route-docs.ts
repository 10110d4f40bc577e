/**
 * What `route.describe()` and `route.returns()` record for the OpenAPI document
 * (docs/openapi.md). Only recorded here: the document is built by `restmachine/openapi`, so the
 * core carries the settings and none of the generator.
 */
import { SetupError } from '../../errors.js';
import { parseMediaType } from '../../http/media-type.js';
import { isStandardSchema, type StandardSchemaV1 } from '../inject/validation.js';

/** The operation fields of `route.describe()` (OpenAPI 3.1 §4.8.10, Operation Object). */
export interface RouteDescription {
  summary?: string;
  description?: string;
  tags?: readonly string[];
  /** Unique among all operations of the document (OpenAPI 3.1 §4.8.10). */
  operationId?: string;
  deprecated?: boolean;
  /** Keeps the route out of the document. */
  hidden?: boolean;
}

/** Options of `route.returns()`. */
export interface ReturnsOptions {
  /** Default: the reason phrase of the status. */
  description?: string;
  /** Default `application/json`. */
  mediaType?: string;
}

/** One `returns()` declaration. */
export interface DocumentedResponse {
  status: number;
  schema: StandardSchemaV1 | undefined;
  description: string | undefined;
  mediaType: string;
}

/** Where the route keeps them (`route.settings[key]`). */
export const DOCS_SETTING = { describe: 'describe', returns: 'returns' } as const;

/** Checks `returns()` arguments; refuses a status declared twice on one route. */
export function documentedResponse(
  declared: ReadonlyMap<number, DocumentedResponse> | undefined,
  status: number,
  schema: StandardSchemaV1 | undefined,
  options: ReturnsOptions | undefined,
  label: string,
): DocumentedResponse {
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    throw new SetupError(
      'INVALID_OPTION',
      `returns() of ${label}: status must be an integer from 100 to 599, got ${String(status)}`,
    );
  }
  if (declared?.has(status)) {
    throw new SetupError('INVALID_OPTION', `returns() of ${label}: ${status} is already declared`);
  }
  // TypeScript refuses anything else; plain JavaScript would otherwise learn of a JSON Schema
  // given here only when the document or response validation reads it.
  if (schema !== undefined && !isStandardSchema(schema)) {
    throw new SetupError(
      'INVALID_OPTION',
      `returns() of ${label}: the schema must be a Standard Schema validator (zod, valibot, arktype) or left out, got ${describeValue(schema)}`,
    );
  }
  const mediaType = options?.mediaType;
  if (mediaType !== undefined && (typeof mediaType !== 'string' || !parseMediaType(mediaType))) {
    throw new SetupError(
      'INVALID_OPTION',
      `returns() of ${label}: mediaType must be a media type such as "text/csv", got ${JSON.stringify(mediaType)}`,
    );
  }
  return {
    status,
    schema,
    description: options?.description,
    mediaType: options?.mediaType ?? 'application/json',
  };
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object without "~standard"' : typeof value;
}

/** Checks what `describe()` was given: an `operationId` names an operation, so it is not empty. */
export function checkDescription(description: { operationId?: unknown }, label: string): void {
  const id = description.operationId;
  if (id !== undefined && (typeof id !== 'string' || id.trim() === '')) {
    throw new SetupError(
      'INVALID_OPTION',
      `describe() of ${label}: operationId must be a non-empty string, got ${JSON.stringify(id)}`,
    );
  }
}
