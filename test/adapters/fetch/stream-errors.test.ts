import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FetchAdapter } from '../../../src/adapters/fetch/index.js';
import { toReadableStream } from '../../../src/adapters/fetch/stream.js';
import { type Logger, MultiValueHeaders, Response, RestApplication } from '../../../src/index.js';
import { type FetchServer, listenFetch } from './fetch-server.js';

type Line = { level: string; message: string; fields?: Record<string, unknown> };
const lines: Line[] = [];
const logger: Logger = {
  debug: (message) => lines.push({ level: 'debug', message }),
  info: (message) => lines.push({ level: 'info', message }),
  warn: (message) => lines.push({ level: 'warn', message }),
  error: (message, fields) => lines.push({ level: 'error', message, ...(fields && { fields }) }),
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Yields one line, then fails the way a database cursor does mid-way. */
async function* failingMidway(): AsyncGenerator<string> {
  yield 'first\n';
  await sleep(5);
  throw new Error('cursor failed');
}

async function* endless(stopped: { value: boolean }): AsyncGenerator<string> {
  try {
    for (;;) {
      yield 'chunk\n';
      await sleep(1);
    }
  } finally {
    stopped.value = true;
  }
}

const stopped = { value: false };
const app = new RestApplication({ logger });
app.get('/boom', () => new Response(200, failingMidway(), { contentType: 'text/plain' }));
app.get('/endless', () => new Response(200, endless(stopped), { contentType: 'text/plain' }));
const adapter = new FetchAdapter(app);

/**
 * The same failing source as `/boom`, made into a body by `toReadableStream` directly, so the
 * stream's own logging is seen on the wire whatever the adapter passes it.
 */
async function direct(request: globalThis.Request): Promise<globalThis.Response> {
  const requestId = new URL(request.url).searchParams.get('id') ?? undefined;
  return new globalThis.Response(toReadableStream(failingMidway(), { logger, requestId }), {
    headers: { 'content-type': 'text/plain' },
  });
}

let server: FetchServer;
let origin: string;

beforeAll(async () => {
  server = await listenFetch((request) =>
    new URL(request.url).pathname === '/direct' ? direct(request) : adapter.fetch(request),
  );
  origin = server.origin;
});

afterAll(() => server.close());

afterEach(() => {
  lines.length = 0;
});

/** Reads a body to its end; `undefined` if it ended normally, else the error it ended with. */
async function readToEnd(response: globalThis.Response): Promise<unknown> {
  try {
    await response.text();
    return undefined;
  } catch (error) {
    return error;
  }
}

/**
 * Waits for the server side to finish with a request the client has already given up on: up to
 * two seconds, which a machine running other suites beside this one can need.
 */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i++) await sleep(5);
}

const failures = () =>
  lines.filter((line) => line.level === 'error' && line.message === 'Response body stream failed');

