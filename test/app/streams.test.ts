/**
 * Server-sent events and the request's signal, in process: the event-stream format (checked
 * against a minimal parser written from the HTML standard), `lastEventId`, keep-alive comments,
 * `requestTimeout` and the producer stopped when the signal fires.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatEvent } from '../../src/app/sse.js';
import {
  type Logger,
  Request,
  type Response,
  RestApplication,
  SetupError,
  silentLogger,
  sse,
} from '../../src/index.js';

interface ParsedEvent {
  type: string;
  data: string;
  lastEventId: string;
}

/**
 * The HTML standard's event-stream interpretation (html.spec.whatwg.org, "Server-sent events",
 * "Interpreting an event stream"), reduced to what a round trip needs.
 */
function parseEventStream(text: string): { events: ParsedEvent[]; retry: number | undefined } {
  const events: ParsedEvent[] = [];
  let data = '';
  let type = '';
  let lastEventId = '';
  let retry: number | undefined;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data !== '') {
        events.push({ type: type || 'message', data: data.slice(0, -1), lastEventId });
      }
      data = '';
      type = '';
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'data') data += `${value}\n`;
    else if (name === 'event') type = value;
    else if (name === 'id' && !value.includes('\0')) lastEventId = value;
    else if (name === 'retry' && /^\d+$/.test(value)) retry = Number(value);
  }
  return { events, retry };
}

async function readAll(response: Response): Promise<string> {
  let text = '';
  for await (const chunk of response.body as AsyncIterable<string | Uint8Array>) {
    text += typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk);
  }
  return text;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the event-stream format', () => {
  it('round-trips any data string, with any line breaks', () => {
    const text = fc.stringMatching(/^[\s\S]*$/);
    const withBreaks = fc
      .array(fc.oneof(fc.string(), fc.constantFrom('\r\n', '\r', '\n', '\n\n', '\r\r\n')))
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.oneof(text, withBreaks), (data) => {
        const parsed = parseEventStream(formatEvent(data)).events;
        expect(parsed).toEqual([
          { type: 'message', data: data.replace(/\r\n|\r/g, '\n'), lastEventId: '' },
        ]);
      }),
      { numRuns: 500 },
    );
  });

  it('round-trips event types, ids and retry times', () => {
    const safe = fc.string().filter((s) => !/[\r\n\0]/.test(s));
    fc.assert(
      fc.property(safe, safe, fc.nat(), fc.string(), (event, id, retry, data) => {
        const parsed = parseEventStream(formatEvent({ event, id, retry, data }));
        expect(parsed.retry).toBe(retry);
        expect(parsed.events).toEqual([
          { type: event || 'message', data: data.replace(/\r\n|\r/g, '\n'), lastEventId: id },
        ]);
      }),
    );
  });

  it('sends data that is not a string as JSON, and multi-line data as several lines', () => {
    expect(formatEvent({ data: { a: 1 } })).toBe('data: {"a":1}\n\n');
    expect(formatEvent('one\r\ntwo\rthree\nfour')).toBe(
      'data: one\ndata: two\ndata: three\ndata: four\n\n',
    );
    expect(formatEvent({ id: '7', retry: 1500 })).toBe('id: 7\nretry: 1500\n\n');
  });

  it('refuses fields that would break the stream', () => {
    expect(() => formatEvent({ id: 'a\nid: b', data: 'x' })).toThrow(TypeError);
    expect(() => formatEvent({ id: 'a\0', data: 'x' })).toThrow(TypeError);
    expect(() => formatEvent({ event: 'a\rb', data: 'x' })).toThrow(TypeError);
    expect(() => formatEvent({ retry: 1.5, data: 'x' })).toThrow(TypeError);
    expect(() => sse((async function* () {})(), { keepAlive: 0 })).toThrow(TypeError);
  });

  it('refuses a retry that would not be written in the digits the client reads', () => {
    for (const retry of [1e21, 2 ** 53 + 2]) {
      expect(() => formatEvent({ retry })).toThrow(
        `An event's retry must be an integer from 0 to 9007199254740991, got ${retry}`,
      );
    }
    const largest = formatEvent({ retry: Number.MAX_SAFE_INTEGER });
    expect(parseEventStream(largest).retry).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('refuses a source that is no async iterable when sse() is called, not once the status is out', () => {
    // A callback, as other libraries take; plain JavaScript gets past the types.
    for (const source of [async () => undefined, null, 'data', [{ data: 'x' }]]) {
      expect(() => sse(source as unknown as AsyncIterable<string>)).toThrow(
        'sse() takes an async iterable of events, such as an async generator',
      );
    }
  });
});

