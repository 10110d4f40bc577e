/**
 * The one place that decides which integration sent an event. Each rule looks at a
 * key only that integration sends, in an order where no earlier rule can claim a later kind's
 * event.
 */
import { albMultiValueProcessor, albSingleValueProcessor } from './alb.js';
import { unknownEvent } from './errors.js';
import { functionUrlProcessor, httpApiV2Processor } from './http-v2.js';
import type { EventProcessor } from './processor.js';
import { httpApiV1Processor, restV1Processor } from './rest-v1.js';

/** Returns the processor for `event`, or throws a `GatewayEventError` saying what was expected. */
export function processorFor(event: unknown): EventProcessor {
  if (event === null || typeof event !== 'object' || Array.isArray(event)) {
    throw unknownEvent(event);
  }
  const fields = event as Record<string, unknown>;
  const requestContext = fields.requestContext;
  const context =
    requestContext !== null && typeof requestContext === 'object'
      ? (requestContext as Record<string, unknown>)
      : undefined;
  // ALB events are the only ones with `requestContext.elb`; they also carry a top-level
  // `httpMethod`, so this test must come before the payload 1.0 one. Multi-value mode is a
  // target-group setting that replaces `headers` with `multiValueHeaders`.
  if (context?.elb !== undefined && context.elb !== null) {
    const multi = fields.multiValueHeaders;
    return (
      multi !== undefined && multi !== null ? albMultiValueProcessor : albSingleValueProcessor
    ) as EventProcessor;
  }
  // Payload 2.0 is the only format with `version: "2.0"`. Function URLs send the same format;
  // only their domain tells them apart, and it matters: they do not decode the path.
  if (fields.version === '2.0') {
    const domain = context?.domainName;
    return (
      typeof domain === 'string' && domain.includes('.lambda-url.')
        ? functionUrlProcessor
        : httpApiV2Processor
    ) as EventProcessor;
  }
  // Payload 1.0 has a top-level `httpMethod`. HTTP APIs label it `version: "1.0"` (and decode
  // the path); REST APIs send no version at all.
  if (typeof fields.httpMethod === 'string') {
    return (fields.version === '1.0' ? httpApiV1Processor : restV1Processor) as EventProcessor;
  }
  throw unknownEvent(event);
}
