/**
 * The request's signal and server-sent events through every driver (docs/streams.md):
 * `requestTimeout` answers 503 and fires the signal, and cuts a stream it stops (the client sees
 * the body incomplete); an event stream arrives in the
 * event-stream format on every adapter that streams.
 */
import { expect } from 'vitest';
import { Response, RestApplication, silentLogger, sse } from '../../../src/index.js';
import type { CasesModule } from '../suite.js';
import { conformanceTest, get } from './helpers.js';

function buildApp() {
  const app = new RestApplication({ logger: silentLogger, requestTimeout: 150 });
  // Answers only once its signal fires, which only the timeout makes it do here.
  app.get(
    '/streams/slow',
    ({ signal }) =>
      new Promise((resolve) => {
        signal.addEventListener('abort', () => resolve({ reason: String(signal.reason) }));
      }),
  );
  // Ready at once, with a body that would take two seconds: the timer cuts it short.
  app.get(
    '/streams/endless',
    () =>
      new Response(
        200,
        (async function* () {
          for (let i = 0; i < 200; i++) {
            yield `${i}\n`;
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
          yield 'finished\n';
        })(),
        { contentType: 'text/plain' },
      ),
  );
  app.get('/streams/events', ({ lastEventId }) =>
    sse(
      (async function* () {
        yield { event: 'greeting', id: '1', data: `after ${lastEventId ?? 'nothing'}` };
        yield 'two\nlines';
      })(),
    ),
  );
  return app;
}

export const streamsCases: CasesModule = {
  title: 'signals and event streams',
  app: buildApp,
  cases(context) {
    conformanceTest(context, 'requestTimeout: a slow answer is 503', async (send) => {
      const response = await send(get('/streams/slow', { accept: 'application/json' }));
      expect(response.status).toBe(503);
      expect(response.json()).toMatchObject({ statusCode: 503, path: '/streams/slow' });
    });

    conformanceTest(
      context,
      'requestTimeout: a stream a synchronous handler returned is cut when it expires',
      async (send) => {
        const response = await send(get('/streams/endless'));
        expect(response.status).toBe(200);
        const text = response.text();
        // What was produced in time arrives; the cut shows, so no client takes it for the whole.
        expect(text.startsWith('0\n1\n')).toBe(true);
        expect(text).not.toContain('finished');
        expect(response.complete).toBe(false);
      },
    );

    conformanceTest(context, 'sse: an event stream in the event-stream format', async (send) => {
      const response = await send(get('/streams/events', { 'last-event-id': '0' }));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.text()).toBe(
        'event: greeting\nid: 1\ndata: after 0\n\ndata: two\ndata: lines\n\n',
      );
    });
  },
};
