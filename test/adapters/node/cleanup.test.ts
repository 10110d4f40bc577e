/**
 * A request counts (`NodeAdapter.inFlight`, which `serve()` waits for before the shutdown
 * handlers) until its own code is done, and a client that goes away is heard whatever its
 * response was waiting for: a pipelined response queued behind another, a stream stopped by
 * the request's signal, a handler still running when its timeout was answered. Also what a
 * client must be able to tell: an HTTP/1.0 body that failed midway ends with a reset, and
 * taking Node's own request stream asks a client that expects 100-continue for the body.
 * Real sockets on 127.0.0.1 throughout (docs/node.md).
 */
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { PassThrough, Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeAdapter, NodeRequestBody } from '../../../src/adapters/node/index.js';
import { HttpError, Response, RestApplication, silentLogger, sse } from '../../../src/index.js';
import { sleep } from './helpers.js';

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

async function listen(app: RestApplication): Promise<{ adapter: NodeAdapter; port: number }> {
  const adapter = new NodeAdapter(app);
  const server = createServer(adapter.listener);
  server.on('checkContinue', adapter.checkContinueListener);
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { adapter, port: (server.address() as AddressInfo).port };
}

function rawSocket(port: number): Socket {
  const socket = connect(port, '127.0.0.1');
  socket.on('data', () => undefined);
  socket.on('error', () => undefined);
  return socket;
}

/** Polls until `check` holds (or `ms` pass); returns whether it did. */
async function eventually(check: () => boolean, ms = 2_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await sleep(10);
  }
  return check();
}

/** A generator of big chunks that records when its `finally` has run, after `releaseMs`. */
function exporter(events: string[], releaseMs = 0) {
  const chunk = Buffer.alloc(256 * 1024, 97);
  return async function* () {
    try {
      for (let i = 0; i < 40; i++) yield chunk;
    } finally {
      if (releaseMs > 0) await sleep(releaseMs);
      events.push('released');
    }
  };
}

describe('a client that goes away', () => {
  it('tears down a pipelined response still queued behind another', async () => {
    const events: string[] = [];
    const app = new RestApplication({ logger: silentLogger });
    app.get('/slow', async () => {
      await sleep(300);
      return 'slow';
    });
    app.get('/export', () => exporter(events)());
    const { adapter, port } = await listen(app);
    const socket = rawSocket(port);
    socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /export HTTP/1.1\r\nHost: x\r\n\r\n');
    await sleep(100);
    socket.destroy();
    expect(await eventually(() => adapter.inFlight === 0)).toBe(true);
    expect(events).toEqual(['released']);
  });

  it('fires the signal of a pipelined request still queued behind another', async () => {
    const app = new RestApplication({ logger: silentLogger });
    let aborted = false;
    app.get('/slow', async () => {
      await sleep(300);
      return 'slow';
    });
    app.get('/wait', ({ signal }) => {
      signal.addEventListener('abort', () => {
        aborted = true;
      });
      return new Promise((done) => setTimeout(() => done('late'), 3_000));
    });
    const { port } = await listen(app);
    const socket = rawSocket(port);
    socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /wait HTTP/1.1\r\nHost: x\r\n\r\n');
    await sleep(100);
    socket.destroy();
    expect(await eventually(() => aborted, 1_000)).toBe(true);
  });

  it('takes twenty pipelined requests on one connection without a listener warning', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/slow', async () => {
      await sleep(100);
      return 'slow';
    });
    app.get('/n', () => 'n');
    const { port } = await listen(app);
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning.name);
    };
    process.on('warning', onWarning);
    try {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
      });
      socket.write(
        `GET /slow HTTP/1.1\r\nHost: x\r\n\r\n${'GET /n HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(20)}`,
      );
      expect(await eventually(() => text.split('HTTP/1.1 200').length === 22)).toBe(true);
      socket.destroy();
      // Node emits its warning on the next tick after the listener that crossed the limit.
      await sleep(50);
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('counts a stream the signal stopped until its finally has run', async () => {
    const events: string[] = [];
    // requestTimeout binds every stream to the request's signal.
    const app = new RestApplication({ logger: silentLogger, requestTimeout: 30_000 });
    app.get('/export', () => exporter(events, 200)());
    const { adapter, port } = await listen(app);
    const socket = rawSocket(port);
    socket.pause();
    socket.write('GET /export HTTP/1.1\r\nHost: x\r\n\r\n');
    await sleep(100);
    socket.destroy();
    const seen: Array<[number, number]> = [];
    await eventually(() => {
      seen.push([adapter.inFlight, events.length]);
      return adapter.inFlight === 0;
    });
    expect(adapter.inFlight).toBe(0);
    // Never 0 in flight while the finally had not run yet.
    expect(seen.filter(([inFlight, released]) => inFlight === 0 && released === 0)).toEqual([]);
    expect(events).toEqual(['released']);
  });
});

