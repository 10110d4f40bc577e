/**
 * What a Fetch runtime passes after the request: Cloudflare Workers' `env` and `ctx`, Deno's
 * connection `info`, Bun's `server`. They are injectable as `fetchEnv` and `fetchContext`, and
 * the client's address is read from Deno's and Bun's. Deno and Bun do not run here: their
 * arguments are built as their documentation shapes them; the Node server below is real.
 */
import { describe, expect, it } from 'vitest';
import { FetchAdapter } from '../../../src/adapters/fetch/index.js';
import { RestApplication, SetupError } from '../../../src/index.js';
import { listenFetch } from './fetch-server.js';

/** An application whose routes report what they were given. */
function buildApp() {
  const app = new RestApplication();
  app.get('/runtime', ({ fetchEnv, fetchContext, request }) => ({
    env: fetchEnv === undefined ? 'none' : typeof fetchEnv,
    context: fetchContext === undefined ? 'none' : typeof fetchContext,
    address: request.remoteAddress ?? 'none',
  }));
  return app;
}

describe('a Workers-style fetch(request, env, ctx)', () => {
  it('injects the bindings and the execution context the runtime passed', async () => {
    const stored = new Map<string, string>([['greeting', 'hello from KV']]);
    const env = { NOTES: { get: async (key: string) => stored.get(key) ?? null } };
    const waited: Promise<unknown>[] = [];
    const ctx = { waitUntil: (promise: Promise<unknown>) => waited.push(promise) };
    // The binding through a dependency, the context in the handler itself.
    const app = new RestApplication().dependency(
      'notes',
      ({ fetchEnv }) => (fetchEnv as typeof env).NOTES,
    );
    app.get('/notes/{key}', async ({ key, notes, fetchContext }) => {
      (fetchContext as typeof ctx).waitUntil(Promise.resolve('logged'));
      return { key, value: await notes.get(key) };
    });
    const adapter = new FetchAdapter(app);

    const response = await adapter.fetch(
      new Request('https://worker.example/notes/greeting'),
      env,
      ctx,
    );

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ key: 'greeting', value: 'hello from KV' });
    expect(waited).toHaveLength(1);
    expect(await waited[0]).toBe('logged');
  });

  it('gives undefined for both when the runtime passes nothing, and in app.request()', async () => {
    const app = buildApp();
    const fetched = await new FetchAdapter(app).fetch(new Request('http://x.example/runtime'));
    expect(await fetched.json()).toEqual({ env: 'none', context: 'none', address: 'none' });
    const inProcess = await app.request('/runtime');
    expect(JSON.parse(inProcess.body as string)).toEqual({
      env: 'none',
      context: 'none',
      address: 'none',
    });
  });

  it('keeps the two names for the runtime: a dependency or path parameter of that name is refused', () => {
    const app = new RestApplication();
    expect(() => app.dependency('fetchEnv', () => 1)).toThrow(SetupError);
    expect(() => app.get('/envs/{fetchContext}', () => 'x')).toThrow(/fetchContext/);
  });
});

describe("the client's address from the runtime's argument", () => {
  it("reads Deno's info.remoteAddr", async () => {
    const info = {
      remoteAddr: { transport: 'tcp', hostname: '203.0.113.7', port: 51234 },
      completed: Promise.resolve(),
    };
    const response = await new FetchAdapter(buildApp()).fetch(
      new Request('http://deno.example/runtime'),
      info,
    );
    expect(await response.json()).toEqual({
      env: 'object',
      context: 'none',
      address: '203.0.113.7',
    });
  });

  it("asks Bun's server.requestIP() for this request", async () => {
    const asked: Request[] = [];
    const server = {
      requestIP(request: Request) {
        asked.push(request);
        return { address: '2001:db8::1', family: 'IPv6', port: 40000 };
      },
    };
    const request = new Request('http://bun.example/runtime');
    const response = await new FetchAdapter(buildApp()).fetch(request, server);
    expect(await response.json()).toEqual({
      env: 'object',
      context: 'none',
      address: '2001:db8::1',
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toBe(request);
  });

  it('answers without an address when the argument only looks like one', async () => {
    const adapter = new FetchAdapter(buildApp());
    const cases: unknown[] = [
      // A Workers binding that happens to be named like Bun's method, and one that throws.
      { requestIP: () => null },
      {
        requestIP: () => {
          throw new Error('not Bun');
        },
      },
      { remoteAddr: { hostname: 42 } },
      { remoteAddr: null },
      // A Workers binding named like @hono/node-server's request (a queue, say).
      { incoming: { send: () => undefined } },
      { incoming: { socket: null } },
      'a string',
      null,
    ];
    for (const env of cases) {
      const response = await adapter.fetch(new Request('http://x.example/runtime'), env);
      expect(response.status).toBe(200);
      expect(((await response.json()) as { address: string }).address).toBe('none');
    }
  });
});

describe('over real HTTP through a Fetch-style Node server', () => {
  it("hands the handler the server's own second argument, and reads the address from it", async () => {
    const app = new RestApplication();
    // @hono/node-server passes `{ incoming, outgoing }`: Node's own request and response.
    app.get('/socket', ({ fetchEnv, request }) => {
      const { incoming } = fetchEnv as { incoming: { socket: { remoteAddress: string } } };
      return { socket: incoming.socket.remoteAddress, request: request.remoteAddress };
    });
    const { origin, close } = await listenFetch(new FetchAdapter(app).fetch);
    try {
      const response = await fetch(`${origin}/socket`);
      // The client's address is read from that socket too.
      expect(await response.json()).toEqual({ socket: '127.0.0.1', request: '127.0.0.1' });
    } finally {
      await close();
    }
  });
});
