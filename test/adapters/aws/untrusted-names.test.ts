/**
 * Untrusted names in Lambda events (issue 15). The runtime hands over events parsed by
 * JSON.parse, which makes a `"__proto__"` key an own property: the maps the adapter builds from
 * them must keep it (and `constructor`, `toString`...) as data, never as a prototype.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CloudGatewayAdapter } from '../../../src/adapters/aws/index.js';
import { Request, Response, RestApplication, silentLogger } from '../../../src/index.js';
import { PROTOTYPE_NAMES, untrustedName } from '../../http/untrusted.js';
import {
  albEvent,
  readAlbResult,
  readV1Result,
  readV2Result,
  restEvent,
  v2Event,
} from './fixtures.js';

/** A JSON object text with `entries` as its members, in order (a repeated key: the last wins). */
function jsonObject(entries: ReadonlyArray<readonly [string, unknown]>): string {
  return `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',')}}`;
}

/** `event` as the Lambda runtime delivers it: JSON text parsed, `maps` spliced in as JSON. */
function delivered<E extends object>(
  event: E,
  maps: Record<string, ReadonlyArray<readonly [string, unknown]> | null>,
): E {
  const parsed = JSON.parse(JSON.stringify(event)) as Record<string, unknown>;
  for (const [field, entries] of Object.entries(maps)) {
    parsed[field] = entries === null ? null : JSON.parse(jsonObject(entries));
  }
  return parsed as E;
}

/** Own entries of a map, and the Object.prototype names it answers without holding them. */
function describeMap(map: Record<string, unknown>) {
  return {
    entries: Object.entries(map),
    inherited: PROTOTYPE_NAMES.filter(
      (name) => !Object.hasOwn(map, name) && map[name] !== undefined,
    ),
  };
}

function reportingApp() {
  const app = new RestApplication({ logger: silentLogger });
  app.get(
    '/{path*}',
    ({ request, cookies }: { request: Request; cookies: Record<string, string> }) => ({
      queryAll: describeMap(request.queryParamsAll),
      query: describeMap(request.queryParams),
      headers: describeMap(request.headers.toMultiDict()),
      cookies: describeMap(cookies),
    }),
  );
  return new CloudGatewayAdapter(app, { metricsPublisher: null });
}

type MapReport = { entries: Array<[string, unknown]>; inherited: string[] };
type Report = Record<'queryAll' | 'query' | 'headers' | 'cookies', MapReport>;

function report(body: Uint8Array): Report {
  return JSON.parse(new TextDecoder().decode(body));
}

/** Groups headers by lower-case name in first-seen order, as the adapter reads them. */
function grouped(entries: ReadonlyArray<readonly [string, string[]]>): Array<[string, string[]]> {
  const out = new Map<string, string[]>();
  for (const [name, values] of entries) {
    const key = name.toLowerCase();
    out.set(key, [...(out.get(key) ?? []), ...values]);
  }
  return [...out];
}

