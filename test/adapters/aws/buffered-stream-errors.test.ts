/**
 * The buffered Lambda handler sends nothing before it has the whole body, so a stream body that
 * fails while it is read is answered like any thrown error: the application's 500 through its
 * error path, logged with the request id; the invocation itself succeeds. And a HEAD of an event
 * stream gets the GET's refusal (RFC 9110 §9.3.2), not a 200. A stream `requestTimeout` stops
 * while it is read is the timeout's 503.
 */
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { CloudGatewayAdapter, type MetricsEntry } from '../../../src/adapters/aws/index.js';
import { Response, RestApplication, sse } from '../../../src/index.js';
import {
  captureLogger,
  lambdaContext,
  readV1Result,
  readV2Result,
  restEvent,
  v2Event,
  type WireResponse,
} from './fixtures.js';

const ORIGIN = 'https://app.example';

function failingGenerator(): AsyncIterable<string> {
  return (async function* () {
    yield 'first\n';
    throw new Error('database cursor failed');
  })();
}

function failingReadableStream(): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) {
        controller.error(new Error('database cursor failed'));
        return;
      }
      sent = true;
      controller.enqueue(new TextEncoder().encode('first\n'));
    },
  });
}

/** An application with its own 500 page, default headers and CORS, and failing bodies. */
function buildApp() {
  const { logger, lines } = captureLogger();
  const causes: unknown[] = [];
  const app = new RestApplication({ logger });
  app.defaultHeaders({ 'X-Content-Type-Options': 'nosniff' });
  app.cors({ origin: ORIGIN });
  app.errorHandler(500, ({ error }) => {
    causes.push(error.cause);
    return { custom: 'error page' };
  });
  app.get('/generator', () => new Response(200, failingGenerator(), { contentType: 'text/plain' }));
  app.get(
    '/readable',
    () => new Response(200, failingReadableStream(), { contentType: 'application/octet-stream' }),
  );
  app.get(
    '/cannot-start',
    () =>
      new Response(
        200,
        {
          [Symbol.asyncIterator](): AsyncIterator<string> {
            throw new Error('database cursor failed');
          },
        },
        { contentType: 'text/plain' },
      ),
  );
  app.get(
    '/fine',
    () =>
      new Response(
        200,
        (async function* () {
          yield 'a';
          yield 'b';
        })(),
        { contentType: 'text/plain' },
      ),
  );
  return { app, lines, causes };
}

function expectApplication500(result: WireResponse): void {
  expect(result.status).toBe(500);
  expect(JSON.parse(new TextDecoder().decode(result.body))).toEqual({ custom: 'error page' });
  expect(result.headers.get('x-content-type-options')).toBe('nosniff');
  expect(result.headers.get('access-control-allow-origin')).toBe(ORIGIN);
}

describe('a stream body that fails while the buffered handler reads it', () => {
  it('answers the application 500 on an HTTP API 2.0 event, logged with the request id', async () => {
    const { app, lines, causes } = buildApp();
    const entries: MetricsEntry[] = [];
    const adapter = new CloudGatewayAdapter(app, {
      metricsPublisher: { publish: (entry: MetricsEntry) => void entries.push(entry) },
    });
    const result = readV2Result(
      await adapter.handleEvent(
        v2Event({ method: 'GET', path: '/generator', headers: { Origin: ORIGIN } }),
        lambdaContext(),
      ),
    );
    expectApplication500(result);
    const requestId = result.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    const errors = lines.filter((line) => line.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.fields?.requestId).toBe(requestId);
    expect(errors[0]?.fields?.error).toMatchObject({ message: 'database cursor failed' });
    // The error handler can reach the failure, and the metrics line counts the 500.
    expect(((causes[0] as Error).cause as Error).message).toBe('database cursor failed');
    expect(entries[0]?.properties).toMatchObject({ statusCode: 500 });
  });

  it('answers the application 500 on a REST API event, for a ReadableStream and a source that cannot start too', async () => {
    const { app, lines } = buildApp();
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
    for (const path of ['/generator', '/readable', '/cannot-start']) {
      const result = readV1Result(
        await adapter.handleEvent(
          restEvent({ method: 'GET', path, headers: { Origin: ORIGIN } }),
          lambdaContext(),
        ),
      );
      expectApplication500(result);
    }
    expect(lines.filter((line) => line.level === 'error')).toHaveLength(3);
    // A stream that ends normally is read whole, as before.
    const fine = readV1Result(
      await adapter.handleEvent(restEvent({ method: 'GET', path: '/fine' }), lambdaContext()),
    );
    expect(fine.status).toBe(200);
    expect(new TextDecoder().decode(fine.body)).toBe('ab');
  });
});

