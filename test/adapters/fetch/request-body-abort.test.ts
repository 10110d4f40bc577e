/**
 * A request body the Fetch adapter cannot read to the end: the client went away mid-body (the
 * runtime errors the stream, usually with an `AbortError`, often aborting `request.signal`
 * too) or the stream failed for another reason. Either way the request is a 400, as on the
 * Node adapter, and nothing is logged at error level (docs/fetch.md, docs/uploads.md). Driven
 * with hand-made streams, and once over real HTTP through a Fetch-style server.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FetchAdapter } from '../../../src/adapters/fetch/index.js';
import { HttpError, type Logger, Response, RestApplication } from '../../../src/index.js';
import { multipartBody } from '../../app/uploads/multipart-body.js';
import { listenFetch } from './fetch-server.js';

type Line = { level: string; message: string; fields?: Record<string, unknown> };
const lines: Line[] = [];
const logger: Logger = {
  debug: (message) => lines.push({ level: 'debug', message }),
  info: (message) => lines.push({ level: 'info', message }),
  warn: (message) => lines.push({ level: 'warn', message }),
  error: (message, fields) => lines.push({ level: 'error', message, ...(fields && { fields }) }),
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const CUT_SHORT = 'The request body was not received completely';
const encoder = new TextEncoder();

const app = new RestApplication({ logger });
app.post('/json', ({ jsonBody }) => jsonBody);
app.post('/text', ({ body }) => ({ length: body.length }));
app.post('/bytes', async ({ request }) => ({ length: (await request.bytes()).length }));
app.post('/files', ({ files }) => ({ files: files.length }));
app.post('/reader', async ({ request }) => {
  const reader = (request.body as ReadableStream<Uint8Array>).getReader();
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
  }
  return new Response(200, { length: total });
});
const adapter = new FetchAdapter(app);

/** A body that sends `first`, then fails with `reason` the way a runtime does on a disconnect. */
function failingBody(first: Uint8Array, reason: unknown): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(first);
      controller.error(reason);
    },
  });
}

function abortError(): DOMException {
  return new DOMException('The client went away', 'AbortError');
}

function post(
  path: string,
  body: ReadableStream<Uint8Array>,
  contentType: string,
  signal?: AbortSignal,
): Promise<globalThis.Response> {
  return adapter.fetch(
    new Request(`http://localhost${path}`, {
      method: 'POST',
      body,
      duplex: 'half',
      headers: { 'content-type': contentType },
      signal,
    }),
  );
}

function abortedSignal(): AbortSignal {
  const client = new AbortController();
  client.abort(abortError());
  return client.signal;
}

/** The first half of a multipart upload with one file. */
function halfAnUpload(): { first: Uint8Array; contentType: string } {
  const { body, contentType } = multipartBody([
    { name: 'doc', filename: 'a.txt', contentType: 'text/plain', value: 'x'.repeat(4096) },
  ]);
  return { first: body.subarray(0, body.length >> 1), contentType };
}

async function expectCutShort(response: globalThis.Response, status = 400, message = CUT_SHORT) {
  expect(response.status).toBe(status);
  expect(await response.json()).toMatchObject({ error: message, statusCode: status });
  expect(lines.filter((line) => line.level === 'error')).toEqual([]);
}

afterEach(() => {
  lines.length = 0;
});

describe('FetchAdapter request body cut short', () => {
  for (const aborted of [false, true]) {
    const signal = aborted ? ' and request.signal aborted' : '';

    it(`answers 400 for jsonBody when the stream errors${signal}`, async () => {
      const body = failingBody(encoder.encode('{"a":'), abortError());
      const response = await post(
        '/json',
        body,
        'application/json',
        aborted ? abortedSignal() : undefined,
      );
      await expectCutShort(response);
    });

    it(`answers 400 for body (text) when the stream errors${signal}`, async () => {
      const body = failingBody(encoder.encode('some text'), abortError());
      const response = await post(
        '/text',
        body,
        'text/plain',
        aborted ? abortedSignal() : undefined,
      );
      await expectCutShort(response);
    });

    it(`answers 400 for request.bytes() when the stream errors${signal}`, async () => {
      const body = failingBody(new Uint8Array(16), abortError());
      const signalOrNot = aborted ? abortedSignal() : undefined;
      const response = await post('/bytes', body, 'application/octet-stream', signalOrNot);
      await expectCutShort(response);
    });

    it(`answers 400 for multipart files when the stream errors${signal}`, async () => {
      const { first, contentType } = halfAnUpload();
      const body = failingBody(first, abortError());
      const response = await post(
        '/files',
        body,
        contentType,
        aborted ? abortedSignal() : undefined,
      );
      await expectCutShort(response);
    });
  }

  it("answers 400 to a handler reading request.body's own reader", async () => {
    const body = failingBody(new Uint8Array(16), abortError());
    await expectCutShort(await post('/reader', body, 'application/octet-stream'));
  });

  it('answers 400, unlogged, for a stream that fails for another reason', async () => {
    // The runtime could not give the body (a broken chunked framing, a TypeError from its own
    // plumbing): the request cannot be read, which is the client's 400, not the application's
    // 500.
    const body = failingBody(encoder.encode('{"a":'), new TypeError('terminated'));
    await expectCutShort(await post('/json', body, 'application/json'));
  });

  it('keeps the status of a stream that fails with an HttpError', async () => {
    // A body built by code in front of the adapter that already says what to answer.
    const body = failingBody(encoder.encode('{"a":'), new HttpError(408, 'Too slow'));
    await expectCutShort(await post('/json', body, 'application/json'), 408, 'Too slow');
  });

  it('still reads a body that arrives whole, chunk by chunk', async () => {
    const chunks = ['{"a":', '[1,2', ',3]}'];
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const chunk = chunks.shift();
        if (chunk === undefined) controller.close();
        else controller.enqueue(encoder.encode(chunk));
      },
    });
    const response = await post('/json', body, 'application/json');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ a: [1, 2, 3] });
  });

  it('cancels the runtime stream when the reader stops early', async () => {
    const small = new RestApplication({ logger, bodyLimit: 1024 });
    small.post('/bytes', async ({ request }) => ({ length: (await request.bytes()).length }));
    let pulled = 0;
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 256;
        controller.enqueue(new Uint8Array(256));
      },
      cancel() {
        cancelled = true;
      },
    });
    const response = await new FetchAdapter(small).fetch(
      new Request('http://localhost/bytes', {
        method: 'POST',
        body,
        duplex: 'half',
        headers: { 'content-type': 'application/octet-stream' },
      }),
    );
    expect(response.status).toBe(413);
    expect(pulled).toBeLessThan(4096);
    expect(cancelled).toBe(true);
  });

  it('answers 400, unlogged, to a real client that disconnects mid-body', async () => {
    // A copy of each answer for the test to read: the server reads the original.
    const answered: Array<Promise<globalThis.Response>> = [];
    const server = await listenFetch((request) => {
      const response = adapter.fetch(request);
      answered.push(response.then((sent) => sent.clone()));
      return response;
    });
    try {
      const socket = connect(server.port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(
        'POST /json HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
          'Content-Length: 1000\r\n\r\n{"a":',
      );
      for (let i = 0; i < 100 && answered.length === 0; i++) await sleep(5);
      socket.destroy();
      expect(answered).toHaveLength(1);
      await expectCutShort(await (answered[0] as Promise<globalThis.Response>));
    } finally {
      await server.close();
    }
  });
});
