/**
 * The buffered Lambda handler cannot send an event stream (it never ends, and the result holds
 * the whole body): it answers 500, logs one line naming `streamHandler`, and the producer never
 * runs; so do `convertToRequest` and `convertFromResponse`, its two halves.
 */
import { expect, it } from 'vitest';
import { CloudGatewayAdapter } from '../../../src/adapters/aws/index.js';
import { RestApplication, sse } from '../../../src/index.js';
import { captureLogger, lambdaContext, readV2Result, v2Event } from './fixtures.js';

/** An application with an endless event stream at /events, and whether its producer started. */
function eventsApp() {
  const { logger, lines } = captureLogger();
  const app = new RestApplication({ logger });
  const state = { started: false };
  app.get('/events', () =>
    sse(
      (async function* () {
        state.started = true;
        // Never ends: read whole, the result would never come.
        for (;;) yield 'tick';
      })(),
    ),
  );
  app.get('/plain', () => ({ ok: true }));
  const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
  return { app, adapter, lines, state };
}

it('refuses an event stream with a 500 and one log line naming streamHandler', async () => {
  const { adapter, lines, state } = eventsApp();
  const result = readV2Result(
    await adapter.handleEvent(
      v2Event({ method: 'GET', path: '/events', headers: { Accept: 'application/json' } }),
      lambdaContext(),
    ),
  );
  expect(result.status).toBe(500);
  expect(JSON.parse(new TextDecoder().decode(result.body))).toMatchObject({ statusCode: 500 });
  expect(state.started).toBe(false);
  const errors = lines.filter((line) => line.level === 'error');
  expect(errors).toHaveLength(1);
  expect(errors[0]?.message).toContain('streamHandler');
  const plain = readV2Result(
    await adapter.handleEvent(v2Event({ method: 'GET', path: '/plain' }), lambdaContext()),
  );
  expect(plain.status).toBe(200);
});

it('refuses an event stream the same way through convertToRequest and convertFromResponse', async () => {
  const { app, adapter, lines, state } = eventsApp();
  const event = v2Event({ method: 'GET', path: '/events' });
  const request = adapter.convertToRequest(event, lambdaContext());
  const result = readV2Result(await adapter.convertFromResponse(await app.execute(request), event));
  expect(result.status).toBe(500);
  expect(state.started).toBe(false);
  expect(lines.filter((line) => line.level === 'error')[0]?.message).toContain('streamHandler');
});