describe('the onResponse hooks of a body that fails while it is read', () => {
  it('run once, with the status the handler gave, as does the access log', async () => {
    const { logger, lines } = captureLogger();
    const app = new RestApplication({ logger, accessLog: true, requestTimeout: 50 });
    const seen: string[] = [];
    app.onResponse(
      ({ request, response }) => void seen.push(`${request.path} ${response.statusCode}`),
    );
    app.get(
      '/generator',
      () => new Response(200, failingGenerator(), { contentType: 'text/plain' }),
    );
    app.get(
      '/endless',
      () =>
        new Response(
          200,
          (async function* () {
            for (;;) {
              yield 'row\n';
              await new Promise((resolve) => setTimeout(resolve, 5));
            }
          })(),
          { contentType: 'text/plain' },
        ),
    );
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
    const statuses: number[] = [];
    for (const path of ['/generator', '/endless']) {
      const result = readV2Result(
        await adapter.handleEvent(v2Event({ method: 'GET', path }), lambdaContext()),
      );
      statuses.push(result.status);
    }
    expect(statuses).toEqual([500, 503]);
    expect(seen).toEqual(['/generator 200', '/endless 200']);
    const access = lines.filter((line) => line.level === 'info').map((line) => line.message);
    expect(access).toEqual(['GET /generator 200', 'GET /endless 200']);
  });
});

describe('requestTimeout on the buffered handler', () => {
  it('answers the timeout 503 for a stream still being read when it expires, with a warning', async () => {
    const { logger, lines } = captureLogger();
    const app = new RestApplication({ logger, requestTimeout: 50 });
    let stopped = false;
    app.get(
      '/endless',
      () =>
        new Response(
          200,
          (async function* () {
            try {
              for (;;) {
                yield 'row\n';
                await new Promise((resolve) => setTimeout(resolve, 5));
              }
            } finally {
              stopped = true;
            }
          })(),
          { contentType: 'text/plain' },
        ),
    );
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
    const result = readV2Result(
      await adapter.handleEvent(v2Event({ method: 'GET', path: '/endless' }), lambdaContext()),
    );
    expect(result.status).toBe(503);
    expect(JSON.parse(new TextDecoder().decode(result.body))).toMatchObject({
      statusCode: 503,
      error: expect.stringMatching(/longer than 50 ms/),
    });
    // The producer's `finally` runs once its pending wait ends.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped).toBe(true);
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
    expect(lines.filter((line) => line.level === 'warn')).toMatchObject([
      {
        message: 'Request timed out: the response body was not produced in time; answering 503',
        fields: { method: 'GET', path: '/endless' },
      },
    ]);
  });
});

