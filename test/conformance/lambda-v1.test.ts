/**
 * The conformance suite through the AWS Lambda adapter, as an API Gateway REST API (payload
 * 1.0) invokes it: each request becomes a REST proxy event, each result is read back the way
 * API Gateway merges `headers` and `multiValueHeaders`.
 */
import { CloudGatewayAdapter } from '../../src/adapters/aws/index.js';
import { lambdaContext, readV1Result, restEvent } from '../adapters/aws/fixtures.js';
import { type DriverFactory, makeResponse } from './driver.js';
import { conformanceSuite } from './suite.js';

export const lambdaV1Driver: DriverFactory = {
  name: 'Lambda REST API (payload 1.0)',
  skips: {
    'a well-formed X-Request-ID is echoed and a bad one replaced':
      "on Lambda the request id is the gateway's requestContext.requestId (SPEC §12), not the client's X-Request-ID",
  },
  async open(app) {
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
    return {
      async send(request) {
        const result = await adapter.handleEvent(restEvent(request), lambdaContext());
        const wire = readV1Result(result);
        return makeResponse(wire.status, wire.headers, wire.body);
      },
      async close() {},
    };
  },
};

conformanceSuite(lambdaV1Driver);