describe('a Fetch response stream that fails part-way', () => {
  it('is logged with the request id and the error, and cut short on the wire', async () => {
    const response = await fetch(`${origin}/boom`);
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    expect(await readToEnd(response)).toBeInstanceOf(Error);
    await until(() => failures().length > 0);
    expect(failures()).toEqual([
      {
        level: 'error',
        message: 'Response body stream failed',
        fields: { requestId, error: expect.objectContaining({ message: 'cursor failed' }) },
      },
    ]);
  });

  it('is logged by toReadableStream with the logger and request id it is given', async () => {
    const response = await fetch(`${origin}/direct?id=req-42`);
    expect(await readToEnd(response)).toBeInstanceOf(Error);
    await until(() => failures().length > 0);
    expect(failures()).toEqual([
      {
        level: 'error',
        message: 'Response body stream failed',
        fields: {
          requestId: 'req-42',
          error: expect.objectContaining({ message: 'cursor failed' }),
        },
      },
    ]);
  });

  it('logs nothing when the client goes away or the stream ends normally', async () => {
    const client = new AbortController();
    const response = await fetch(`${origin}/endless`, { signal: client.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    client.abort();
    await until(() => stopped.value);
    expect(stopped.value).toBe(true);

    const hello = await fetch(`${origin}/`);
    await hello.text();
    await sleep(20);
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
  });
});

describe('a stream chunk that is neither text nor bytes', () => {
  it('fails the stream as on Node: logged, the source let go, the body errored', async () => {
    const released: string[] = [];
    const own = new RestApplication({ logger });
    own.get(
      '/number',
      () =>
        new Response(
          200,
          (async function* () {
            try {
              yield 'hi';
              yield 42 as unknown as string;
              yield 'never';
            } finally {
              released.push('generator');
            }
          })(),
        ),
    );
    own.get(
      '/array-buffer',
      () =>
        new Response(
          200,
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(new Uint8Array([104, 105]));
              controller.enqueue(new ArrayBuffer(2) as unknown as Uint8Array);
            },
            cancel() {
              released.push('ReadableStream');
            },
          }),
        ),
    );
    const ownAdapter = new FetchAdapter(own);
    for (const path of ['/number', '/array-buffer']) {
      const response = await ownAdapter.fetch(new globalThis.Request(`http://x${path}`));
      expect(response.status).toBe(200);
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      // What came before the chunk arrives; the stream then fails.
      expect(new TextDecoder().decode((await reader.read()).value)).toBe('hi');
      await expect(reader.read()).rejects.toThrow(
        'A response stream chunk must be a string or a Uint8Array',
      );
    }
    expect(failures().map((line) => line.fields?.error)).toEqual([
      new TypeError('A response stream chunk must be a string or a Uint8Array, got Number'),
      new TypeError('A response stream chunk must be a string or a Uint8Array, got ArrayBuffer'),
    ]);
    expect(released).toEqual(['generator', 'ReadableStream']);
  });

  it('skips an undefined chunk of a ReadableStream, as on Node', async () => {
    const own = new RestApplication({ logger });
    own.get(
      '/gaps',
      () =>
        new Response(
          200,
          new ReadableStream<string | undefined>({
            start(controller) {
              controller.enqueue('a');
              controller.enqueue(undefined);
              controller.enqueue('b');
              controller.close();
            },
          }) as ReadableStream<string>,
        ),
    );
    const response = await new FetchAdapter(own).fetch(new globalThis.Request('http://x/gaps'));
    expect(await response.text()).toBe('ab');
    expect(failures()).toEqual([]);
  });
});

describe('a response the Fetch adapter cannot build', () => {
  it('answers 500 and lets go of its body: a ReadableStream cancelled, a generator returned', async () => {
    const released: string[] = [];
    const refusing = new RestApplication({ logger });
    // WHATWG Headers refuse a value outside Latin-1. The core refuses one set through its
    // API; raw pairs (what runtimes hand over) are taken as they are, so one can still come.
    const withBadHeader = (response: Response): Response => {
      response.headers = MultiValueHeaders.fromRawPairs(['X-Note', 'bad \u{1F600}']);
      return response;
    };
    refusing.get('/web-stream', () => {
      const body = new ReadableStream<Uint8Array>({
        cancel: () => void released.push('cancelled'),
      });
      return withBadHeader(new Response(200, body, { contentType: 'text/plain' }));
    });
    refusing.get('/generator', () => {
      async function* rows(): AsyncGenerator<string> {
        try {
          yield 'row\n';
        } finally {
          released.push('returned');
        }
      }
      const body = rows();
      // Started, as a producer that already opened its cursor is.
      void body.next();
      return withBadHeader(new Response(200, body, { contentType: 'text/plain' }));
    });
    const fetchAdapter = new FetchAdapter(refusing);
    for (const path of ['/web-stream', '/generator']) {
      const response = await fetchAdapter.fetch(new globalThis.Request(`http://a.example${path}`));
      expect(response.status).toBe(500);
    }
    await until(() => released.length === 2);
    expect(released).toEqual(['cancelled', 'returned']);
  });
});

