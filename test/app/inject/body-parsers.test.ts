import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  HttpError,
  RestApplication,
  Router,
  SetupError,
  silentLogger,
} from '../../../src/index.js';

function newApp() {
  return new RestApplication({ logger: silentLogger });
}

function json(response: { body: unknown }): unknown {
  return JSON.parse(response.body as string);
}

function send(
  app: RestApplication,
  path: string,
  type: string,
  body: string | Uint8Array,
  method = 'POST',
) {
  return app.request(path, { method, headers: { 'content-type': type }, body });
}

describe('accepts() and parsedBody', () => {
  it('reads text through { body } and bytes through { request }', async () => {
    const app = newApp()
      .accepts('text/csv', ({ body }) => body.split(','))
      .accepts('application/octet-stream', async ({ request }) => (await request.bytes()).length);
    app.post('/in', ({ parsedBody }) => ({ parsedBody }));
    expect(json(await send(app, '/in', 'text/csv; header=present', 'a,b'))).toEqual({
      parsedBody: ['a', 'b'],
    });
    const bytes = await send(app, '/in', 'application/octet-stream', new Uint8Array([1, 2, 3]));
    expect(json(bytes)).toEqual({ parsedBody: 3 });
  });

  it('prefers the closest fit: exact, then a structured suffix, then type/*, then */*', async () => {
    const app = newApp()
      .accepts('*/*', () => 'any')
      .accepts('text/*', () => 'text')
      .accepts('text/plain', () => 'plain')
      .accepts('application/*+json', () => 'suffix');
    app.post('/in', ({ parsedBody }) => ({ parsedBody }));
    const parsed = async (type: string) => json(await send(app, '/in', type, 'x'));
    expect(await parsed('text/plain')).toEqual({ parsedBody: 'plain' });
    expect(await parsed('TEXT/HTML; charset=utf-8')).toEqual({ parsedBody: 'text' });
    expect(await parsed('application/vnd.api+json')).toEqual({ parsedBody: 'suffix' });
    expect(await parsed('image/png')).toEqual({ parsedBody: 'any' });
  });

  it('takes +json types with an application/json parser', async () => {
    const app = newApp().accepts('application/json', ({ body }) => ({ length: body.length }));
    app.post('/in', ({ parsedBody }) => parsedBody);
    expect(json(await send(app, '/in', 'application/problem+json', '{}'))).toEqual({ length: 2 });
  });

  it('lets the innermost registration win: route, routers inside out, application', async () => {
    const app = newApp().accepts('text/plain', () => 'app');
    const outer = new Router().accepts('text/plain', () => 'outer');
    const inner = new Router().accepts('text/plain', () => 'inner');
    inner.post('/router', ({ parsedBody }) => ({ parsedBody }));
    inner.post('/route', ({ parsedBody }) => ({ parsedBody })).accepts('text/plain', () => 'route');
    outer.mount('/inner', inner);
    outer.post('/outer', ({ parsedBody }) => ({ parsedBody }));
    app.mount('/o', outer);
    app.post('/app', ({ parsedBody }) => ({ parsedBody }));
    const parsed = async (path: string) => json(await send(app, path, 'text/plain', 'x'));
    expect(await parsed('/app')).toEqual({ parsedBody: 'app' });
    expect(await parsed('/o/outer')).toEqual({ parsedBody: 'outer' });
    expect(await parsed('/o/inner/router')).toEqual({ parsedBody: 'inner' });
    expect(await parsed('/o/inner/route')).toEqual({ parsedBody: 'route' });
  });

  it('gives parsers path parameters and registered names, and runs one once per request', async () => {
    let runs = 0;
    const app = new RestApplication<Record<string, unknown>>({ logger: silentLogger });
    app.dependency('prefix', () => '>');
    app.dependency('check', ({ parsedBody }) => parsedBody);
    app
      .post('/items/{id}', ({ parsedBody, check }) => ({ parsedBody, check }))
      .accepts('text/plain', ({ id, prefix, body }) => {
        runs++;
        return `${prefix}${id}:${body}`;
      });
    const response = await send(app, '/items/7', 'text/plain', 'x');
    expect(json(response)).toEqual({ parsedBody: '>7:x', check: '>7:x' });
    expect(runs).toBe(1);
  });

  it('answers 415 with Accept listing what the route reads', async () => {
    const app = new RestApplication<Record<string, unknown>>({ logger: silentLogger });
    app.accepts('text/csv', ({ body }) => body);
    app.post('/csv', ({ parsedBody }) => parsedBody);
    app.post('/both', ({ parsedBody, jsonBody }) => [parsedBody, jsonBody]);
    app.post('/form', ({ formBody }) => formBody);
    app.validates('note', z.object({ text: z.string() }), { source: 'formBody' });
    app.post('/note', ({ note }) => note);
    app.post('/none', () => {
      throw new HttpError(415);
    });
    app.post('/own', () => {
      throw new HttpError(415, 'no', undefined, { Accept: 'image/png' });
    });
    const accept = async (path: string, type = 'text/plain') => {
      const response = await send(app, path, type, 'x');
      expect(response.statusCode).toBe(415);
      return response.headers.get('accept');
    };
    expect(await accept('/csv')).toBe('text/csv');
    expect(await accept('/both')).toBe('application/json, text/csv');
    expect(await accept('/form')).toBe('application/x-www-form-urlencoded, multipart/form-data');
    // The message says the same as the Accept header.
    const form = await send(app, '/form', 'text/plain', 'x');
    expect(JSON.parse(form.body as string).error).toBe(
      'Unsupported Content-Type "text/plain"; expected application/x-www-form-urlencoded or multipart/form-data',
    );
    expect(await accept('/note')).toBe('application/x-www-form-urlencoded, multipart/form-data');
    expect(await accept('/none')).toBe('*/*');
    expect(await accept('/own')).toBe('image/png');
    const missing = await app.request('/csv', { method: 'POST', body: 'x' });
    expect(missing.statusCode).toBe(415);
    expect(missing.headers.get('accept')).toBe('text/csv');
  });

  it('adds Accept-Patch to a 415 to PATCH only', async () => {
    const app = newApp();
    app.patch('/doc', ({ jsonBody }) => jsonBody);
    app.put('/doc', ({ jsonBody }) => jsonBody);
    const patch = await send(app, '/doc', 'text/plain', 'x', 'PATCH');
    expect(patch.statusCode).toBe(415);
    expect(patch.headers.get('accept-patch')).toBe('application/json');
    const put = await send(app, '/doc', 'text/plain', 'x', 'PUT');
    expect(put.headers.get('accept')).toBe('application/json');
    expect(put.headers.has('accept-patch')).toBe(false);
  });

  it('refuses a malformed media type and a parser that injects parsedBody', () => {
    const app = newApp() as unknown as RestApplication<Record<string, unknown>>;
    expect(() => app.accepts('csv', ({ body }) => body)).toThrow(SetupError);
    expect(() => app.accepts('*/csv', ({ body }) => body)).toThrow(SetupError);
    expect(() => app.accepts('text/csv', ({ parsedBody }) => parsedBody)).toThrow(
      /cannot inject parsedBody/,
    );
  });
});

