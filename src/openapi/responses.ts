/**
 * The responses the pipeline itself gives (docs/http-semantics.md), documented once under
 * `components.responses` and referenced by the operations that can get them.
 */
import { ISSUES_LISTED } from '../errors.js';
import type { OpenApiResponse } from './types.js';

/** Why the pipeline answers each status; the key names the component. */
export const PIPELINE_RESPONSES = {
  304: { key: 'NotModified', description: 'Not Modified: the representation is unchanged' },
  400: { key: 'BadRequest', description: 'Bad Request: the request is malformed' },
  401: { key: 'Unauthorized', description: 'Unauthorized: credentials are missing or wrong' },
  403: { key: 'Forbidden', description: 'Forbidden: the credentials do not allow this' },
  404: { key: 'NotFound', description: 'Not Found: the resource does not exist' },
  406: { key: 'NotAcceptable', description: 'Not Acceptable: no representation matches Accept' },
  412: { key: 'PreconditionFailed', description: 'Precondition Failed: If-Match failed' },
  413: { key: 'ContentTooLarge', description: 'Content Too Large: the body is over the limit' },
  415: { key: 'UnsupportedMediaType', description: 'Unsupported Media Type' },
  422: { key: 'ValidationFailed', description: 'Unprocessable Content: the input is invalid' },
} as const;

export type PipelineStatus = keyof typeof PIPELINE_RESPONSES;

/** The built-in error body (docs/application.md, "Errors"). */
export const ERROR_SCHEMA = {
  type: 'object',
  properties: {
    error: { type: 'string' },
    statusCode: { type: 'integer' },
    path: { type: 'string' },
    details: {},
  },
  required: ['error', 'statusCode', 'path'],
};

/** A 422's `details`: one entry per issue, the first ones, and `detailsOmitted` for the rest. */
const VALIDATION_SCHEMA = {
  allOf: [
    { $ref: '#/components/schemas/Error' },
    {
      type: 'object',
      properties: {
        details: {
          type: 'array',
          items: {
            type: 'object',
            properties: { path: { type: 'string' }, message: { type: 'string' } },
            required: ['path', 'message'],
          },
          maxItems: ISSUES_LISTED,
        },
        detailsOmitted: { type: 'integer', minimum: 1 },
      },
    },
  ],
};

/**
 * The component for `status`. A 304 has no body (RFC 9110 §15.4.5). The error body is JSON, or
 * the plain message for a client that accepts only text, unless `jsonOnly` (`renderers: 'json'`).
 */
export function pipelineResponse(status: PipelineStatus, jsonOnly = false): OpenApiResponse {
  const { description } = PIPELINE_RESPONSES[status];
  if (status === 304) return { description };
  const schema = status === 422 ? VALIDATION_SCHEMA : { $ref: '#/components/schemas/Error' };
  const content: Record<string, unknown> = { 'application/json': { schema } };
  if (!jsonOnly) content['text/plain'] = { schema: { type: 'string' } };
  const response: OpenApiResponse = { description, content };
  if (status === 401) {
    // RFC 9110 §15.5.2: every 401 carries a challenge.
    response.headers = { 'WWW-Authenticate': { schema: { type: 'string' } } };
  }
  return response;
}