describe('a body that fails before its first byte', () => {
  it("is answered through the application's error path, CORS and error handlers included", async () => {
    lines.length = 0;
    const seen: number[] = [];
    const app = new RestApplication({ logger });
    app.cors({ origin: 'https://app.example' });
    app.errorHandler(500, () => ({ custom: 'error page' }));
    app.onResponse(({ response }) => void seen.push(response.statusCode));
    app.get(
      '/no-source',
      () =>
        new Response(200, {
          [Symbol.asyncIterator](): AsyncIterator<string> {
            throw new Error('no cursor');
          },
        }),
    );
    const response = await new FetchAdapter(app).fetch(
      new globalThis.Request('http://a.example/no-source', {
        headers: { Origin: 'https://app.example' },
      }),
    );
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ custom: 'error page' });
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    // The hooks ran once, for the answer they saw; the failure is logged once, with its cause.
    expect(seen).toEqual([200]);
    const errors = lines.filter((line) => line.level === 'error');
    expect(errors.map((line) => line.message)).toEqual([
      'Response could not be sent; answering 500',
    ]);
    expect(errors[0]?.fields?.error).toMatchObject({ message: 'no cursor' });
  });
});

describe('a source that throws before its first chunk', () => {
  it('keeps its 200 and fails as a stream failing part-way, as on Node', async () => {
    const own = new RestApplication({ logger });
    own.get(
      '/throws-at-once',
      () =>
        new Response(
          200,
          (async function* () {
            yield* [];
            throw new Error('no first row');
          })(),
        ),
    );
    const response = await new FetchAdapter(own).fetch(
      new globalThis.Request('http://x/throws-at-once', { headers: { 'X-Request-ID': 'first-1' } }),
    );
    expect(response.status).toBe(200);
    expect(await readToEnd(response)).toMatchObject({ message: 'no first row' });
    expect(failures().map((line) => line.fields?.requestId)).toEqual(['first-1']);
  });
});

describe('a ReadableStream a handler returns', () => {
  it('sends text chunks as UTF-8 bytes, as the Node adapter does', async () => {
    const own = new RestApplication({ logger });
    own.get(
      '/csv',
      () =>
        new Response(
          200,
          new ReadableStream<string>({
            start(controller) {
              controller.enqueue('a,b\n');
              controller.enqueue('é,2\n');
              controller.close();
            },
          }),
          { contentType: 'text/csv' },
        ),
    );
    const response = await new FetchAdapter(own).fetch(new globalThis.Request('http://x/csv'));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('a,b\né,2\n');
    expect(failures()).toEqual([]);
  });

  it('is logged when it fails, and cancelled when the client cancels', async () => {
    const own = new RestApplication({ logger });
    let cancelled: unknown;
    own.get(
      '/fails',
      () =>
        new Response(
          200,
          new ReadableStream<string>({
            pull(controller) {
              controller.error(new Error('upstream gone'));
            },
          }),
        ),
    );
    own.get(
      '/slow',
      () =>
        new Response(
          200,
          new ReadableStream<Uint8Array>({
            pull: async () => {
              await sleep(1_000);
            },
            cancel(reason) {
              cancelled = reason ?? 'cancelled';
            },
          }),
        ),
    );
    const adapter = new FetchAdapter(own);
    const failed = await adapter.fetch(
      new globalThis.Request('http://x/fails', { headers: { 'X-Request-ID': 'rs-1' } }),
    );
    expect(await readToEnd(failed)).toBeInstanceOf(Error);
    expect(failures().map((line) => line.fields?.requestId)).toEqual(['rs-1']);
    const slow = await adapter.fetch(new globalThis.Request('http://x/slow'));
    await slow.body?.cancel('client left');
    expect(cancelled).toBe('client left');
  });
});
