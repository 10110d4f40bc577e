/**
 * serve(): startup before listening, options and environment, timeouts, and a graceful
 * shutdown that lets accepted requests finish.
 */
import { spawn } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { connect, createServer as createNetServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type ServeHandle, serve } from '../../../src/adapters/node/index.js';
import { Response, RestApplication, silentLogger, sse } from '../../../src/index.js';
import { rawExchange, send, sleep, start } from './helpers.js';

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Whether something accepts TCP connections on the port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const opened: ServeHandle[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((handle) => handle.close()));
});

function slowApp(events: string[], delay = 400) {
  const app = new RestApplication({ logger: silentLogger });
  app.get('/slow', async () => {
    events.push('slow started');
    await sleep(delay);
    events.push('slow finished');
    return { slow: true };
  });
  app.get('/fast', () => ({ fast: true }));
  app.onShutdown(() => {
    events.push('shutdown');
  });
  return app;
}

describe('startup', () => {
  it('runs startup handlers before the port accepts connections', async () => {
    const port = await freePort();
    const seen: boolean[] = [];
    const app = new RestApplication({ logger: silentLogger }).onStartup('store', async () => {
      seen.push(await accepts(port));
      await sleep(50);
      seen.push(await accepts(port));
      return new Map<string, string>([['k', 'v']]);
    });
    app.get('/value', ({ store }) => ({ value: store.get('k') }));
    const handle = await serve(app, { port, host: '127.0.0.1', handleSignals: false });
    opened.push(handle);
    expect(seen).toEqual([false, false]);
    expect(await accepts(port)).toBe(true);
    const response = await send(handle.port, { path: '/value' });
    expect(JSON.parse(response.body.toString())).toEqual({ value: 'v' });
  });

  it('rejects when startup fails, and listens on nothing', async () => {
    const port = await freePort();
    const app = new RestApplication({ logger: silentLogger }).onStartup('db', () => {
      throw new Error('database unreachable');
    });
    await expect(serve(app, { port, handleSignals: false })).rejects.toThrow(
      'database unreachable',
    );
    expect(await accepts(port)).toBe(false);
  });

  it('rejects when a startup handler fails, after releasing what the ones before it opened', async () => {
    const events: string[] = [];
    const app = new RestApplication({ logger: silentLogger })
      .onStartup('pool', () => {
        events.push('pool opened');
        // A pool's timer keeps the process alive until it is closed.
        const timer = setInterval(() => undefined, 1_000);
        return { close: () => clearInterval(timer) };
      })
      .onStartup('cache', async () => {
        throw new Error('cache unreachable');
      })
      .onShutdown(({ pool }) => {
        pool.close();
        events.push('pool closed');
      })
      .onShutdown(({ cache }) => {
        events.push(`cache closed ${String(cache)}`);
      });
    await expect(serve(app, { port: 0, handleSignals: false })).rejects.toThrow(
      'cache unreachable',
    );
    // The handler needing the cache that was never made is skipped.
    expect(events).toEqual(['pool opened', 'pool closed']);
    expect(app.stopping).toBe(true);
  });

  it('rejects when an unknown dependency is injected, naming it', async () => {
    const app = new RestApplication({ logger: silentLogger });
    // biome-ignore lint/suspicious/noExplicitAny: the point is a name nothing registered.
    app.get('/x', ({ nowhere }: any) => nowhere);
    await expect(serve(app, { port: 0, handleSignals: false })).rejects.toThrow(/nowhere/);
  });

  it('picks a free port for port 0 and reports it', async () => {
    const handle = await start(slowApp([]));
    opened.push(handle);
    expect(handle.port).toBeGreaterThan(0);
    expect(handle.host).toBe('127.0.0.1');
    expect(handle.url).toBe(`http://127.0.0.1:${handle.port}`);
    expect((await fetch(`${handle.url}/fast`)).status).toBe(200);
  });

  it('takes PORT and HOST from the environment, and options over both', async () => {
    const saved = { PORT: process.env.PORT, HOST: process.env.HOST };
    try {
      const port = await freePort();
      process.env.PORT = String(port);
      process.env.HOST = '127.0.0.1';
      const fromEnv = await serve(slowApp([]), { handleSignals: false });
      opened.push(fromEnv);
      expect(fromEnv.port).toBe(port);
      expect(fromEnv.host).toBe('127.0.0.1');
      process.env.PORT = '1';
      process.env.HOST = '192.0.2.1';
      const fromOptions = await serve(slowApp([]), {
        port: 0,
        host: '127.0.0.1',
        handleSignals: false,
      });
      opened.push(fromOptions);
      expect(fromOptions.port).not.toBe(1);
      process.env.PORT = 'eighty';
      await expect(serve(slowApp([]), { handleSignals: false })).rejects.toThrow(
        /PORT must be an integer from 0 to 65535, got "eighty"/,
      );
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('defaults to 127.0.0.1:3000', async () => {
    const saved = { PORT: process.env.PORT, HOST: process.env.HOST };
    delete process.env.PORT;
    delete process.env.HOST;
    try {
      const handle = await serve(slowApp([]), { handleSignals: false });
      opened.push(handle);
      expect(handle.url).toBe('http://127.0.0.1:3000');
    } catch (error) {
      // Something else on this machine holds 3000; the attempt still shows the default.
      expect((error as NodeJS.ErrnoException).code).toBe('EADDRINUSE');
      expect((error as Error).message).toContain('127.0.0.1:3000');
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value !== undefined) process.env[name] = value;
      }
    }
  });

  it('rejects when the port is taken, after running the shutdown handlers', async () => {
    const first = await start(slowApp([]));
    opened.push(first);
    const events: string[] = [];
    const app = slowApp(events);
    await expect(
      serve(app, { port: first.port, host: '127.0.0.1', handleSignals: false }),
    ).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(events).toEqual(['shutdown']);
    // Shut down, it is not served again on another port (it could only answer 503).
    await expect(serve(app, { port: 0, host: '127.0.0.1', handleSignals: false })).rejects.toThrow(
      /this application was shut down/,
    );
    expect(app.stopping).toBe(true);
  });

  it('refuses TLS options Node cannot use before any startup handler runs', async () => {
    const events: string[] = [];
    const app = slowApp(events).onStartup('pool', () => {
      events.push('startup');
      return 'pool';
    });
    await expect(
      serve(app, {
        port: 0,
        host: '127.0.0.1',
        handleSignals: false,
        tls: { key: 'not a key', cert: 'not a certificate' },
      }),
    ).rejects.toThrow(/PEM|key|certificate/i);
    // Nothing was opened that a shutdown handler would have to release.
    expect(events).toEqual([]);
  });

  it('refuses a timeout longer than a Node timer keeps, which would fire at once', async () => {
    for (const name of ['shutdownTimeout', 'requestTimeout'] as const) {
      await expect(
        serve(slowApp([]), { port: 0, handleSignals: false, [name]: 3_000_000_000 }),
      ).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringContaining(name) });
    }
  });

  it("keeps every header line, a proxy's last X-Forwarded-For included, and refuses too many bytes", async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/count', ({ headers, request }) => ({
      lines: headers.getAll('x-a').length,
      client: request.remoteAddress,
    }));
    const handle = await start(app, { trustProxy: 1 });
    opened.push(handle);
    const ask = (lines: number) =>
      rawExchange(
        handle.port,
        `GET /count HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${'X-A: 1\r\n'.repeat(lines)}` +
          'X-Forwarded-For: 6.6.6.6\r\nX-Forwarded-For: 203.0.113.9\r\n\r\n',
      );
    const kept = await ask(1_500);
    expect(kept.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(JSON.parse(kept.slice(kept.indexOf('\r\n\r\n') + 4))).toEqual({
      lines: 1_500,
      client: '203.0.113.9',
    });
    expect((await ask(20_000)).split('\r\n')[0]).toBe(
      'HTTP/1.1 431 Request Header Fields Too Large',
    );
  });

  it('sets bounded header, request and keep-alive timeouts', async () => {
    const handle = await start(slowApp([]));
    opened.push(handle);
    expect(handle.server.headersTimeout).toBe(30_000);
    expect(handle.server.requestTimeout).toBe(120_000);
    expect(handle.server.keepAliveTimeout).toBe(5_000);
  });

  it('answers 408 and closes when a client dawdles over its headers', async () => {
    const handle = await start(slowApp([]), { headersTimeout: 300, requestTimeout: 1_000 });
    opened.push(handle);
    const began = Date.now();
    const reply = await rawExchange(handle.port, 'GET /fast HTTP/1.1\r\nHost: x\r\n', 5_000);
    expect(reply).toMatch(/^HTTP\/1\.1 408 /);
    expect(Date.now() - began).toBeLessThan(4_000);
  });
});

