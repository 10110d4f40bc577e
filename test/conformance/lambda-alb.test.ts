/**
 * The conformance suite through the AWS Lambda adapter, as an Application Load Balancer target
 * group with multi-value headers invokes it: path and query as sent (query values still
 * percent-encoded), every header value listed; results must come back in multi-value shape.
 */
import { CloudGatewayAdapter } from '../../src/adapters/aws/index.js';
import { albEvent, lambdaContext, readAlbResult } from '../adapters/aws/fixtures.js';
import { type DriverFactory, makeResponse } from './driver.js';
import { conformanceSuite } from './suite.js';

export const lambdaAlbDriver: DriverFactory = {
  name: 'Lambda ALB (multi-value headers)',
  skips: {
    'a well-formed X-Request-ID is echoed and a bad one replaced':
      "an ALB event carries no request id, so the Lambda invocation id stands in (SPEC §12), not the client's X-Request-ID",
  },
  async open(app) {
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
    return {
      async send(request) {
        const result = await adapter.handleEvent(
          albEvent(request, { multiValue: true }),
          lambdaContext(),
        );
        const wire = readAlbResult(result, true);
        return makeResponse(wire.status, wire.headers, wire.body);
      },
      async close() {},
    };
  },
};

conformanceSuite(lambdaAlbDriver);