describe('Lambda events with prototype names', () => {
  const adapter = reportingApp();

  it('REST 1.0: multi-value query, headers and path parameters keep __proto__ as data', async () => {
    const event = delivered(restEvent({ method: 'GET', path: '/x' }), {
      queryStringParameters: [
        ['__proto__', 'b'],
        ['toString', 't'],
      ],
      multiValueQueryStringParameters: [
        ['__proto__', ['a', 'b']],
        ['toString', ['t']],
      ],
      multiValueHeaders: [
        ['__proto__', ['h1', 'h2']],
        ['Cookie', ['constructor=c; __proto__=p']],
      ],
      pathParameters: [
        ['__proto__', 'p'],
        ['proxy', 'x'],
      ],
    });
    const seen = report(readV1Result(await adapter.handleEvent(event)).body);
    expect(seen.queryAll).toEqual({
      entries: [
        ['__proto__', ['a', 'b']],
        ['toString', ['t']],
      ],
      inherited: [],
    });
    expect(seen.query).toEqual({
      entries: [
        ['__proto__', 'a'],
        ['toString', 't'],
      ],
      inherited: [],
    });
    expect(seen.headers.entries).toContainEqual(['__proto__', ['h1', 'h2']]);
    expect(seen.headers.inherited).toEqual([]);
    expect(seen.cookies).toEqual({
      entries: [
        ['constructor', 'c'],
        ['__proto__', 'p'],
      ],
      inherited: [],
    });
    const request = adapter.convertToRequest(event);
    expect(Object.entries(request.pathParams)).toEqual([
      ['__proto__', 'p'],
      ['proxy', 'x'],
    ]);
    expect(request.pathParams.toString).toBeUndefined();
  });

  it('HTTP API 2.0 without rawQueryString: the query map keeps __proto__ as data', async () => {
    const base = v2Event({ method: 'GET', path: '/x' }) as unknown as Record<string, unknown>;
    delete base.rawQueryString;
    const event = delivered(base, {
      queryStringParameters: [
        ['__proto__', 'x'],
        ['valueOf', 'v'],
      ],
      pathParameters: [['__proto__', 'p']],
    });
    (event as { cookies?: string[] }).cookies = ['__proto__=c', 'hasOwnProperty=h'];
    const seen = report(readV2Result(await adapter.handleEvent(event as never)).body);
    expect(seen.queryAll).toEqual({
      entries: [
        ['__proto__', ['x']],
        ['valueOf', ['v']],
      ],
      inherited: [],
    });
    expect(seen.cookies).toEqual({
      entries: [
        ['__proto__', 'c'],
        ['hasOwnProperty', 'h'],
      ],
      inherited: [],
    });
    const request = adapter.convertToRequest(event as never);
    expect(Object.entries(request.pathParams)).toEqual([['__proto__', 'p']]);
  });

  it('ALB in both modes: headers and query keep __proto__ as data', async () => {
    const multi = delivered(albEvent({ method: 'GET', path: '/x' }, { multiValue: true }), {
      multiValueHeaders: [['__proto__', ['h1', 'h2']]],
      multiValueQueryStringParameters: [['__proto__', ['a', 'b%20c']]],
    });
    const seenMulti = report(readAlbResult(await adapter.handleEvent(multi), true).body);
    expect(seenMulti.headers).toEqual({ entries: [['__proto__', ['h1', 'h2']]], inherited: [] });
    expect(seenMulti.queryAll).toEqual({ entries: [['__proto__', ['a', 'b c']]], inherited: [] });
    const single = delivered(albEvent({ method: 'GET', path: '/x' }), {
      headers: [['__proto__', 'h']],
      queryStringParameters: [['constructor', 'k']],
    });
    const seenSingle = report(readAlbResult(await adapter.handleEvent(single), false).body);
    expect(seenSingle.headers).toEqual({ entries: [['__proto__', ['h']]], inherited: [] });
    expect(seenSingle.queryAll).toEqual({ entries: [['constructor', ['k']]], inherited: [] });
  });

  it('REST 1.0 maps hold exactly what the event carries, whatever the names (property)', async () => {
    const values = fc.array(fc.stringMatching(/^[a-z0-9 ]{0,4}$/), { minLength: 1, maxLength: 3 });
    const headerName = fc.oneof(
      fc.constantFrom(...PROTOTYPE_NAMES),
      fc.stringMatching(/^[a-z0-9_-]{1,8}$/),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(untrustedName, values), { selector: ([key]) => key, maxLength: 6 }),
        fc.uniqueArray(fc.tuple(headerName, values), { selector: ([key]) => key, maxLength: 6 }),
        async (query, headers) => {
          const event = delivered(restEvent({ method: 'GET', path: '/x' }), {
            queryStringParameters: null,
            multiValueQueryStringParameters: query,
            multiValueHeaders: headers,
          });
          const seen = report(readV1Result(await adapter.handleEvent(event)).body);
          // Object.keys order (integer-like keys first) is the order the event map has.
          const map = event.multiValueQueryStringParameters as Record<string, string[]>;
          const expected = Object.keys(map).map((key) => [key, map[key]] as [string, string[]]);
          expect(seen.queryAll).toEqual({ entries: expected, inherited: [] });
          expect(seen.query.inherited).toEqual([]);
          const headerMap = event.multiValueHeaders as Record<string, string[]>;
          const expectedHeaders = grouped(
            Object.keys(headerMap).map((name) => [name, headerMap[name] as string[]]),
          );
          for (const entry of expectedHeaders) expect(seen.headers.entries).toContainEqual(entry);
          expect(seen.headers.inherited).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('maps on a polluted Object.prototype', () => {
  const adapter = reportingApp();

  /** Runs `check` while Object.prototype carries two enumerable names, as a polluting bug leaves it. */
  async function polluted(check: () => Promise<void>): Promise<void> {
    const proto = Object.prototype as Record<string, unknown>;
    proto['x-polluted'] = 'evil';
    proto['x-polluted-list'] = ['evil'];
    try {
      await check();
    } finally {
      delete proto['x-polluted'];
      delete proto['x-polluted-list'];
    }
  }

  // Another library's bug may add an enumerable property to Object.prototype; an event's maps
  // then inherit it, and only their own entries may become request headers or query parameters.
  it('read only their own entries in every header and query map shape', async () => {
    const singleMaps = delivered(restEvent({ method: 'GET', path: '/x?q=1' }), {
      multiValueHeaders: null,
      multiValueQueryStringParameters: null,
    });
    const v2 = v2Event({ method: 'GET', path: '/x?q=1' }) as unknown as Record<string, unknown>;
    delete v2.rawQueryString;
    const events: Array<[string, unknown, (result: never) => { body: Uint8Array }]> = [
      ['REST multi-value maps', restEvent({ method: 'GET', path: '/x?q=1' }), readV1Result],
      ['REST single-value maps', singleMaps, readV1Result],
      ['HTTP API maps', v2, readV2Result],
      [
        'ALB single-value maps',
        albEvent({ method: 'GET', path: '/x?q=1' }),
        (r) => readAlbResult(r, false),
      ],
      [
        'ALB multi-value maps',
        albEvent({ method: 'GET', path: '/x?q=1' }, { multiValue: true }),
        (r) => readAlbResult(r, true),
      ],
    ];
    await polluted(async () => {
      for (const [label, event, read] of events) {
        const seen = report(read((await adapter.handleEvent(event as never)) as never).body);
        const headerNames = seen.headers.entries.map(([name]) => name);
        expect(headerNames, label).not.toContain('x-polluted');
        expect(headerNames, label).not.toContain('x-polluted-list');
        expect(headerNames, label).toContain('user-agent');
        expect(seen.queryAll.entries, label).toEqual([['q', ['1']]]);
      }
    });
  });

  it('a query record handed to a Request gives only its own entries', async () => {
    await polluted(async () => {
      const request = new Request({ method: 'GET', path: '/x', queryParams: { q: ['1', '2'] } });
      expect(Object.entries(request.queryParamsAll)).toEqual([['q', ['1', '2']]]);
    });
  });
});

describe('ALB maps are read independently', () => {
  const adapter = reportingApp();

  it('single-value headers with multiValueQueryStringParameters still give every query value', async () => {
    const event = albEvent({ method: 'GET', path: '/x?tag=a&tag=b%2Bc&q=one+two' });
    delete event.queryStringParameters;
    event.multiValueQueryStringParameters = { tag: ['a', 'b%2Bc'], q: ['one+two'] };
    const result = await adapter.handleEvent(event);
    // The result keeps the shape of the headers the event came with.
    const seen = report(readAlbResult(result, false).body);
    expect(seen.queryAll.entries).toEqual([
      ['tag', ['a', 'b+c']],
      ['q', ['one two']],
    ]);
    expect(seen.headers.entries).toContainEqual(['user-agent', ['curl/8.5.0']]);
  });

  it('multi-value headers with single-value queryStringParameters still give the query', async () => {
    const event = albEvent({ method: 'GET', path: '/x' }, { multiValue: true });
    delete event.multiValueQueryStringParameters;
    event.queryStringParameters = { q: 'one%20two' };
    const seen = report(readAlbResult(await adapter.handleEvent(event), true).body);
    expect(seen.queryAll.entries).toEqual([['q', ['one two']]]);
  });
});

describe('response headers named like Object.prototype members', () => {
  // What the handler sends; the one application reads it for each run.
  let sent: Array<[string, string]> = [];
  const app = new RestApplication({ logger: silentLogger });
  app.get('/h', () => new Response(200, 'ok', { headers: sent }));
  const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
  // The runtime sends the result as JSON, which keeps a `__proto__` key as data.
  const overTheWire = <T>(result: T): T => JSON.parse(JSON.stringify(result)) as T;

  it('reach the client through every integration, each value once and in order', async () => {
    const values = fc.array(fc.stringMatching(/^[a-z0-9]{1,4}$/), { minLength: 1, maxLength: 3 });
    const headerName = fc.oneof(
      fc.constantFrom(...PROTOTYPE_NAMES),
      fc.stringMatching(/^x-[a-z0-9_]{1,6}$/),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(headerName, values), {
          selector: ([name]) => name.toLowerCase(),
          maxLength: 5,
        }),
        async (headers) => {
          sent = headers.flatMap(([name, list]) => list.map((v): [string, string] => [name, v]));
          const get = { method: 'GET', path: '/h' };
          const rest = readV1Result(overTheWire(await adapter.handleEvent(restEvent(get))));
          const http = readV2Result(overTheWire(await adapter.handleEvent(v2Event(get))));
          const alb = readAlbResult(
            overTheWire(await adapter.handleEvent(albEvent(get, { multiValue: true }))),
            true,
          );
          for (const [name, list] of headers) {
            expect(rest.headers.getAll(name)).toEqual(list);
            expect(alb.headers.getAll(name)).toEqual(list);
            // An HTTP API result joins repeated values (RFC 9110 §5.3).
            expect(http.headers.getAll(name)).toEqual([list.join(', ')]);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
