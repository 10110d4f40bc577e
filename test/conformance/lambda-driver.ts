/**
 * The one way the Lambda drivers reach the adapter: each request becomes the event its
 * integration would build, goes through `CloudGatewayAdapter.handleEvent`, and the result is read
 * back the way that integration would send it. A driver differs from the others only in its
 * event builder, its result reader and the behaviours its integration cannot show.
 */
import {
  CloudGatewayAdapter,
  type GatewayEvent,
  type GatewayResult,
} from '../../src/adapters/aws/index.js';
import { lambdaContext, type WireResponse } from '../adapters/aws/fixtures.js';
import { type DriverFactory, type DriverRequest, makeResponse } from './driver.js';

/** What one Lambda integration brings to its driver. */
export interface LambdaIntegration<Event extends GatewayEvent, Result extends GatewayResult> {
  name: string;
  /** The event the integration builds for a request. */
  toEvent(request: DriverRequest): Event;
  /** The response the integration sends for a result, its shape checked. */
  readResult(result: Result): WireResponse;
  /** Behaviours this integration cannot show, beyond those of every Lambda driver. */
  skips?: Readonly<Record<string, string>>;
}

// Every integration carries its own request id, which stands in for the client's.
const LAMBDA_SKIPS: Readonly<Record<string, string>> = {
  'a well-formed X-Request-ID is echoed and a bad one replaced':
    "on Lambda the request id is the integration's (requestContext.requestId, or the invocation id for an ALB), not the client's X-Request-ID",
  'requestTimeout: a stream a synchronous handler returned is cut when it expires':
    "the buffered handler holds the whole body, so nothing is sent before the timer expires and the answer is the timeout's 503 (test/adapters/aws/buffered-stream-errors.test.ts)",
  'sse: an event stream in the event-stream format':
    'the buffered handler holds the whole body, so it refuses event streams with a 500 (test/adapters/aws/event-stream.test.ts)',
};

/** A conformance driver for one Lambda integration. */
export function lambdaDriver<Event extends GatewayEvent, Result extends GatewayResult>(
  integration: LambdaIntegration<Event, Result>,
): DriverFactory {
  return {
    name: integration.name,
    skips: { ...LAMBDA_SKIPS, ...integration.skips },
    async open(app) {
      const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
      return {
        async send(request) {
          const result = await adapter.handleEvent(integration.toEvent(request), lambdaContext());
          const wire = integration.readResult(result as Result);
          return makeResponse(wire.status, wire.headers, wire.body);
        },
        async close() {},
      };
    },
  };
}
