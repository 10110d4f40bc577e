import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  HttpError,
  MultiValueHeaders,
  Request,
  RestApplication,
  type WholeBodyReader,
} from '../src/index.js';

// The stream side of a whole-body reader: the request must never fall back to it.
function notIterated(): AsyncIterator<Uint8Array> {
  return { next: () => Promise.reject(new Error('a whole-body reader is not iterated')) };
}

describe('Request', () => {
  it('has the seed fields with their defaults', () => {
    const request = new Request({ method: 'get', path: '/a' });
    expect(request.method).toBe('GET');
    expect(request.path).toBe('/a');
    expect(request.headers).toBeInstanceOf(MultiValueHeaders);
    expect(request.body).toBeUndefined();
    expect(request.queryParams).toEqual({});
    expect(request.pathParams).toEqual({});
    expect(request.tls).toBe(false);
    expect(request.clientCert).toBeUndefined();
  });

  it('copies the string path parameters it was given, once, into a map that inherits nothing', () => {
    const given: Record<string, string | undefined> = { id: '7', missing: undefined };
    const request = new Request({ method: 'GET', path: '/users/7', pathParams: given });
    const params = request.pathParams;
    expect(Object.entries(params)).toEqual([['id', '7']]);
    expect(Object.getPrototypeOf(Object.getPrototypeOf(params))).toBeNull();
    given.id = '8';
    expect(request.pathParams).toBe(params);
    expect(request.pathParams.id).toBe('7');
  });

  it('keeps an unknown method as received', () => {
    expect(new Request({ method: 'BREW', path: '/' }).method).toBe('BREW');
  });

  it('splits the query off the path and keeps repeated keys', () => {
    const request = new Request({ method: 'GET', path: '/s%20p?q=a+b&q=c&x=%2F&bad=%zz' });
    expect(request.path).toBe('/s%20p');
    expect(request.queryParams).toEqual({ q: 'a b', x: '/', bad: '%zz' });
    expect(request.queryParamsAll.q).toEqual(['a b', 'c']);
  });

  it('decodes the valid escapes beside a malformed one, as URLSearchParams does', () => {
    const request = new Request({ method: 'GET', path: '/?q=caf%C3%A9+100%+off&b=%E9&%zz%41=1' });
    expect(request.queryParams).toEqual({ q: 'café 100% off', b: '\uFFFD', '%zzA': '1' });
  });

  it('keeps a byte order mark in a value, beside a malformed escape or not, as URLSearchParams does', () => {
    const request = new Request({ method: 'GET', path: '/?x=%EF%BB%BFv%zz&y=%EF%BB%BFv' });
    expect(request.queryParams).toEqual({ x: '\uFEFFv%zz', y: '\uFEFFv' });
    // Property: a value opening with an escaped BOM reads as URLSearchParams reads it (ASCII
    // text, as in the property below).
    const piece = fc.constantFrom('%', '+', 'a', '%zz', '%4', '%41', '%C3%A9', '%EF%BB%BF');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), (pieces) => {
        const query = `x=%EF%BB%BF${pieces.join('')}`;
        const request = new Request({ method: 'GET', path: `/?${query}` });
        expect(request.queryParams.x).toBe(new URLSearchParams(query).get('x'));
      }),
    );
  });

  it('reads the query after the first ? as it is, a leading ? of its own included', () => {
    const request = new Request({ method: 'GET', path: '/x??a=1&b=2' });
    expect(request.queryParamsAll).toEqual({ '?a': ['1'], b: ['2'] });
    expect(request.queryString).toBe('?a=1&b=2');
    // Property: any query of question marks, separators and text reads as the query after a
    // URL's first `?` does: URLSearchParams drops the one `?` put before it, and no more.
    const piece = fc.oneof(
      fc.constantFrom('?', '??', '&', '=', 'a', '%3F'),
      fc.string({ maxLength: 2 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        const query = pieces.join('').replace(/#/g, '');
        const expected = new Map<string, string[]>();
        for (const [key, value] of new URLSearchParams(`?${query}`)) {
          expected.set(key, [...(expected.get(key) ?? []), value]);
        }
        const request = new Request({ method: 'GET', path: `/x?${query}` });
        expect(new Map(Object.entries(request.queryParamsAll))).toEqual(expected);
      }),
    );
  });

  it('reads any query string as URLSearchParams reads it', () => {
    // ASCII text made of what matters to decoding: escapes, malformed or not, and plus signs.
    // Escaped bytes that are not UTF-8, and raw non-ASCII beside a malformed escape, are left to
    // the example above: there Node's URLSearchParams departs from the URL Standard, which this
    // follows.
    const piece = fc.oneof(
      fc.constantFrom(
        '%',
        '+',
        '=',
        'a',
        '%zz',
        '%4',
        '%41',
        '%C3%A9',
        '%F0%9F%98%80',
        '%EF%BB%BF',
      ),
      fc.string({ maxLength: 3 }),
    );
    const pair = fc.tuple(fc.array(piece, { maxLength: 6 }), fc.array(piece, { maxLength: 6 }));
    fc.assert(
      fc.property(fc.array(pair, { minLength: 1, maxLength: 4 }), (pairs) => {
        const query = pairs
          .map(
            ([key, value]) =>
              `${key.join('').replace(/[&#=]/g, '')}=${value.join('').replace(/[&#]/g, '')}`,
          )
          .join('&');
        const expected = new Map<string, string[]>();
        // The query after the path's first `?`, read as it is: URLSearchParams drops the one `?`
        // put before it, and a `?` starting the query stays part of the first key.
        for (const [key, value] of new URLSearchParams(`?${query}`)) {
          expected.set(key, [...(expected.get(key) ?? []), value]);
        }
        const request = new Request({ method: 'GET', path: `/?${query}` });
        expect(new Map(Object.entries(request.queryParamsAll))).toEqual(expected);
      }),
    );
  });

  it('takes query parameters as a record with array values', () => {
    const request = new Request({
      method: 'GET',
      path: '/',
      queryParams: { a: ['1', '2'], b: '3' },
    });
    expect(request.queryParams).toEqual({ a: '1', b: '3' });
    expect(request.queryParamsAll).toEqual({ a: ['1', '2'], b: ['3'] });
  });

  it('always stores headers as MultiValueHeaders', () => {
    const request = new Request({ method: 'GET', path: '/', headers: { Accept: 'text/html' } });
    expect(request.headers.get('accept')).toBe('text/html');
  });

  it('answers */* when there is no Accept header', () => {
    expect(new Request({ method: 'GET', path: '/' }).getAcceptHeader()).toBe('*/*');
    const request = new Request({ method: 'GET', path: '/', headers: { accept: 'text/html' } });
    expect(request.getAcceptHeader()).toBe('text/html');
  });

  it('reads the Authorization header', () => {
    const request = new Request({
      method: 'GET',
      path: '/',
      headers: { Authorization: 'Bearer t' },
    });
    expect(request.getAuthorizationHeader()).toBe('Bearer t');
    expect(new Request({ method: 'GET', path: '/' }).getAuthorizationHeader()).toBeUndefined();
  });

  it('parses If-Match and If-None-Match into entity tags, * kept', () => {
    const request = new Request({
      method: 'GET',
      path: '/',
      headers: { 'If-Match': '"a", W/"b",  "c,d"', 'If-None-Match': '*' },
    });
    expect(request.getIfMatch()).toEqual(['"a"', 'W/"b"', '"c,d"']);
    expect(request.getIfNoneMatch()).toEqual(['*']);
    expect(new Request({ method: 'GET', path: '/' }).getIfMatch()).toEqual([]);
  });

  it('parses If-Modified-Since and If-Unmodified-Since in all three date formats', () => {
    const expected = Date.UTC(1994, 10, 6, 8, 49, 37);
    for (const value of [
      'Sun, 06 Nov 1994 08:49:37 GMT',
      'Sunday, 06-Nov-94 08:49:37 GMT',
      'Sun Nov  6 08:49:37 1994',
    ]) {
      const request = new Request({
        method: 'GET',
        path: '/',
        headers: { 'If-Modified-Since': value, 'If-Unmodified-Since': value },
      });
      expect(request.getIfModifiedSince()?.getTime()).toBe(expected);
      expect(request.getIfUnmodifiedSince()?.getTime()).toBe(expected);
    }
  });

  it('gives undefined for absent or unparseable dates', () => {
    const request = new Request({
      method: 'GET',
      path: '/',
      headers: { 'If-Modified-Since': 'yesterday' },
    });
    expect(request.getIfModifiedSince()).toBeUndefined();
    expect(request.getIfUnmodifiedSince()).toBeUndefined();
  });

  it('reads a body once from a string, bytes, a Node stream or a ReadableStream', async () => {
    const fromString = new Request({ method: 'POST', path: '/', body: '{"a":1}' });
    expect(await fromString.json()).toEqual({ a: 1 });
    expect(await fromString.text()).toBe('{"a":1}');
    const fromBytes = new Request({
      method: 'POST',
      path: '/',
      body: new TextEncoder().encode('hé'),
    });
    expect(await fromBytes.text()).toBe('hé');
    const fromNode = new Request({
      method: 'POST',
      path: '/',
      body: Readable.from([Buffer.from('a'), Buffer.from('b')]),
    });
    expect(await fromNode.text()).toBe('ab');
    expect(await fromNode.text()).toBe('ab');
    const fromWeb = new Request({
      method: 'POST',
      path: '/',
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('x'));
          controller.enqueue(new TextEncoder().encode('y'));
          controller.close();
        },
      }),
    });
    expect(new TextDecoder().decode(await fromWeb.bytes())).toBe('xy');
  });

  it('stops reading a stream at the body limit with 413', async () => {
    let produced = 0;
    const endless = new Readable({
      read() {
        produced += 1024;
        this.push(Buffer.alloc(1024));
      },
    });
    const request = new Request({ method: 'POST', path: '/', body: endless, bodyLimit: 10_000 });
    await expect(request.bytes()).rejects.toMatchObject({ statusCode: 413 });
    expect(produced).toBeLessThan(64 * 1024);
    expect(endless.destroyed).toBe(true);
  });

  it('reads a whole-body reader once, with the limit, and shares the bytes', async () => {
    const limits: number[] = [];
    const reader: WholeBodyReader = {
      readWhole(limit: number) {
        limits.push(limit);
        return Promise.resolve(new TextEncoder().encode('{"a":"é"}'));
      },
      [Symbol.asyncIterator]: notIterated,
    };
    const request = new Request({ method: 'POST', path: '/', body: reader, bodyLimit: 500 });
    expect(await request.json()).toEqual({ a: 'é' });
    expect(await request.text()).toBe('{"a":"é"}');
    expect((await request.bytes()).length).toBe(10);
    expect(limits).toEqual([500]);
  });

  it('turns a whole-body reader that throws into a rejection', async () => {
    const reader: WholeBodyReader = {
      readWhole(): Promise<Uint8Array> {
        throw new HttpError(413, 'too large');
      },
      [Symbol.asyncIterator]: notIterated,
    };
    const request = new Request({ method: 'POST', path: '/', body: reader });
    const bytes = request.bytes();
    expect(bytes).toBeInstanceOf(Promise);
    await expect(bytes).rejects.toMatchObject({ statusCode: 413 });
  });

  it('rejects malformed JSON and invalid UTF-8 with 400', async () => {
    await expect(
      new Request({ method: 'POST', path: '/', body: '{' }).json(),
    ).rejects.toBeInstanceOf(HttpError);
    const invalid = new Request({ method: 'POST', path: '/', body: new Uint8Array([0xff, 0xfe]) });
    await expect(invalid.text()).rejects.toMatchObject({ statusCode: 400 });
  });

  it('parses cookies', () => {
    const request = new Request({
      method: 'GET',
      path: '/',
      headers: { Cookie: 'a=1; b="two"; c=%20x' },
    });
    expect(request.cookies).toEqual({ a: '1', b: 'two', c: ' x' });
  });
});