describe('HEAD on the buffered handler', () => {
  it('gets the 500 a GET of an event stream gets (RFC 9110 §9.3.2); the producer never runs', async () => {
    const { logger, lines } = captureLogger();
    const app = new RestApplication({ logger });
    let started = false;
    // An event-stream body of known length is buffered like any other, HEAD included.
    app.get(
      '/snapshot',
      () => new Response(200, 'data: done\n\n', { contentType: 'text/event-stream' }),
    );
    app.get('/events', () =>
      sse(
        (async function* () {
          started = true;
          yield 'never sent';
        })(),
      ),
    );
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
    const answer = async (method: string, path = '/events') =>
      readV2Result(
        await adapter.handleEvent(
          v2Event({ method, path, headers: { Accept: 'text/event-stream' } }),
          lambdaContext(),
        ),
      );
    const get = await answer('GET');
    const head = await answer('HEAD');
    expect(get.status).toBe(500);
    expect(head.status).toBe(500);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('content-type')).not.toContain('event-stream');
    expect(head.body).toHaveLength(0);
    expect(started).toBe(false);
    // Both are the same mistake, and both point to streamHandler.
    const errors = lines.filter((line) => line.level === 'error');
    expect(errors).toHaveLength(2);
    expect(errors[1]?.message).toContain('streamHandler');
    for (const method of ['GET', 'HEAD']) {
      const snapshot = await answer(method, '/snapshot');
      expect(snapshot.status).toBe(200);
      expect(snapshot.headers.get('content-type')).toBe('text/event-stream');
    }
  });
});

describe('an event stream on the buffered handler', () => {
  it('goes through the onResponse hooks and the access log once, as the 500 that is sent', async () => {
    const { logger, lines } = captureLogger();
    const app = new RestApplication({ logger, accessLog: true });
    const seen: number[] = [];
    app.onResponse(({ response }) => void seen.push(response.statusCode));
    app.get('/events', () => sse((async function* () {})()));
    app.get(
      '/typed-by-hand',
      () =>
        new Response(
          200,
          (async function* () {
            yield 'data: x\n\n';
          })(),
          { contentType: 'text/event-stream' },
        ),
    );
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
    for (const path of ['/events', '/typed-by-hand']) {
      const result = readV2Result(
        await adapter.handleEvent(v2Event({ method: 'GET', path }), lambdaContext()),
      );
      expect(result.status).toBe(500);
    }
    expect(seen).toEqual([500, 500]);
    const access = lines.filter((line) => line.level === 'info').map((line) => line.message);
    expect(access).toEqual(['GET /events 500', 'GET /typed-by-hand 500']);
  });
});

describe('a stream chunk that is neither text nor a Uint8Array, on the buffered handler', () => {
  // docs/streams.md: such a chunk fails the stream on every adapter, as on Node. Read whole, an
  // Int16Array's 16-bit samples were copied one byte each, and its length counted in elements.
  it.each([
    ['alone', [new Int16Array([0x0102, 0x0304, -2])]],
    ['after a text chunk', ['hdr:', new Int16Array([0x0102, 0x0304, -2])]],
    ['with its Content-Length', [new Int16Array([0x4241, 0x4443, 0x4645])]],
  ] as const)('answers the application 500, logged: a chunk %s', async (name, chunks) => {
    const { logger, lines } = captureLogger();
    const app = new RestApplication({ logger });
    const headers = name === 'with its Content-Length' ? { 'Content-Length': '6' } : undefined;
    app.get(
      '/pcm',
      () =>
        new Response(
          200,
          (async function* () {
            yield* chunks;
          })(),
          { contentType: 'audio/L16', headers },
        ),
    );
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
    const result = readV2Result(
      await adapter.handleEvent(v2Event({ method: 'GET', path: '/pcm' }), lambdaContext()),
    );
    expect(result.status).toBe(500);
    const errors = lines.filter((line) => line.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.fields?.error).toMatchObject({
      message: 'A response stream chunk must be a string or a Uint8Array, got Int16Array',
    });
  });

  it("sends a Uint8Array of another realm (a vm context's), which is one all the same", async () => {
    const app = new RestApplication({ logger: captureLogger().logger });
    const foreign = runInNewContext('new Uint8Array([66, 67])') as Uint8Array;
    expect(foreign instanceof Uint8Array).toBe(false);
    app.get(
      '/bytes',
      () =>
        new Response(
          200,
          (async function* () {
            yield 'a';
            yield foreign;
          })(),
          { contentType: 'text/plain' },
        ),
    );
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
    const result = readV2Result(
      await adapter.handleEvent(v2Event({ method: 'GET', path: '/bytes' }), lambdaContext()),
    );
    expect([result.status, Buffer.from(result.body).toString()]).toEqual([200, 'aBC']);
  });
});
