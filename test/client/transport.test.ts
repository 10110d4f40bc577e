/**
 * What createClient() does around the call itself, the same in-process and over real HTTP on
 * 127.0.0.1: an abort after the headers still rejects, a redirect resolves as it was sent, and a
 * baseUrl the client cannot append paths to is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeHandle, serve } from '../../src/adapters/node/index.js';
import { createClient } from '../../src/client/index.js';
import { Response, RestApplication, silentLogger } from '../../src/index.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An application whose `/lines` sends 20 lines 100 ms apart; `stopped` counts ended streams. */
function linesApi() {
  const state = { stopped: 0 };
  async function* lines() {
    try {
      for (let line = 1; line <= 20; line++) {
        yield `line ${line}\n`;
        await sleep(100);
      }
    } finally {
      state.stopped++;
    }
  }
  const app = new RestApplication({ logger: silentLogger }).withRoutes((r) => [
    r.get('/lines', () => new Response(200, lines(), { contentType: 'text/plain' })),
    r
      .post('/notes', () => new Response(303, null, { headers: { Location: '/notes/1' } }))
      .returns(303),
    r.get('/notes/{id}', ({ id }) => ({ id })),
  ]);
  return { app, state };
}

type Api = ReturnType<typeof linesApi>['app'];

let server: ServeHandle;
const served = linesApi();
beforeAll(async () => {
  server = await serve(served.app, { port: 0, host: '127.0.0.1', handleSignals: false });
});
afterAll(async () => {
  await server.close();
});

const ways = [
  [
    'in-process',
    () => {
      const { app, state } = linesApi();
      return { client: createClient<Api>({ app }), state };
    },
  ],
  [
    'over HTTP',
    () => ({ client: createClient<Api>({ baseUrl: server.url }), state: served.state }),
  ],
] as const;

describe.each(ways)('createClient %s', (_way, make) => {
  it('rejects with the reason when the signal aborts while the body arrives; the stream stops', async () => {
    const { client, state } = make();
    const stoppedBefore = state.stopped;
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop now')), 350);
    const started = Date.now();
    await expect(client.get('/lines', { signal: controller.signal })).rejects.toThrow('stop now');
    // Rejected at the abort, not after the 2 s the whole body takes.
    expect(Date.now() - started).toBeLessThan(1500);
    await expect.poll(() => state.stopped, { timeout: 1000 }).toBe(stoppedBefore + 1);
  });

  it('the whole body when nothing aborts', async () => {
    const { client } = make();
    const answer = await client.get('/lines');
    expect(answer.status).toBe(200);
    expect(String(answer.data).split('\n').filter(Boolean)).toHaveLength(20);
  }, 5000);

  it('a redirect resolves as sent: its status and Location, not the page it points to', async () => {
    const { client } = make();
    const answer = await client.post('/notes');
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/notes/1');
  });
});

describe('createClient baseUrl', () => {
  it.each([
    'http://127.0.0.1/api/v1?key=abc',
    'http://127.0.0.1/api/v1#top',
    'http://127.0.0.1/api/v1?',
    new URL('http://127.0.0.1/api?key=abc'),
  ])('refuses a query or fragment: %s', (baseUrl) => {
    expect(() => createClient<Api>({ baseUrl })).toThrow(TypeError);
    expect(() => createClient<Api>({ baseUrl })).toThrow(/query or fragment/);
  });

  it('keeps a path prefix, with or without a trailing slash', async () => {
    const calls: string[] = [];
    const fetch = async (request: Request) => {
      calls.push(request.url);
      return new globalThis.Response(null, { status: 204 });
    };
    for (const baseUrl of ['http://127.0.0.1/api/v1', 'http://127.0.0.1/api/v1/']) {
      await createClient<Api>({ baseUrl, fetch }).get('/notes/{id}', { params: { id: 1 } });
    }
    expect(calls).toEqual(['http://127.0.0.1/api/v1/notes/1', 'http://127.0.0.1/api/v1/notes/1']);
  });
});
