/**
 * The conformance suite through `CloudGatewayAdapter.streamHandler`, Lambda response streaming
 * for a Function URL: each request becomes the Function URL event, the handler writes to a
 * stand-in of the runtime's response stream (test/adapters/aws/stream-runtime.ts), and the
 * response is read back from the bytes it wrote: the JSON prelude, 8 NUL bytes, the body.
 */
import { afterAll, beforeAll } from 'vitest';
import { CloudGatewayAdapter } from '../../src/adapters/aws/index.js';
import { v2Event } from '../adapters/aws/fixtures.js';
import { installRuntime, invoke } from '../adapters/aws/stream-runtime.js';
import { type DriverFactory, MultiValueHeaders, makeResponse } from './driver.js';
import { conformanceSuite } from './suite.js';

let uninstall: (() => void) | undefined;
beforeAll(() => {
  uninstall = installRuntime();
});
afterAll(() => uninstall?.());

export const lambdaStreamDriver: DriverFactory = {
  name: 'Lambda Function URL streamHandler (response streaming)',
  skips: {
    'a well-formed X-Request-ID is echoed and a bad one replaced':
      "on Lambda the request id is the integration's (requestContext.requestId), not the client's X-Request-ID",
  },
  async open(app) {
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
    return {
      async send(request) {
        const { stream, done } = invoke(
          adapter.streamHandler,
          v2Event(request, { functionUrl: true }),
        );
        const { error } = await done;
        // A body that failed after the prelude went out is cut: the invocation fails, and the
        // client has the prelude and what was written before.
        let parsed: ReturnType<typeof stream.parsed>;
        try {
          parsed = stream.parsed();
        } catch (noPrelude) {
          throw error ?? noPrelude;
        }
        const { prelude, body } = parsed;
        const headers = new MultiValueHeaders();
        for (const [name, value] of Object.entries(prelude.headers)) headers.add(name, value);
        for (const cookie of prelude.cookies) headers.add('Set-Cookie', cookie);
        return makeResponse(prelude.statusCode, headers, new Uint8Array(body), error === undefined);
      },
      async close() {},
    };
  },
};

conformanceSuite(lambdaStreamDriver);