describe('shutdown', () => {
  it('lets an in-flight request finish across close(), then runs shutdown handlers', async () => {
    const events: string[] = [];
    const handle = await start(slowApp(events));
    const inFlight = send(handle.port, { path: '/slow' });
    while (!events.includes('slow started')) await sleep(5);
    const closing = handle.close();
    events.push('close called');
    await sleep(50);
    // No new connections once closing has begun.
    expect(await accepts(handle.port)).toBe(false);
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body.toString())).toEqual({ slow: true });
    await closing;
    expect(events).toEqual(['slow started', 'close called', 'slow finished', 'shutdown']);
    expect(handle.close()).toBe(closing);
  });

  it('asks a keep-alive client to close when its request finishes during shutdown', async () => {
    const events: string[] = [];
    const handle = await start(slowApp(events));
    const agent = new Agent({ keepAlive: true });
    try {
      const response = await new Promise<{ status: number; connection?: string }>(
        (resolve, reject) => {
          const outgoing = httpRequest(
            { host: '127.0.0.1', port: handle.port, path: '/slow', agent },
            (incoming) => {
              incoming.resume();
              incoming.on('end', () =>
                resolve({
                  status: incoming.statusCode ?? 0,
                  connection: incoming.headers.connection,
                }),
              );
            },
          );
          outgoing.on('error', reject);
          outgoing.end();
          void (async () => {
            while (!events.includes('slow started')) await sleep(5);
            void handle.close();
          })();
        },
      );
      expect(response).toEqual({ status: 200, connection: 'close' });
      await handle.close();
    } finally {
      agent.destroy();
    }
  });

  it('says Connection: close during shutdown even where a handler wrote keep-alive', async () => {
    const app = new RestApplication({ logger: silentLogger });
    let reached = false;
    app.get('/kept', async () => {
      reached = true;
      await sleep(200);
      return [{ kept: true }, 200, { Connection: 'keep-alive' }];
    });
    const handle = await start(app);
    const agent = new Agent({ keepAlive: true });
    try {
      const connection = await new Promise<string | undefined>((resolve, reject) => {
        const outgoing = httpRequest(
          { host: '127.0.0.1', port: handle.port, path: '/kept', agent },
          (incoming) => {
            incoming.resume();
            incoming.on('end', () => resolve(incoming.headers.connection));
          },
        );
        outgoing.on('error', reject);
        outgoing.end();
        void (async () => {
          while (!reached) await sleep(5);
          void handle.close();
        })();
      });
      expect(connection).toBe('close');
      await handle.close();
    } finally {
      agent.destroy();
    }
  });

  it('answers every pipelined request in flight, and says close only on the last answer', async () => {
    const ran: string[] = [];
    const app = new RestApplication({ logger: silentLogger });
    app.post('/a', async () => {
      await sleep(300);
      ran.push('a');
      return 'a done';
    });
    app.post('/b', async () => {
      await sleep(100);
      ran.push('b');
      return 'b done';
    });
    const handle = await start(app);
    const exchange = rawExchange(
      handle.port,
      'POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n' +
        'POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n',
      5_000,
    );
    await sleep(50);
    const closing = handle.close();
    const reply = await exchange;
    await closing;
    expect(ran).toEqual(['b', 'a']);
    const [first, second] = reply.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(first?.endsWith('\r\n\r\na done')).toBe(true);
    expect(first).not.toContain('Connection: close');
    expect(second).toMatch(/^HTTP\/1\.1 200 /);
    expect(second?.endsWith('\r\n\r\nb done')).toBe(true);
    expect(second).toContain('\r\nConnection: close\r\n');
  });

  it('does not wait for idle keep-alive connections', async () => {
    const handle = await start(slowApp([]));
    const agent = new Agent({ keepAlive: true });
    try {
      await new Promise<void>((resolve, reject) => {
        httpRequest({ host: '127.0.0.1', port: handle.port, path: '/fast', agent }, (incoming) => {
          incoming.resume();
          incoming.on('end', resolve);
        })
          .on('error', reject)
          .end();
      });
      const began = Date.now();
      await handle.close();
      expect(Date.now() - began).toBeLessThan(1_000);
    } finally {
      agent.destroy();
    }
  });

  it('does not wait for a connection that never sent a request (a preconnect)', async () => {
    const handle = await start(slowApp([]), { shutdownTimeout: 5_000 });
    const silent = connect(handle.port, '127.0.0.1');
    const closedByServer = new Promise<void>((resolve) => silent.once('close', () => resolve()));
    silent.on('error', () => undefined);
    await new Promise((resolve) => silent.once('connect', resolve));
    await sleep(50);
    const began = Date.now();
    await handle.close();
    // Far below the 5 s shutdownTimeout it used to wait out.
    expect(Date.now() - began).toBeLessThan(2_000);
    await closedByServer;
  });

  it('cuts requests still running after the grace period, then shuts down', async () => {
    const events: string[] = [];
    const handle = await start(slowApp(events, 60_000), { shutdownTimeout: 200 });
    const inFlight = send(handle.port, { path: '/slow' }).then(
      () => 'answered',
      (error: NodeJS.ErrnoException) => error.code ?? error.message,
    );
    while (!events.includes('slow started')) await sleep(5);
    const began = Date.now();
    await handle.close();
    expect(Date.now() - began).toBeLessThan(2_000);
    expect(await inFlight).toBe('ECONNRESET');
    expect(events).toContain('shutdown');
  });

  it('lets cut requests settle (signal aborted, stream finally run) before shutdown handlers', async () => {
    const events: string[] = [];
    const app = new RestApplication({ logger: silentLogger });
    app.get(
      '/rows',
      () =>
        new Response(
          200,
          (async function* () {
            try {
              for (;;) {
                yield 'row\n';
                await sleep(50);
              }
            } finally {
              await sleep(20);
              events.push('stream released');
            }
          })(),
        ),
    );
    app.get('/waits', async ({ signal }) => {
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
      await sleep(20);
      events.push('handler aborted');
      return 'late';
    });
    app.onShutdown(() => {
      events.push('shutdown');
    });
    const handle = await start(app, { shutdownTimeout: 200 });
    const clients = [
      rawExchange(handle.port, 'GET /rows HTTP/1.1\r\nHost: x\r\n\r\n', 5_000),
      rawExchange(handle.port, 'GET /waits HTTP/1.1\r\nHost: x\r\n\r\n', 5_000),
    ];
    await sleep(150);
    await handle.close();
    events.push('closed');
    await Promise.all(clients);
    expect(events.slice(0, 2).sort()).toEqual(['handler aborted', 'stream released']);
    expect(events.slice(2)).toEqual(['shutdown', 'closed']);
  });

  it("waits for an sse() source's finally, as for a plain stream's, before shutdown handlers", async () => {
    const events: string[] = [];
    const app = new RestApplication({ logger: silentLogger });
    app.get('/events', () =>
      sse(
        (async function* () {
          try {
            for (;;) {
              yield 'tick';
              await sleep(300);
            }
          } finally {
            await sleep(20);
            events.push('events released');
          }
        })(),
      ),
    );
    app.onShutdown(() => {
      events.push('shutdown');
    });
    const handle = await start(app, { shutdownTimeout: 5_000 });
    const client = connect(handle.port, '127.0.0.1');
    client.on('error', () => undefined);
    const firstEvent = new Promise((resolve) => client.once('data', resolve));
    client.write('GET /events HTTP/1.1\r\nHost: x\r\n\r\n');
    await firstEvent;
    client.destroy();
    await sleep(50);
    await handle.close();
    expect(events).toEqual(['events released', 'shutdown']);
  });

  it('does not let a cut request that never settles hold shutdown', async () => {
    const events: string[] = [];
    const app = new RestApplication({ logger: silentLogger });
    app.get('/stuck', () => new Promise<string>(() => {}));
    app.onShutdown(() => {
      events.push('shutdown');
    });
    const handle = await start(app, { shutdownTimeout: 100 });
    const client = rawExchange(handle.port, 'GET /stuck HTTP/1.1\r\nHost: x\r\n\r\n', 5_000);
    await sleep(50);
    const began = Date.now();
    await handle.close();
    // shutdownTimeout, then at most the settling grace after the cut (docs/node.md "Shutdown").
    expect(Date.now() - began).toBeLessThan(2_000);
    expect(events).toEqual(['shutdown']);
    expect(await client).toBe('');
  });

  /** Starts the serve-signal fixture and resolves with its URL once it listens. */
  async function startSignalFixture(env: Record<string, string> = {}) {
    const fixture = fileURLToPath(new URL('./fixtures/serve-signal.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    const fixtureRun = { child, output: '', exited: Promise.resolve<number | null>(null), url: '' };
    const collect = (chunk: Buffer) => {
      fixtureRun.output += chunk.toString();
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    fixtureRun.exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      while (!/listening (\S+)/.test(fixtureRun.output)) {
        if (child.exitCode !== null) throw new Error(`fixture exited early:\n${fixtureRun.output}`);
        await sleep(20);
      }
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
    fixtureRun.url = (/listening (\S+)/.exec(fixtureRun.output) as RegExpExecArray)[1] as string;
    return fixtureRun;
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`shuts down gracefully on ${signal} and the process exits by itself`, async () => {
      const fixtureRun = await startSignalFixture();
      try {
        const inFlight = fetch(`${fixtureRun.url}/slow`).then((response) => response.json());
        await sleep(200);
        fixtureRun.child.kill(signal);
        expect(await inFlight).toEqual({ slow: true });
        expect(await fixtureRun.exited).toBe(0);
        expect(fixtureRun.output).toContain('shutdown handlers ran');
      } finally {
        if (fixtureRun.child.exitCode === null) fixtureRun.child.kill('SIGKILL');
      }
    }, 20_000);
  }

  it('exits with status 1 by itself when a shutdown after a signal fails', async () => {
    const fixtureRun = await startSignalFixture({ FAIL_SHUTDOWN: '1' });
    try {
      fixtureRun.child.kill('SIGTERM');
      expect(await fixtureRun.exited).toBe(1);
      expect(fixtureRun.output).toContain('shutdown handlers ran');
    } finally {
      if (fixtureRun.child.exitCode === null) fixtureRun.child.kill('SIGKILL');
    }
  }, 20_000);
});