describe('declared charsets', () => {
  const cafeLatin1 = new Uint8Array([0x43, 0x61, 0x66, 0xe9]);

  function echoApp() {
    const app = newApp();
    app.post('/text', ({ body }) => ({ body }));
    app.post('/json', ({ jsonBody }) => jsonBody);
    app.post('/form', ({ formBody }) => formBody);
    return app;
  }

  it('decodes an iso-8859-1 text body (it was a 400 "not valid UTF-8")', async () => {
    const response = await send(echoApp(), '/text', 'text/plain; charset=iso-8859-1', cafeLatin1);
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ body: 'Café' });
  });

  it('refuses a charset nobody knows for a body that is already text, as for bytes', async () => {
    const app = echoApp();
    for (const [path, type, text] of [
      ['/json', 'application/json; charset=bogus', '{"a":1}'],
      ['/text', 'text/plain; charset=iso-2022-kr', 'hi'],
    ] as const) {
      const asText = await send(app, path, type, text);
      const asBytes = await send(app, path, type, new TextEncoder().encode(text));
      expect([asText.statusCode, asBytes.statusCode], type).toEqual([415, 415]);
    }
    // A known charset on a text body is taken as it is.
    expect((await send(app, '/text', 'text/plain; charset=iso-8859-1', 'Café')).statusCode).toBe(
      200,
    );
  });

  it('decodes windows-1252 C1 bytes as the Encoding Standard maps them', async () => {
    const bytes = new Uint8Array([0x80, 0x92, 0x9f]);
    const response = await send(echoApp(), '/text', 'text/plain; charset="Windows-1252"', bytes);
    expect(json(response)).toEqual({ body: '€’Ÿ' });
  });

  it('decodes utf-16le JSON and quoted labels', async () => {
    const bytes = new Uint8Array(Buffer.from('{"a":"Café"}', 'utf16le'));
    const response = await send(echoApp(), '/json', 'application/json;charset="utf-16le"', bytes);
    expect(json(response)).toEqual({ a: 'Café' });
  });

  it('reads form escapes as bytes of the declared charset', async () => {
    const bytes = new Uint8Array(Buffer.from('a=Caf%E9+au+lait&a=2&b&%E9=%80', 'latin1'));
    const response = await send(
      echoApp(),
      '/form',
      'application/x-www-form-urlencoded; charset=iso-8859-1',
      bytes,
    );
    expect(json(response)).toEqual({ a: 'Café au lait', b: '', é: '€' });
  });

  it('keeps a byte order mark at the start of a UTF-8 form name or value, as a query does', async () => {
    // The URL Standard's urlencoded parser decodes each name and value "without BOM".
    const body = new TextEncoder().encode('a=%EF%BB%BFv&%EF%BB%BFb=1');
    for (const type of [
      'application/x-www-form-urlencoded',
      'application/x-www-form-urlencoded; charset=utf-8',
    ]) {
      const response = await send(echoApp(), '/form', type, body);
      expect(json(response)).toEqual({ a: '\uFEFFv', '\uFEFFb': '1' });
    }
    const query = new URLSearchParams('a=%EF%BB%BFv');
    expect(query.get('a')).toBe('\uFEFFv');
  });

  it('answers 415 to an unknown charset on text, JSON and form bodies', async () => {
    const app = echoApp();
    for (const [path, type] of [
      ['/text', 'text/plain'],
      ['/json', 'application/json'],
      ['/form', 'application/x-www-form-urlencoded'],
    ] as const) {
      const response = await send(app, path, `${type}; charset=klingon`, cafeLatin1);
      expect(response.statusCode).toBe(415);
      expect(response.headers.get('accept')).toBeDefined();
    }
  });

  it('reads a UTF-8 form body (declared or not) as bytes, strictly, around malformed escapes', async () => {
    const app = echoApp();
    for (const type of [
      'application/x-www-form-urlencoded',
      'application/x-www-form-urlencoded; charset=utf-8',
    ]) {
      const body = new TextEncoder().encode('q=caf%C3%A9+100%+off&r=%zz%41');
      const response = await send(app, '/form', type, body);
      expect(json(response), type).toEqual({ q: 'café 100% off', r: '%zzA' });
      // An escape naming a byte that is not UTF-8 is the same 400 as the raw byte.
      const latin = await send(app, '/form', type, new TextEncoder().encode('a=%E9'));
      expect(latin.statusCode, type).toBe(400);
      expect(json(latin), type).toMatchObject({ error: 'Request body is not valid utf-8' });
    }
  });

  it('keeps UTF-8 the strict default', async () => {
    const app = echoApp();
    expect((await send(app, '/text', 'text/plain', cafeLatin1)).statusCode).toBe(400);
    expect((await send(app, '/json', 'application/json', cafeLatin1)).statusCode).toBe(400);
    const utf8 = await send(app, '/text', 'text/plain; charset=UTF-8', cafeLatin1);
    expect(utf8.statusCode).toBe(400);
    const bad16 = await send(app, '/text', 'text/plain; charset=utf-16le', new Uint8Array([0x41]));
    expect(bad16.statusCode).toBe(400);
  });

  const WINDOWS_1252_C1 = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

  function encode(text: string, charset: string): Uint8Array {
    switch (charset) {
      case 'utf-8':
        return new TextEncoder().encode(text);
      case 'utf-16le':
        return new Uint8Array(Buffer.from(text, 'utf16le'));
      case 'utf-16be':
        return new Uint8Array(Buffer.from(text, 'utf16le').swap16());
      default:
        return Uint8Array.from(text, (char) => {
          const c1 = WINDOWS_1252_C1.indexOf(char);
          return c1 === -1 ? char.charCodeAt(0) : 0x80 + c1;
        });
    }
  }

  const singleByte = fc
    .array(
      fc.oneof(
        fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
        fc.integer({ min: 0xa0, max: 0xff }).map((code) => String.fromCharCode(code)),
        fc.constantFrom(...WINDOWS_1252_C1),
      ),
    )
    .map((chars) => chars.join(''));

  it('reads back any string encoded in a supported charset and declared so', async () => {
    const app = echoApp();
    const cases = fc.oneof(
      fc.tuple(
        fc.constantFrom('utf-8', 'utf-16le', 'utf-16be'),
        // A leading U+FEFF is a byte order mark, which decoding drops (Encoding Standard §4.1).
        fc.string({ unit: 'grapheme' }).filter((text) => !text.startsWith('\uFEFF')),
      ),
      fc.tuple(fc.constantFrom('iso-8859-1', 'windows-1252', 'latin1'), singleByte),
    );
    await fc.assert(
      fc.asyncProperty(cases, async ([charset, text]) => {
        const bytes = encode(text, charset);
        const plain = await send(app, '/text', `text/plain; charset=${charset}`, bytes);
        expect(json(plain)).toEqual({ body: text });
        const encoded = encode(JSON.stringify({ text }), charset);
        const parsed = await send(app, '/json', `application/json; charset=${charset}`, encoded);
        expect(json(parsed)).toEqual({ text });
      }),
      { numRuns: 200 },
    );
  });
});

