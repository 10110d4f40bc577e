/**
 * Over real HTTP on 127.0.0.1: server-sent events arrive as they are produced, a client that
 * goes away stops the producer and fires the request's signal, and `requestTimeout` answers 503.
 */

import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { setTimeout as wait } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServeHandle } from '../../../src/adapters/node/index.js';
import { RestApplication, sse } from '../../../src/index.js';
import { memoryLogger, send, sleep, start } from './helpers.js';

let handle: ServeHandle | undefined;

afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

/** Opens a request and hands back the response as soon as its headers arrive. */
function open(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ client: ClientRequest; incoming: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const client = httpRequest({ host: '127.0.0.1', port, path, headers, agent: false });
    client.on('response', (incoming) => resolve({ client, incoming }));
    client.on('error', reject);
    client.end();
  });
}

/** The next chunk of `incoming`, as text. */
function nextChunk(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve) =>
    incoming.once('data', (chunk: Buffer) => resolve(chunk.toString())),
  );
}

async function until(check: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

describe('server-sent events over HTTP', () => {
  it('sends each event as it is produced', async () => {
    const app = new RestApplication({ logger: memoryLogger().logger });
    let release: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    app.get('/events', ({ lastEventId }) =>
      sse(
        (async function* () {
          yield { id: '1', data: `resumed after ${lastEventId}` };
          await gate;
          yield { id: '2', event: 'second', data: 'line one\nline two' };
        })(),
      ),
    );
    handle = await start(app);
    const { incoming } = await open(handle.port, '/events', { 'Last-Event-ID': '0' });
    expect(incoming.statusCode).toBe(200);
    expect(incoming.headers['content-type']).toBe('text/event-stream');
    expect(incoming.headers['cache-control']).toBe('no-cache');
    // The first event is here while the producer still waits for the gate.
    expect(await nextChunk(incoming)).toBe('id: 1\ndata: resumed after 0\n\n');
    const ended = new Promise<string>((resolve) => {
      let rest = '';
      incoming.on('data', (chunk: Buffer) => {
        rest += chunk.toString();
      });
      incoming.on('end', () => resolve(rest));
    });
    release?.();
    expect(await ended).toBe('event: second\nid: 2\ndata: line one\ndata: line two\n\n');
  });

  it('reads back as text an event id an EventSource returns as UTF-8 in Last-Event-ID', async () => {
    const app = new RestApplication({ logger: memoryLogger().logger });
    app.get('/events', ({ lastEventId }) =>
      sse(
        (async function* () {
          yield { id: 'été', data: `after ${lastEventId}` };
        })(),
      ),
    );
    handle = await start(app);
    // The id goes out as UTF-8, and a browser sends it back as those octets (HTML §9.2.4).
    const first = await send(handle.port, { path: '/events' });
    expect(first.body.toString('utf8')).toBe('id: été\ndata: after undefined\n\n');
    const sentId = first.body.subarray(4, first.body.indexOf(10)).toString('latin1');
    const again = await send(handle.port, {
      path: '/events',
      headers: { 'Last-Event-ID': sentId },
    });
    expect(again.body.toString('utf8')).toBe('id: été\ndata: after été\n\n');
  });

  it('sends the status and headers before the first event is produced', async () => {
    const app = new RestApplication({ logger: memoryLogger().logger });
    let release: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    app.get('/quiet', () =>
      sse(
        (async function* () {
          await gate; // opened only once the client has the headers
          yield 'first';
        })(),
      ),
    );
    handle = await start(app);
    const { incoming } = await open(handle.port, '/quiet');
    expect(incoming.statusCode).toBe(200);
    expect(incoming.headers['content-type']).toBe('text/event-stream');
    const first = nextChunk(incoming);
    release?.();
    expect(await first).toBe('data: first\n\n');
  });

  it('stops the producer (its finally runs) when the client disconnects', async () => {
    const app = new RestApplication({ logger: memoryLogger().logger });
    let produced = 0;
    let finished = false;
    app.get('/events', () =>
      sse(
        (async function* () {
          try {
            for (;;) {
              yield String(produced++);
              await sleep(20);
            }
          } finally {
            finished = true;
          }
        })(),
        { keepAlive: 1_000 },
      ),
    );
    handle = await start(app);
    const { client, incoming } = await open(handle.port, '/events');
    expect(await nextChunk(incoming)).toBe('data: 0\n\n');
    client.destroy();
    await until(() => finished);
    const count = produced;
    await sleep(100);
    expect(produced).toBe(count);
  });
});

/**
 * A read that counts the handlers attached to it: what keeps the callers waiting on it (and
 * their closures) alive until it settles.
 */
class WatchedRead<T> extends Promise<T> {
  static handlers = 0;
  // Promises derived from this one (`then`'s result) are plain ones, and count nothing.
  static override get [Symbol.species]() {
    return Promise;
  }
  // biome-ignore lint/suspicious/noThenProperty: counting the handlers is the point of it.
  override then<A = T, B = never>(
    onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    WatchedRead.handlers += 1;
    return super.then(onFulfilled, onRejected);
  }
}

describe('keep-alive comments of an idle event stream', () => {
  it('wait on the pending read with one handler, however many comments go out', async () => {
    // The first event, then a read that never settles: the feed is idle from then on.
    const idle = new WatchedRead<IteratorResult<string>>(() => undefined);
    let reads = 0;
    const feed: AsyncIterable<string> = {
      [Symbol.asyncIterator]: () => ({
        next: () => (reads++ === 0 ? Promise.resolve({ done: false, value: 'first' }) : idle),
        return: () => Promise.resolve({ done: true, value: undefined }),
      }),
    };
    const app = new RestApplication({ logger: memoryLogger().logger });
    app.get('/events', () => sse(feed, { keepAlive: 1 }));
    handle = await start(app);
    const { client, incoming } = await open(handle.port, '/events');
    let text = '';
    incoming.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    const comments = () => text.split(': keep-alive\n\n').length - 1;
    await until(() => comments() >= 100, 10_000);
    client.destroy();
    expect(text.startsWith('data: first\n\n')).toBe(true);
    expect(reads).toBe(2);
    // One handler for the idle read, not one more per comment sent while it waited.
    expect(WatchedRead.handlers).toBe(1);
  });
});

describe('the request signal over HTTP', () => {
  it('fires when the client goes away before the answer', async () => {
    const app = new RestApplication({ logger: memoryLogger().logger });
    let seen: AbortSignal | undefined;
    let arrived: (() => void) | undefined;
    const handlerRunning = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    app.get(
      '/slow',
      ({ signal }) =>
        new Promise((resolve) => {
          seen = signal;
          arrived?.();
          signal.addEventListener('abort', () => resolve('too late'));
        }),
    );
    handle = await start(app);
    const client = httpRequest({
      host: '127.0.0.1',
      port: handle.port,
      path: '/slow',
      agent: false,
    });
    client.on('error', () => undefined);
    client.end();
    await handlerRunning;
    expect(seen?.aborted).toBe(false);
    client.destroy();
    await until(() => seen?.aborted === true);
    expect((seen?.reason as DOMException | undefined)?.name).toBe('AbortError');
  });

  it('stays quiet for a request answered in full', async () => {
    const app = new RestApplication({ logger: memoryLogger().logger });
    let seen: AbortSignal | undefined;
    app.get('/quick', async ({ signal }) => {
      seen = signal;
      return 'done';
    });
    handle = await start(app);
    const response = await send(handle.port, { path: '/quick' });
    expect(response.body.toString()).toBe('done');
    await sleep(50);
    expect(seen?.aborted).toBe(false);
  });

  it('answers 503 when requestTimeout expires, and the handler sees its signal fire', async () => {
    const app = new RestApplication({ logger: memoryLogger().logger, requestTimeout: 50 });
    let seen: AbortSignal | undefined;
    app.get('/slow', async ({ signal }) => {
      seen = signal;
      await sleep(300);
      return 'late';
    });
    app.get('/fast', async () => 'fast');
    handle = await start(app);
    const slow = await send(handle.port, {
      path: '/slow',
      headers: { Accept: 'application/json' },
    });
    expect(slow.status).toBe(503);
    expect(JSON.parse(slow.body.toString())).toMatchObject({ statusCode: 503 });
    expect(seen?.aborted).toBe(true);
    expect((await send(handle.port, { path: '/fast' })).body.toString()).toBe('fast');
  });

  it('starts no handler after the timeout answered: a slow authorization hook leaves no order behind', async () => {
    const { lines, logger } = memoryLogger();
    const app = new RestApplication({ logger, requestTimeout: 50 }).authorized('user', async () => {
      await sleep(150);
      return { id: 'u1' };
    });
    const orders: string[] = [];
    let onRequestDone = false;
    app.post('/orders', ({ user }) => {
      orders.push(user.id);
      return [{ created: true }, 201];
    });
    app
      .post('/hooked', () => {
        orders.push('hooked');
        return 'ok';
      })
      .onRequest(async () => {
        await sleep(150);
        onRequestDone = true;
      });
    handle = await start(app);
    for (const path of ['/orders', '/hooked']) {
      const response = await send(handle.port, { method: 'POST', path });
      expect(response.status).toBe(503);
    }
    await until(() => onRequestDone);
    await sleep(150);
    expect(orders).toEqual([]);
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
    expect(lines.filter((line) => line.level === 'warn')).toHaveLength(2);
  });

  it('logs no error and runs no error handler for what the fired signal stopped', async () => {
    const { lines, logger } = memoryLogger();
    const app = new RestApplication({ logger, requestTimeout: 50 });
    const handled: number[] = [];
    app.errorHandler(({ error }) => {
      handled.push(error.statusCode);
      return [{ failed: error.message }, error.statusCode];
    });
    // As a `fetch(url, { signal })` to a slow upstream does: it rejects with the signal's reason.
    const upstream = (signal: AbortSignal) =>
      new Promise<string>((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason));
      });
    app.get('/search', ({ signal }) => upstream(signal));
    handle = await start(app);
    const response = await send(handle.port, { path: '/search' });
    expect(response.status).toBe(503);
    expect(JSON.parse(response.body.toString())).toEqual({
      failed: 'The request took longer than 50 ms',
    });
    await sleep(50);
    // The timeout's own 503 went through the error handler; the handler's rejection did not.
    expect(handled).toEqual([503]);
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
    expect(lines.map((line) => line.message)).toEqual([
      'Request timed out: no response within 50 ms; answering 503',
    ]);
  });

  it("logs no error for Node's AbortError of a call given the signal, whose cause is its reason", async () => {
    const { lines, logger } = memoryLogger();
    const app = new RestApplication({ logger, requestTimeout: 50 });
    let stopped: unknown;
    // timers/promises, events.once and the like reject with their own AbortError, the signal's
    // reason as its cause: what the signal stopped, no failure of the handler's own.
    app.get('/wait', async ({ signal }) => {
      try {
        await wait(5_000, undefined, { signal });
      } catch (error) {
        stopped = error;
        throw error;
      }
      return 'late';
    });
    handle = await start(app);
    const response = await send(handle.port, { path: '/wait' });
    expect(response.status).toBe(503);
    await until(() => stopped !== undefined);
    await sleep(50);
    expect((stopped as Error).name).toBe('AbortError');
    expect(lines.map((line) => [line.level, line.message])).toEqual([
      ['warn', 'Request timed out: no response within 50 ms; answering 503'],
    ]);
  });

  it('logs a handler that fails on its own after the timeout answered, with the request id', async () => {
    const { lines, logger } = memoryLogger();
    const app = new RestApplication({ logger, requestTimeout: 50 });
    let failed = false;
    app.post('/orders', async () => {
      await sleep(150);
      failed = true;
      // A real failure, not the signal's reason: the operator must see it.
      throw new Error('INSERT failed: connection reset');
    });
    handle = await start(app);
    const response = await send(handle.port, { method: 'POST', path: '/orders' });
    expect(response.status).toBe(503);
    await until(() => failed);
    await until(() => lines.some((line) => line.level === 'error'));
    expect(lines.map((line) => [line.level, line.message])).toEqual([
      ['warn', 'Request timed out: no response within 50 ms; answering 503'],
      ['error', 'Unhandled error in request, after its timeout was answered 503'],
    ]);
    expect(lines[1]?.fields).toMatchObject({
      requestId: response.headers['x-request-id'],
      method: 'POST',
      path: '/orders',
      error: new Error('INSERT failed: connection reset'),
    });
  });

  it('starts no handler for a client gone while its inputs were read, and logs no error', async () => {
    const { lines, logger } = memoryLogger();
    let checking: (() => void) | undefined;
    const checked = new Promise<void>((resolve) => {
      checking = resolve;
    });
    const orders: boolean[] = [];
    const seen: number[] = [];
    const app = new RestApplication({ logger })
      .authorized('user', async () => {
        checking?.();
        await sleep(150);
        return { id: 'u1' };
      })
      .onResponse(({ response }) => {
        seen.push(response.statusCode);
      });
    app.post('/orders', ({ user, signal }) => {
      orders.push(signal.aborted);
      return [{ by: user.id }, 201];
    });
    handle = await start(app);
    const client = httpRequest({
      host: '127.0.0.1',
      port: handle.port,
      path: '/orders',
      method: 'POST',
      agent: false,
    });
    client.on('error', () => undefined);
    client.end();
    await checked;
    client.destroy();
    await until(() => seen.length === 1, 2_000);
    expect(orders).toEqual([]);
    // What the hooks and the access log see of a request nobody was there to answer.
    expect(seen).toEqual([503]);
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
  });
});
