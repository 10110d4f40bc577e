/**
 * What building one operation works with: the document being built (schemas, shared responses,
 * security schemes, warnings) and the route's validators by the name they were registered under.
 */
import type { AuthorizationHook } from '../app/features/authorization.js';
import type { StandardSchemaV1 } from '../app/inject/validation.js';
import type { PipelineStatus } from './responses.js';
import type { SchemaConverter } from './schemas.js';
import type { OpenApiResponse } from './types.js';

/** What the operation needs from the document being built. */
export interface OperationContext {
  schemas: SchemaConverter;
  /** Records a pipeline response as used; gives its reference. */
  pipelineResponse(status: PipelineStatus): OpenApiResponse;
  /** The security scheme name documenting `hook` (registered on first use). */
  securityScheme(hook: AuthorizationHook): string;
  /** Whether the application registers renderers of its own. */
  appRenderers: boolean;
  autoEtag: boolean;
  /** Logs `message` once per `subject` (a route, a validator) for the life of the process. */
  warnOnce(subject: object, message: string): void;
}

/** A validator and the name it was registered under. */
export interface NamedSchema {
  name: string;
  schema: StandardSchemaV1;
}