describe('a body that arrives as text (a Lambda event, a test) or as bytes', () => {
  it('reads the same, a leading byte order mark dropped from both (RFC 8259 §8.1)', async () => {
    const app = newApp();
    app.post('/text', ({ body }) => ({ body }));
    app.post('/json', ({ jsonBody }) => ({ jsonBody }));
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.string({ unit: 'grapheme' }), async (bom, text) => {
        const prefix = bom ? '\uFEFF' : '';
        for (const [path, type, content] of [
          ['/text', 'text/plain; charset=utf-8', `${prefix}${text}`],
          ['/json', 'application/json', `${prefix}${JSON.stringify({ text })}`],
        ] as const) {
          const asText = await send(app, path, type, content);
          const asBytes = await send(app, path, type, new TextEncoder().encode(content));
          expect([path, asText.statusCode, json(asText)]).toEqual([
            path,
            asBytes.statusCode,
            json(asBytes),
          ]);
          expect(asText.statusCode).toBe(200);
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('app.request() bodies', () => {
  it('sends what fetch() takes as fetch() would, with its Content-Type', async () => {
    const app = newApp();
    app.post('/raw', ({ request }) => request.text());
    app.post('/type', ({ headers }) => headers.get('content-type') ?? 'none');
    app.post('/form', async ({ formBody, files }) => ({
      formBody,
      files: await Promise.all(files.map(async (file) => [file.filename, await file.text()])),
    }));
    const bytes = new TextEncoder().encode('abc');
    for (const body of [bytes.buffer, new DataView(bytes.buffer), new Blob(['abc'])]) {
      const response = await app.request('/raw', { method: 'POST', body });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe('abc');
    }
    const params = await app.request('/form', {
      method: 'POST',
      body: new URLSearchParams({ a: '1', b: 'two words' }),
    });
    expect(json(params)).toEqual({ formBody: { a: '1', b: 'two words' }, files: [] });
    const form = new FormData();
    form.append('note', 'hi');
    form.append('file', new Blob(['content']), 'f.txt');
    const multipart = await app.request('/form', { method: 'POST', body: form });
    expect(json(multipart)).toEqual({ formBody: { note: 'hi' }, files: [['f.txt', 'content']] });
    // A Content-Type the caller gives wins, as with fetch().
    const typed = await app.request('/type', {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: new Blob(['a,b'], { type: 'text/plain' }),
    });
    expect(typed.body).toBe('text/csv');
    const blobType = await app.request('/type', {
      method: 'POST',
      body: new Blob(['a,b'], { type: 'text/plain' }),
    });
    expect(blobType.body).toBe('text/plain');
    // Text as fetch() sends it: a route taking text/* reads it in-process as behind a server.
    const text = await app.request('/type', { method: 'POST', body: 'buy milk' });
    expect(text.body).toBe(
      new globalThis.Request('http://x/', { method: 'POST', body: 'x' }).headers.get(
        'content-type',
      ),
    );
    const notes = newApp().accepts('text/*', ({ body }) => ({ text: body }));
    notes.post('/notes', ({ parsedBody }) => [parsedBody, 201]);
    const created = await notes.request('/notes', { method: 'POST', body: 'buy milk' });
    expect([created.statusCode, json(created)]).toEqual([201, { text: 'buy milk' }]);
  });

  it('rejects, never throws, for an init it cannot build a request from', async () => {
    const app = newApp();
    app.get('/', () => 'ok');
    // A caller's `.catch()` sees these, as it would from fetch().
    const badHeader = app.request('/', { headers: { 'X-A': 'a\nb' } });
    await expect(badHeader).rejects.toThrow(TypeError);
    const bigint = app.request('/', { method: 'POST', json: { n: 1n } });
    await expect(bigint).rejects.toThrow(/BigInt/);
  });
});
