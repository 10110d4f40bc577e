/**
 * The Request an event becomes: the processor's parts are its init, and its context carries the
 * event, the invocation's context, the authorizer's claims and the metrics recorder.
 */
import { Request, type RequestInit } from '../../request.js';
import type { LambdaContext as Context, GatewayEvent } from './events.js';
import type { InvocationMetrics } from './metrics/recorder.js';
import type { RequestParts } from './processor.js';

export function newEventRequest(
  parts: RequestParts,
  body: string | Uint8Array | undefined,
  event: GatewayEvent,
  context: Context | undefined,
  metrics: InvocationMetrics | undefined,
): Request {
  // The parts are this invocation's own object, so they become the Request's init as they are.
  const init: RequestInit = parts;
  init.body = body;
  init.context = {
    lambdaEvent: event,
    lambdaContext: context,
    authorizer: parts.authorizer,
    metrics,
  };
  // An ALB event carries no request id: Lambda's own id for the invocation stands in.
  if (init.requestId === undefined && context?.awsRequestId !== undefined) {
    init.requestId = context.awsRequestId;
  }
  return new Request(init);
}