describe('sse()', () => {
  it('answers text/event-stream, uncached, with the events as they come', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/events', ({ lastEventId }) =>
      sse(
        (async function* () {
          yield { event: 'hello', id: '1', data: `after ${lastEventId}` };
          yield 'plain';
        })(),
      ),
    );
    const response = await app.request('/events', { headers: { 'Last-Event-ID': '41' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.has('content-length')).toBe(false);
    expect(await readAll(response)).toBe('event: hello\nid: 1\ndata: after 41\n\ndata: plain\n\n');
  });

  it('answers an EventSource, whose Accept names text/event-stream alone', async () => {
    for (const options of [{}, { renderers: 'json' as const }]) {
      const app = new RestApplication({ logger: silentLogger, ...options });
      app.provides('text/csv', ({ result }) => String(result));
      app.get('/events', () =>
        sse(
          (async function* () {
            yield 'tick';
          })(),
        ),
      );
      app.get('/report', () => ({ a: 1 }));
      const headers = { Accept: 'text/event-stream' };
      const events = await app.request('/events', { headers });
      expect(events.statusCode).toBe(200);
      expect(events.headers.get('content-type')).toBe('text/event-stream');
      expect(await readAll(events)).toBe('data: tick\n\n');
      // A route that has no stream to give answers with its first representation rather than
      // a 406 (RFC 9110 §12.5.1 lets a server disregard Accept); other types still get 406.
      const report = await app.request('/report', { headers });
      expect(report.statusCode).toBe(200);
      expect(report.headers.get('content-type')).toBe('application/json');
      const css = await app.request('/report', { headers: { Accept: 'text/css' } });
      expect(css.statusCode).toBe(406);
    }
  });

  it('lets through only a request that names text/event-stream, not one of its wildcards', async () => {
    const app = new RestApplication({ logger: silentLogger, renderers: 'json' });
    app.get('/report', () => ({ a: 1 }));
    // `text/*` accepts an event stream, but asks for text: JSON was not acceptable, so 406
    // (docs/application.md, "Content negotiation").
    for (const accept of ['text/*', 'text/html, text/*;q=0.1', '*/*;q=0, text/*']) {
      const response = await app.request('/report', { headers: { Accept: accept } });
      expect(response.statusCode, accept).toBe(406);
    }
    for (const accept of ['text/event-stream', 'text/html, text/event-stream;q=0.5']) {
      const response = await app.request('/report', { headers: { Accept: accept } });
      expect(response.statusCode, accept).toBe(200);
    }
    const refused = await app.request('/report', {
      headers: { Accept: 'text/event-stream;q=0, text/*' },
    });
    expect(refused.statusCode).toBe(406);
  });

  it('sends keep-alive comments while no event comes', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/events', () =>
      sse(
        (async function* () {
          await sleep(120);
          yield 'late';
        })(),
        { keepAlive: 30 },
      ),
    );
    const text = await readAll(await app.request('/events'));
    expect(text.endsWith('data: late\n\n')).toBe(true);
    expect(text.split(': keep-alive\n\n').length - 1).toBeGreaterThanOrEqual(2);
    expect(parseEventStream(text).events.map((event) => event.data)).toEqual(['late']);
  });

  it('refuses a keepAlive no timer can hold, with the bound requestTimeout names', () => {
    const events = () =>
      (async function* () {
        yield 'tick';
      })();
    for (const keepAlive of [0, -1, 2 ** 31, 3e9, Number.POSITIVE_INFINITY, Number.NaN, true]) {
      const call = () => sse(events(), { keepAlive: keepAlive as number });
      expect(call, String(keepAlive)).toThrow(TypeError);
      expect(call, String(keepAlive)).toThrow(
        new TypeError(
          `sse() keepAlive must be a number of milliseconds > 0 and below 2^31 (about 24.8 days), got ${String(keepAlive)}`,
        ),
      );
    }
    expect(sse(events(), { keepAlive: 2 ** 31 - 1 }).statusCode).toBe(200);
  });

  it('stops the producer (its finally runs) when the consumer stops reading', async () => {
    const app = new RestApplication({ logger: silentLogger });
    let finished = false;
    app.get('/events', () =>
      sse(
        (async function* () {
          try {
            for (let i = 0; ; i++) yield String(i);
          } finally {
            finished = true;
          }
        })(),
      ),
    );
    const response = await app.request('/events');
    for await (const chunk of response.body as AsyncIterable<string>) {
      expect(chunk).toBe('data: 0\n\n');
      break;
    }
    await sleep(0);
    expect(finished).toBe(true);
  });
});

