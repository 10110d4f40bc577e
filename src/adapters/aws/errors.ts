/**
 * The adapter's own errors. They are thrown (the Lambda runtime reports them), never turned
 * into HTTP responses: an event the adapter cannot read says nothing about an HTTP client.
 */

/** `UNKNOWN_EVENT`: not a shape the adapter knows; `MALFORMED_EVENT`: a known shape missing a field it needs. */
export type GatewayEventErrorCode = 'UNKNOWN_EVENT' | 'MALFORMED_EVENT';

/**
 * An event the adapter cannot turn into a request.
 *
 * @example
 * try {
 *   await adapter.handleEvent(event);
 * } catch (error) {
 *   if (error instanceof GatewayEventError && error.code === 'UNKNOWN_EVENT') console.error(error.message);
 * }
 */
export class GatewayEventError extends Error {
  readonly code: GatewayEventErrorCode;

  constructor(code: GatewayEventErrorCode, message: string) {
    super(message);
    this.name = 'GatewayEventError';
    this.code = code;
  }
}

const EXPECTED =
  'expected an API Gateway REST or HTTP API payload 1.0 event (top-level "httpMethod"), ' +
  'an HTTP API payload 2.0 or Function URL event ("version": "2.0"), ' +
  'or an Application Load Balancer event ("requestContext.elb")';

function describe(event: unknown): string {
  if (event === null) return 'null';
  if (Array.isArray(event)) return 'an array';
  if (typeof event !== 'object') return `a ${typeof event}`;
  const keys = Object.keys(event);
  const shown = keys.slice(0, 12).map((key) => JSON.stringify(key));
  if (keys.length > shown.length) shown.push('...');
  return keys.length === 0 ? 'an empty object' : `an object with keys ${shown.join(', ')}`;
}

/** The error for an event of no known shape, saying what was expected and what came. */
export function unknownEvent(event: unknown): GatewayEventError {
  return new GatewayEventError(
    'UNKNOWN_EVENT',
    `Unsupported Lambda event: ${EXPECTED}; got ${describe(event)}`,
  );
}

/** The error for a known kind of event that lacks a field the adapter needs. */
export function malformedEvent(kind: string, field: string): GatewayEventError {
  return new GatewayEventError(
    'MALFORMED_EVENT',
    `Malformed ${kind} event: "${field}" must be a non-empty string`,
  );
}
