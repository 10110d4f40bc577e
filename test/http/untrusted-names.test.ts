/**
 * Untrusted names (issue 15): every map built from what a client sends treats `__proto__`,
 * `constructor`, `toString` and the other Object.prototype names as data when they were sent
 * and as absent when they were not; none of them ever becomes a prototype or an inherited member.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MultiValueHeaders, Request, RestApplication, silentLogger } from '../../src/index.js';
import { expectDataOnly, PROTOTYPE_NAMES, untrustedName } from './untrusted.js';

/** What a form-encoded query gives for `pairs`: every value per key, and the first. */
function expectedQuery(pairs: ReadonlyArray<readonly [string, string]>) {
  const all = new Map<string, string[]>();
  for (const [key, value] of pairs) {
    const values = all.get(key);
    if (values === undefined) all.set(key, [value]);
    else values.push(value);
  }
  const first = new Map([...all].map(([key, values]) => [key, values[0]]));
  return { all, first };
}

function formEncode(pairs: ReadonlyArray<readonly [string, string]>): string {
  return pairs
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    .join('&');
}

const pairs = fc.array(fc.tuple(untrustedName, fc.string({ maxLength: 6 })), { maxLength: 8 });

describe('query parameters', () => {
  it('keep __proto__ as data, never as the prototype', () => {
    const request = new Request({ method: 'GET', path: '/?__proto__=x&__proto__=y&a=1' });
    expect(Array.isArray(Object.getPrototypeOf(request.queryParamsAll))).toBe(false);
    expectDataOnly(
      request.queryParamsAll,
      new Map([
        ['__proto__', ['x', 'y']],
        ['a', ['1']],
      ]),
    );
    expectDataOnly(
      request.queryParams,
      new Map([
        ['__proto__', 'x'],
        ['a', '1'],
      ]),
    );
  });

  it('inherit nothing: a name never sent is undefined', () => {
    const request = new Request({ method: 'GET', path: '/?a=1' });
    expect(request.queryParams.toString).toBeUndefined();
    expect(request.queryParams.constructor).toBeUndefined();
    expect(request.queryParamsAll.hasOwnProperty).toBeUndefined();
    expect(new Request({ method: 'GET', path: '/' }).queryParams.valueOf).toBeUndefined();
  });

  it('given as a record keep its own __proto__ key', () => {
    const queryParams = JSON.parse('{"__proto__":["p","q"],"constructor":"c"}');
    const request = new Request({ method: 'GET', path: '/', queryParams });
    expectDataOnly(
      request.queryParamsAll,
      new Map([
        ['__proto__', ['p', 'q']],
        ['constructor', ['c']],
      ]),
    );
  });

  it('hold exactly what was sent, whatever the names (property)', () => {
    fc.assert(
      fc.property(pairs, (list) => {
        const request = new Request({ method: 'GET', path: `/?${formEncode(list)}` });
        const { all, first } = expectedQuery(list);
        expectDataOnly(request.queryParamsAll, all);
        expectDataOnly(request.queryParams, first);
      }),
    );
  });
});

describe('headers', () => {
  it('toDict and toMultiDict keep a __proto__ header as data', () => {
    const headers = MultiValueHeaders.fromRawPairs(['__proto__', 'a', '__proto__', 'b', 'X', '1']);
    const multi = headers.toMultiDict();
    expect(Array.isArray(Object.getPrototypeOf(multi))).toBe(false);
    expectDataOnly(
      multi,
      new Map([
        ['__proto__', ['a', 'b']],
        ['X', ['1']],
      ]),
    );
    expectDataOnly(
      headers.toDict(),
      new Map([
        ['__proto__', 'a'],
        ['X', '1'],
      ]),
    );
  });

  it('hold exactly what was sent, whatever the names (property)', () => {
    // Header names are tokens; the prototype names all are (`__proto__` included).
    const headerName = fc.oneof(
      fc.constantFrom(...PROTOTYPE_NAMES),
      fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(headerName, fc.stringMatching(/^[a-z0-9 ]{0,6}$/)), { maxLength: 8 }),
        (list) => {
          const headers = new MultiValueHeaders();
          const all = new Map<string, string[]>();
          const casing = new Map<string, string>();
          for (const [name, value] of list) {
            headers.add(name, value);
            const first = casing.get(name.toLowerCase()) ?? name;
            casing.set(name.toLowerCase(), first);
            const values = all.get(first);
            if (values === undefined) all.set(first, [value]);
            else values.push(value);
          }
          expectDataOnly(headers.toMultiDict(), all);
          expectDataOnly(headers.toDict(), new Map([...all].map(([k, v]) => [k, v[0]])));
          const raw = MultiValueHeaders.fromRawPairs(list.flat());
          expectDataOnly(raw.toMultiDict(), all);
        },
      ),
    );
  });
});