describe('requestTimeout and signal', () => {
  it('answers 503 when the handler is too slow, fires its signal and ignores the late result', async () => {
    const app = new RestApplication({ logger: silentLogger, requestTimeout: 40 });
    let seen: AbortSignal | undefined;
    let late = false;
    app.get('/slow', async ({ signal }) => {
      seen = signal;
      await sleep(120);
      late = true;
      return { late };
    });
    const response = await app.request('/slow');
    expect(response.statusCode).toBe(503);
    expect(seen?.aborted).toBe(true);
    expect((seen?.reason as DOMException | undefined)?.name).toBe('TimeoutError');
    await sleep(150);
    expect(late).toBe(true);
  });

  it('costs a synchronous answer nothing and leaves a fast one alone', async () => {
    const app = new RestApplication({ logger: silentLogger, requestTimeout: 1000 });
    app.get('/sync', () => 'now');
    app.get('/fast', async ({ signal }) => (signal.aborted ? 'aborted' : 'fast'));
    expect((await app.request('/sync')).body).toBe('now');
    expect((await app.request('/fast')).body).toBe('fast');
  });

  it('cuts a stream short when the time runs out while it is sent', async () => {
    const app = new RestApplication({ logger: silentLogger, requestTimeout: 60 });
    let finished = false;
    app.get('/events', async () =>
      sse(
        (async function* () {
          try {
            for (let i = 0; ; i++) {
              yield String(i);
              await sleep(10);
            }
          } finally {
            finished = true;
          }
        })(),
      ),
    );
    // The body fails with the timeout after what was produced in time, so an adapter cuts the
    // connection and no client takes the part for the whole.
    const response = await app.request('/events');
    let text = '';
    const failure = await (async () => {
      try {
        for await (const chunk of response.body as AsyncIterable<string | Uint8Array>) {
          text += typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk);
        }
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(failure).toMatchObject({ name: 'TimeoutError' });
    expect(text.startsWith('data: 0\n\n')).toBe(true);
    await sleep(20);
    expect(finished).toBe(true);
  });

  it('ends the deadline of a stream that cannot start: its signal does not fire later', async () => {
    const app = new RestApplication({ logger: silentLogger, requestTimeout: 60 });
    let signal: AbortSignal | undefined;
    app.get('/broken', ({ signal: injected }) => {
      signal = injected;
      return {
        [Symbol.asyncIterator](): AsyncIterator<string> {
          throw new Error('no source');
        },
      };
    });
    const response = await app.request('/broken');
    const body = response.body as AsyncIterable<string>;
    expect(() => body[Symbol.asyncIterator]()).toThrow('no source');
    // The request is over; a timer left behind would fire its signal with a TimeoutError.
    await sleep(120);
    expect(signal?.aborted).toBe(false);
  });

  it('ends the deadline of a stream whose next() throws: its signal does not fire later', async () => {
    const app = new RestApplication({ logger: silentLogger, requestTimeout: 60 });
    let signal: AbortSignal | undefined;
    app.get('/broken', ({ signal: injected }) => {
      signal = injected;
      return {
        [Symbol.asyncIterator](): AsyncIterator<string> {
          return {
            next(): Promise<IteratorResult<string>> {
              throw new Error('no chunk');
            },
          };
        },
      };
    });
    const response = await app.request('/broken');
    const iterator = (response.body as AsyncIterable<string>)[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toThrow('no chunk');
    await sleep(120);
    expect(signal?.aborted).toBe(false);
  });

  it('gives an injected signal that tells of a client that went away', async () => {
    const app = new RestApplication({ logger: silentLogger });
    let gone: (() => void) | undefined;
    let signal: AbortSignal | undefined;
    app.get('/wait', ({ signal: injected }) => {
      signal = injected;
      return 'ok';
    });
    const request = new Request({
      method: 'GET',
      path: '/wait',
      context: {
        onClientGone: (_request, listener) => {
          gone = listener;
        },
      },
    });
    await app.execute(request);
    expect(signal?.aborted).toBe(false);
    gone?.();
    expect(signal?.aborted).toBe(true);
  });

  it('refuses a requestTimeout that is not a positive number of ms', () => {
    expect(() => new RestApplication({ requestTimeout: 0 })).toThrow(SetupError);
    // The message names the bound and the value as given, not JSON's null for Infinity.
    expect(() => new RestApplication({ requestTimeout: 2 ** 31 })).toThrow(
      'requestTimeout must be a number of milliseconds > 0 and below 2^31 (about 24.8 days), got 2147483648',
    );
    expect(() => new RestApplication({ requestTimeout: Number.POSITIVE_INFINITY })).toThrow(
      /got Infinity$/,
    );
    expect(
      () =>
        new RestApplication({ requestTimeout: '5s' as unknown as number, logger: {} as Logger }),
    ).toThrow(SetupError);
  });
});

describe('a stream result without a type', () => {
  it('goes out as application/octet-stream, like bytes; a typed one keeps its type', async () => {
    const app = new RestApplication({ logger: silentLogger });
    async function* page() {
      yield '<html><script>alert(1)</script>';
    }
    app.get('/generator', () => page());
    app.get('/readable-stream', () => new Blob(['<p>x</p>']).stream());
    app.get('/tuple', () => [page(), 200, { 'X-Kind': 'tuple' }]);
    app.get('/typed', () => [page(), 200, { 'Content-Type': 'text/html; charset=utf-8' }]);
    for (const path of ['/generator', '/readable-stream', '/tuple']) {
      const response = await app.request(path);
      expect(response.headers.get('content-type')).toBe('application/octet-stream');
    }
    const typed = await app.request('/typed');
    expect(typed.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });
});