describe('an absolute URL as the path', () => {
  // RFC 9112 §3.2.2: the Node server routes an absolute-form target by its path and takes its
  // authority as the Host (docs/node.md); app.request() and new Request() do the same
  // (docs/testing.md), where they answered a 404 for the whole URL taken as a path.
  it('is routed by its path and query through app.request() and app.execute()', async () => {
    const app = new RestApplication();
    app.get('/users/{id}', ({ request }) => ({
      id: request.pathParams.id,
      x: request.queryParams.x,
      host: request.headers.get('host'),
    }));
    const viaRequest = await app.request('http://example.com:8080/users/1?x=2');
    expect([viaRequest.statusCode, JSON.parse(String(viaRequest.body))]).toEqual([
      200,
      { id: '1', x: '2', host: 'example.com:8080' },
    ]);
    const viaExecute = await app.execute(
      new Request({ method: 'GET', path: 'http://localhost/users/7?x=y' }),
    );
    expect([viaExecute.statusCode, JSON.parse(String(viaExecute.body))]).toEqual([
      200,
      { id: '7', x: 'y', host: 'localhost' },
    ]);
    // A Host given with it is kept: a test that sets one means it.
    const given = await app.request('http://localhost/users/3', { headers: { Host: 'api.test' } });
    expect(JSON.parse(String(given.body))).toEqual({ id: '3', host: 'api.test' });
  });

  it('keeps the path as sent, and reads an authority alone as the root', () => {
    const encoded = new Request({ method: 'GET', path: 'https://h.example/a/%2F/b?q=1#frag' });
    expect([encoded.path, encoded.queryParams.q]).toEqual(['/a/%2F/b', '1']);
    const root = new Request({ method: 'GET', path: 'http://h.example?q=1' });
    expect([root.path, root.queryParams.q, root.headers.get('host')]).toEqual([
      '/',
      '1',
      'h.example',
    ]);
    // A caller's headers are not written into: the Host goes into a copy.
    const shared = new MultiValueHeaders({ Accept: 'text/plain' });
    const request = new Request({ method: 'GET', path: 'http://h.example/', headers: shared });
    expect(request.headers.get('host')).toBe('h.example');
    expect(shared.has('host')).toBe(false);
    // A path that is no URL stays as it is: the router answers it.
    expect(new Request({ method: 'GET', path: 'users/1' }).path).toBe('users/1');
    expect(new Request({ method: 'GET', path: '*' }).path).toBe('*');
  });

  it('refuses an authority the Node server refuses: credentials, an empty or malformed host', async () => {
    for (const target of [
      'http://alice:s3cret@localhost/users/1',
      'http:///users/1',
      'http://abs .example/a',
      'http://abs.example\\a',
    ]) {
      expect(() => new Request({ method: 'GET', path: target }), target).toThrow(
        /has no valid authority/,
      );
    }
    const app = new RestApplication();
    app.get('/users/{id}', ({ id }) => id);
    await expect(app.request('http://alice:s3cret@localhost/users/1')).rejects.toThrow(TypeError);
    // IP literals and ports are authorities.
    expect(new Request({ method: 'GET', path: 'http://[::1]:8080/a' }).headers.get('host')).toBe(
      '[::1]:8080',
    );
  });
});