/**
 * A stream body that sent one chunk and then waits for a next that never comes (an idle
 * upstream, an event feed between events), recording when it is let go.
 */
function idleSource(kind: 'ReadableStream' | 'Readable', events: string[]) {
  const first = Buffer.alloc(2_000, 97);
  if (kind === 'Readable') {
    const stream = new PassThrough();
    stream.write(first);
    stream.on('close', () => events.push('released'));
    return stream;
  }
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(first);
    },
    cancel() {
      events.push('released');
    },
  });
}

describe('a client that goes away while the stream body waits for its next chunk', () => {
  const cases = (['ReadableStream', 'Readable'] as const).flatMap((kind) =>
    [false, true].flatMap((compressed) =>
      [false, true].map((withSignal) => ({ kind, compressed, withSignal })),
    ),
  );
  it.each(cases)(
    'lets go of a $kind at once (compressed: $compressed, signal injected: $withSignal)',
    async ({ kind, compressed, withSignal }) => {
      const events: string[] = [];
      const app = new RestApplication({ logger: silentLogger });
      const body = () => new Response(200, idleSource(kind, events), { contentType: 'text/plain' });
      const route = withSignal
        ? app.get('/feed', ({ signal }) => (signal.aborted ? 'gone' : body()))
        : app.get('/feed', body);
      if (compressed) route.compress();
      const { adapter, port } = await listen(app);
      const socket = rawSocket(port);
      const firstBytes = new Promise((resolve) => socket.once('data', resolve));
      socket.write('GET /feed HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n');
      await firstBytes;
      await sleep(50);
      socket.destroy();
      // The request stops counting, so a shutdown does not wait for its timeout.
      expect(await eventually(() => adapter.inFlight === 0)).toBe(true);
      expect(events).toEqual(['released']);
    },
  );
});

/**
 * An event feed that sent one event and then waits for the next (a message bus between
 * messages), as `sse()` takes it: a stream of event objects, recording when it is let go.
 */
function idleFeed(kind: 'ReadableStream' | 'Readable', events: string[]) {
  const first = { event: 'hello', data: 'first' };
  if (kind === 'Readable') {
    const stream = new Readable({ objectMode: true, read() {} });
    stream.push(first);
    stream.on('close', () => events.push('released'));
    return stream;
  }
  return new ReadableStream({
    start(controller) {
      controller.enqueue(first);
    },
    cancel() {
      events.push('released');
    },
  });
}

describe('a client that goes away while an event stream waits for its next event', () => {
  const cases = (['ReadableStream', 'Readable'] as const).flatMap((kind) =>
    [false, true].map((compressed) => ({ kind, compressed })),
  );
  it.each(cases)(
    'lets go of an sse() feed that is a $kind at once (compressed: $compressed)',
    async ({ kind, compressed }) => {
      const events: string[] = [];
      const app = new RestApplication({ logger: silentLogger });
      const route = app.get('/events', () => sse(idleFeed(kind, events), { keepAlive: 60_000 }));
      if (compressed) route.compress();
      const { adapter, port } = await listen(app);
      const socket = rawSocket(port);
      let received = '';
      const firstEvent = new Promise<void>((resolve) => {
        socket.on('data', (chunk: Buffer) => {
          received += chunk.toString('latin1');
          if (compressed || received.includes('data: first')) resolve();
        });
      });
      socket.write('GET /events HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n');
      await firstEvent;
      await sleep(50);
      socket.destroy();
      // The request stops counting, so a shutdown does not wait for its timeout.
      expect(await eventually(() => adapter.inFlight === 0)).toBe(true);
      expect(events).toEqual(['released']);
    },
  );
});

describe('a timeout answered while the handler still runs', () => {
  it('counts the handler until it settles', async () => {
    const events: string[] = [];
    const app = new RestApplication({ logger: silentLogger, requestTimeout: 100 });
    app.get('/slow', async () => {
      try {
        await sleep(500);
        return 'done';
      } finally {
        events.push('handler settled');
      }
    });
    const { adapter, port } = await listen(app);
    const response = await fetch(`http://127.0.0.1:${port}/slow`);
    expect(response.status).toBe(503);
    await response.arrayBuffer();
    expect(adapter.inFlight).toBe(1);
    expect(events).toEqual([]);
    expect(await eventually(() => adapter.inFlight === 0)).toBe(true);
    expect(events).toEqual(['handler settled']);
  });
});