describe('cookies and path parameters', () => {
  it('cookies keep prototype names as data and inherit nothing (property)', () => {
    const cookieName = fc.oneof(
      fc.constantFrom(...PROTOTYPE_NAMES),
      fc.stringMatching(/^[A-Za-z0-9_]{1,8}$/),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(cookieName, fc.stringMatching(/^[a-z0-9]{0,6}$/)), { maxLength: 6 }),
        (list) => {
          const header = list.map(([name, value]) => `${name}=${value}`).join('; ');
          const request = new Request({ method: 'GET', path: '/', headers: { Cookie: header } });
          const expected = new Map<string, string>();
          for (const [name, value] of list) if (!expected.has(name)) expected.set(name, value);
          expectDataOnly(request.cookies, expected);
        },
      ),
    );
  });

  it('path parameters given to a Request inherit nothing', () => {
    const pathParams = JSON.parse('{"__proto__":"p","id":"7"}');
    const request = new Request({ method: 'GET', path: '/', pathParams });
    expectDataOnly(
      request.pathParams,
      new Map([
        ['__proto__', 'p'],
        ['id', '7'],
      ]),
    );
    expect(new Request({ method: 'GET', path: '/' }).pathParams.toString).toBeUndefined();
  });
});

describe('through the application', () => {
  function reportingApp() {
    const app = new RestApplication({ logger: silentLogger }).dependency(
      'echo',
      ({ jsonBody }) => jsonBody as Record<string, unknown>,
    );
    app.get('/q', ({ queryParams, queryParamsAll, cookies, headers }) => ({
      first: Object.entries(queryParams),
      all: Object.entries(queryParamsAll),
      inheritedQuery: PROTOTYPE_NAMES.filter(
        (name) => !Object.hasOwn(queryParams, name) && queryParams[name] !== undefined,
      ),
      inheritedCookies: PROTOTYPE_NAMES.filter(
        (name) => !Object.hasOwn(cookies, name) && cookies[name] !== undefined,
      ),
      headerDict: Object.entries(headers.toMultiDict()),
      headerPrototypeIsArray: Array.isArray(Object.getPrototypeOf(headers.toMultiDict())),
    }));
    app.post('/json', ({ echo }) => ({
      own: Object.keys(echo),
      prototypeIsObject: Object.getPrototypeOf(echo) === Object.prototype,
    }));
    return app;
  }

  it('queryParams, queryParamsAll, cookies and headers are data only (property)', async () => {
    const app = reportingApp();
    await fc.assert(
      fc.asyncProperty(pairs, async (list) => {
        const response = await app.request(`/q?${formEncode(list)}`, {
          headers: [
            ['Cookie', '__proto__=c; constructor=k'],
            ['__proto__', 'h1'],
            ['__proto__', 'h2'],
          ],
        });
        expect(response.statusCode).toBe(200);
        const body = JSON.parse(response.body as string);
        const { all, first } = expectedQuery(list);
        // An object lists integer-like keys first, whatever the order they came in.
        expect(new Map(body.first)).toEqual(first);
        expect(new Map(body.all)).toEqual(all);
        expect(body.inheritedQuery).toEqual([]);
        expect(body.inheritedCookies).toEqual([]);
        expect(body.headerPrototypeIsArray).toBe(false);
        expect(body.headerDict).toContainEqual(['__proto__', ['h1', 'h2']]);
      }),
      { numRuns: 50 },
    );
  });

  it('a parsed JSON body reaches providers with __proto__ as an own key, prototype untouched', async () => {
    const response = await reportingApp().request('/json', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}},"a":1}',
    });
    expect(JSON.parse(response.body as string)).toEqual({
      own: ['__proto__', 'constructor', 'a'],
      prototypeIsObject: true,
    });
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });
});
