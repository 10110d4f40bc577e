/**
 * The conformance suite through the AWS Lambda adapter, as an HTTP API (payload 2.0) invokes
 * it: the path arrives percent-decoded in `rawPath`, the query as sent in `rawQueryString`,
 * cookies in their own array; results are read back with `cookies` as Set-Cookie headers.
 */
import { CloudGatewayAdapter } from '../../src/adapters/aws/index.js';
import { lambdaContext, readV2Result, v2Event } from '../adapters/aws/fixtures.js';
import { type DriverFactory, makeResponse } from './driver.js';
import { conformanceSuite } from './suite.js';

const DECODED_PATH =
  'an HTTP API percent-decodes the path before invoking the function, so what the client ' +
  'encoded cannot be told apart from what it did not';

export const lambdaV2Driver: DriverFactory = {
  name: 'Lambda HTTP API (payload 2.0)',
  skips: {
    'path parameters are percent-decoded once and %2F stays inside one': `${DECODED_PATH}: %2F arrives as a separator`,
    'a catch-all never matches an encoded separator': `${DECODED_PATH}: %2F arrives as a separator`,
    'malformed percent-encoding in the path is 400': `${DECODED_PATH}: a malformed escape never reaches the function as one`,
    'a well-formed X-Request-ID is echoed and a bad one replaced':
      "on Lambda the request id is the gateway's requestContext.requestId (SPEC §12), not the client's X-Request-ID",
  },
  async open(app) {
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
    return {
      async send(request) {
        const result = await adapter.handleEvent(v2Event(request), lambdaContext());
        const wire = readV2Result(result);
        return makeResponse(wire.status, wire.headers, wire.body);
      },
      async close() {},
    };
  },
};

conformanceSuite(lambdaV2Driver);