describe('an HTTP/1.0 body that fails midway', () => {
  it('ends with a reset when nothing frames it (RFC 9112 §6.3), with a clean close when a length does', async () => {
    const app = new RestApplication({ logger: silentLogger });
    const rows = () =>
      (async function* () {
        yield 'row 1\n';
        yield 'row 2\n';
        throw new Error('database went away');
      })();
    app.get('/report', rows);
    // A declared length frames the body on either version: shorter than it, it reads as cut
    // short once the connection closes, so the connection closes cleanly (RFC 9112 §6.3).
    app.get('/sized', () => new Response(200, rows(), { headers: { 'Content-Length': '100' } }));
    const { port } = await listen(app);
    for (const [path, version, expected] of [
      ['/report', '1.0', 'reset'],
      ['/report', '1.1', 'closed'],
      ['/sized', '1.0', 'closed'],
      ['/sized', '1.1', 'closed'],
    ] as const) {
      const outcome = await new Promise<{ how: string; text: string }>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        let text = '';
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString('latin1');
        });
        socket.on('error', (error: NodeJS.ErrnoException) =>
          resolve({ how: error.code === 'ECONNRESET' ? 'reset' : String(error.code), text }),
        );
        socket.on('end', () => resolve({ how: 'closed', text }));
        socket.write(`GET ${path} HTTP/${version}\r\nHost: x\r\n\r\n`);
      });
      expect(outcome.how, `${path} ${version}`).toBe(expected);
      // What was produced before the failure arrives.
      expect(outcome.text, version).toContain('row 2');
      if (path === '/report' && version === '1.1') {
        // Chunked: the missing last chunk says it is incomplete.
        expect(outcome.text).not.toContain('\r\n0\r\n\r\n');
      }
    }
  });
});

describe("Node's own request stream", () => {
  it('asks a client that expects 100-continue for the body when a handler takes it', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.put('/uploads/{name}', async ({ request }) => {
      if (!(request.body instanceof NodeRequestBody)) throw new HttpError(400);
      let bytes = 0;
      await pipeline(
        request.body.message,
        new Writable({
          write(chunk: Buffer, _encoding, done) {
            bytes += chunk.length;
            done();
          },
        }),
      );
      return { bytes };
    });
    const { port } = await listen(app);
    const body = Buffer.alloc(100_000, 1);
    const started = Date.now();
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      socket.on('error', reject);
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
        // The client waits for the interim answer before it sends anything.
        if (text.startsWith('HTTP/1.1 100 Continue\r\n\r\n') && !socket.writableEnded) {
          socket.end(body);
        }
        if (text.includes('"bytes"')) resolve(text);
      });
      socket.write(
        `PUT /uploads/a.bin HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
      );
      setTimeout(() => resolve(text), 2_000);
    });
    expect(reply.startsWith('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200')).toBe(true);
    expect(reply).toContain('{"bytes":100000}');
    // One interim answer, however often the handler takes the stream.
    expect(reply.split('100 Continue')).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});

describe('a compressed file body nobody sends', () => {
  it('closes its file: an answer after its timeout, and one whose client left first', async () => {
    const { mkdtemp, readdir, readlink, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const directory = await mkdtemp(join(tmpdir(), 'restmachine-unsent-'));
    const path = join(directory, 'big.txt');
    await writeFile(path, 'hello world\n'.repeat(10_000));
    // The descriptors this process holds open on the file (Linux lists them under /proc).
    const openOnFile = async () => {
      let count = 0;
      for (const fd of await readdir('/proc/self/fd')) {
        if ((await readlink(`/proc/self/fd/${fd}`).catch(() => '')) === path) count++;
      }
      return count;
    };
    const app = new RestApplication({ logger: silentLogger, requestTimeout: 100 }).compress();
    app.get('/late', async () => {
      await sleep(200);
      return Response.file(path);
    });
    app.get('/slow', async () => {
      await sleep(30);
      return Response.file(path);
    });
    const { adapter, port } = await listen(app);
    for (const target of ['/late', '/slow']) {
      for (let i = 0; i < 3; i++) {
        const socket = rawSocket(port);
        socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n`);
        // /slow: the client leaves before the answer is ready; /late: it waits for the 503.
        await sleep(target === '/slow' ? 5 : 150);
        socket.destroy();
      }
    }
    await sleep(300);
    expect(await eventually(() => adapter.inFlight === 0)).toBe(true);
    expect(await openOnFile()).toBe(0);
  });
});
