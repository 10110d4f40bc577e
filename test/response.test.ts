import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FileBody,
  MultiValueHeaders,
  Response,
  RestApplication,
  silentLogger,
} from '../src/index.js';
import { bodyBytes } from '../src/response.js';

describe('Response', () => {
  it('has the seed fields', () => {
    const response = new Response(200, 'x', {
      headers: { A: '1' },
      contentType: 'text/plain',
      availableContentTypes: ['text/plain'],
      preCalculatedHeaders: { B: '2' },
      rangeStart: 0,
      rangeEnd: 3,
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('x');
    expect(response.headers).toBeInstanceOf(MultiValueHeaders);
    expect(response.contentType).toBe('text/plain');
    expect(response.availableContentTypes).toEqual(['text/plain']);
    expect(response.preCalculatedHeaders?.get('b')).toBe('2');
    expect(response.isRangeResponse()).toBe(true);
    expect(new Response(200).isRangeResponse()).toBe(false);
  });

  it('refuses a status outside 100-599', () => {
    expect(() => new Response(600)).toThrow(RangeError);
    expect(() => new Response(99)).toThrow(RangeError);
  });

  it('redirect takes only a redirect status, 302 by default', () => {
    expect(Response.redirect('/x').statusCode).toBe(302);
    for (const status of [301, 302, 303, 307, 308]) {
      expect(Response.redirect('/x', status).statusCode).toBe(status);
    }
    for (const status of [200, 204, 300, 304, 305, 400, 500]) {
      expect(() => Response.redirect('/x', status)).toThrow(RangeError);
    }
  });

  it('redirect percent-encodes a Location beyond ASCII as UTF-8 and keeps its escapes', () => {
    expect(Response.redirect('/café').headers.get('location')).toBe('/caf%C3%A9');
    expect(Response.redirect('/日本?q=ü#é').headers.get('location')).toBe(
      '/%E6%97%A5%E6%9C%AC?q=%C3%BC#%C3%A9',
    );
    expect(Response.redirect('/a%20b/%E9?x=%zz').headers.get('location')).toBe('/a%20b/%E9?x=%zz');
    // The ASCII characters no URI holds are encoded too (RFC 3986 §2), a space first of all.
    expect(Response.redirect('/a b"c<d>|{e}').headers.get('location')).toBe(
      '/a%20b%22c%3Cd%3E%7C%7Be%7D',
    );
    // A lone surrogate has no UTF-8: a TypeError saying so, not encodeURI's URIError.
    expect(() => Response.redirect('/a\uD800')).toThrow(TypeError);
    expect(() => Response.redirect('/a\uDC00b')).toThrow(/not well-formed text/);
    // Property: whatever the text, the Location is ASCII and, decoded, the text given.
    const text = fc
      .string({ unit: 'grapheme', maxLength: 12 })
      .map((t) => [...t].filter((c) => c >= ' ' && c !== '%' && c !== '\x7f').join(''));
    fc.assert(
      fc.property(text, (location) => {
        const sent = Response.redirect(`/${location}`).headers.get('location') as string;
        expect(sent).toMatch(/^[\x21-\x7e]*$/);
        expect(sent).not.toMatch(/["<>\\^`{|}]/);
        expect(decodeURIComponent(sent)).toBe(`/${location}`);
      }),
    );
  });

  it('setEtag adds quotes, and W/ for weak tags', () => {
    expect(new Response(200).setEtag('abc').headers.get('etag')).toBe('"abc"');
    const weak = new Response(200).setEtag('abc', true);
    expect(weak.etag).toBe('W/"abc"');
    expect(weak.headers.get('ETag')).toBe('W/"abc"');
  });

  it('setLastModified writes an IMF-fixdate in GMT', () => {
    const response = new Response(200).setLastModified(new Date('2024-03-01T12:34:56.789+02:00'));
    expect(response.headers.get('last-modified')).toBe('Fri, 01 Mar 2024 10:34:56 GMT');
  });

  it('generateEtagFromContent hashes the body; equal bodies give equal tags', async () => {
    const a = await new Response(200, 'same').generateEtagFromContent();
    const b = await new Response(200, new TextEncoder().encode('same')).generateEtagFromContent();
    const c = await new Response(200, 'other').generateEtagFromContent();
    expect(a).toBe(b);
    expect(a).not.toBe(c);
    expect(a).toMatch(/^"[\w-]+"$/);
    expect(await new Response(200, 'same').generateEtagFromContent(true)).toBe(`W/${a}`);
  });

  it('generateEtagFromContent reads a stream and leaves it sendable', async () => {
    const response = new Response(200, Readable.from([Buffer.from('str'), Buffer.from('eam')]));
    const tag = await response.generateEtagFromContent();
    expect(tag).toBe(await new Response(200, 'stream').generateEtagFromContent());
    expect(new TextDecoder().decode(await bodyBytes(response))).toBe('stream');
  });

  it('setCookie adds one Set-Cookie per cookie', () => {
    const response = new Response(200)
      .setCookie('a', '1')
      .setCookie('b', 'x y', { sameSite: 'None' });
    expect(response.headers.getAll('set-cookie')).toEqual([
      'a=1',
      'b=x%20y; Secure; SameSite=None',
    ]);
    expect(() => new Response(200).setCookie('bad name', 'x')).toThrow(TypeError);
  });

  describe('as executed by the application', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rm-response-'));
    writeFileSync(join(dir, 'report.pdf'), Buffer.alloc(1234, 1));
    const app = new RestApplication({ logger: silentLogger });
    app.get('/string', () => new Response(200, 'héllo'));
    app.get('/bytes', () => new Response(200, new Uint8Array([1, 2, 3])));
    app.get('/object', () => new Response(200, { a: 1 }));
    app.get('/list', () => new Response(200, [1, 2]));
    app.get('/none', () => new Response(200));
    app.get('/file', () => Response.file(join(dir, 'report.pdf')));
    app.get('/missing-file', () => Response.file(join(dir, 'nope.pdf')));
    app.get('/stream', () => new Response(200, Readable.from(['a', 'b'])));
    app.get(
      '/pre',
      () =>
        new Response(200, 'x', {
          preCalculatedHeaders: { 'X-Pre': '1', 'X-Own': 'pre' },
          headers: { 'X-Own': 'own' },
        }),
    );

    it('encodes strings as UTF-8 with their byte length', async () => {
      const response = await app.request('/string');
      expect(response.headers.get('content-length')).toBe('6');
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    });

    it('sends bytes as they are', async () => {
      const response = await app.request('/bytes');
      expect(response.body).toEqual(new Uint8Array([1, 2, 3]));
      expect(response.headers.get('content-length')).toBe('3');
    });

    it('encodes objects and lists as JSON', async () => {
      expect((await app.request('/object')).body).toBe('{"a":1}');
      const list = await app.request('/list');
      expect(list.body).toBe('[1,2]');
      expect(list.headers.get('content-type')).toBe('application/json');
    });

    it('sends an empty body for none', async () => {
      const response = await app.request('/none');
      expect(response.body).toBeUndefined();
      expect(response.headers.get('content-length')).toBe('0');
    });

    it('serves a file body with Content-Type from the extension and Content-Length from its size', async () => {
      const response = await app.request('/file');
      expect(response.body).toBeInstanceOf(FileBody);
      expect(response.headers.get('content-type')).toBe('application/pdf');
      expect(response.headers.get('content-length')).toBe('1234');
      expect(response.headers.get('last-modified')).toMatch(/GMT$/);
      expect((await app.request('/missing-file')).statusCode).toBe(404);
    });

    it('streams a stream body', async () => {
      const response = await app.request('/stream');
      expect(response.headers.has('content-length')).toBe(false);
      expect(new TextDecoder().decode(await bodyBytes(response))).toBe('ab');
    });

    it('adds pre-calculated headers where the response has none of its own', async () => {
      const response = await app.request('/pre');
      expect(response.headers.get('x-pre')).toBe('1');
      expect(response.headers.getAll('x-own')).toEqual(['own']);
    });
  });

  describe('given a MultiValueHeaders shared between responses', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rm-shared-headers-'));
    writeFileSync(join(dir, 'old.txt'), 'old');
    writeFileSync(join(dir, 'new.txt'), 'new');
    utimesSync(
      join(dir, 'old.txt'),
      new Date('2001-01-01T00:00:00Z'),
      new Date('2001-01-01T00:00:00Z'),
    );
    utimesSync(
      join(dir, 'new.txt'),
      new Date('2026-01-01T00:00:00Z'),
      new Date('2026-01-01T00:00:00Z'),
    );

    it('copies it: what one response gets is never in the shared set', () => {
      const shared = new MultiValueHeaders({ 'Cache-Control': 'no-store' });
      const responses = [
        new Response(200, 'x', { headers: shared }),
        Response.json({}, 200, { headers: shared }),
        Response.file(join(dir, 'old.txt'), { headers: shared }),
      ];
      for (const response of responses) {
        expect(response.headers).not.toBe(shared);
        expect(response.headers.get('cache-control')).toBe('no-store');
        response.setCookie('sid', 'x');
      }
      expect(shared.toJSON()).toEqual({ 'cache-control': 'no-store' });
    });

    it("never sends one request's cookie or request id with another's response", async () => {
      // A module-level set of caching headers, given to a new Response on every request.
      const caching = new MultiValueHeaders({ 'Cache-Control': 'private, max-age=60' });
      const app = new RestApplication({ logger: silentLogger });
      app.post('/login', async ({ headers }) => {
        const user = headers.get('x-user');
        // The first to arrive answers last, so every response is built while others are open.
        await new Promise((resolve) => setTimeout(resolve, user === 'alice' ? 20 : 5));
        const response = new Response(200, { ok: true }, { headers: caching });
        if (user !== undefined) response.setCookie('session', `token-of-${user}`);
        return response;
      });
      const users = ['alice', 'bob', undefined, undefined];
      const responses = await Promise.all(
        users.map((user) =>
          app.request('/login', {
            method: 'POST',
            headers: user === undefined ? {} : { 'X-User': user },
          }),
        ),
      );
      expect(responses.map((response) => response.headers.getAll('set-cookie'))).toEqual([
        ['session=token-of-alice'],
        ['session=token-of-bob'],
        [],
        [],
      ]);
      const ids = responses.map((response) => response.headers.get('x-request-id'));
      expect(new Set(ids).size).toBe(users.length);
      expect(caching.toJSON()).toEqual({ 'cache-control': 'private, max-age=60' });
    });

    it("gives each file its own Last-Modified, and a 304 only for that file's date", async () => {
      const noSniff = new MultiValueHeaders({ 'X-Content-Type-Options': 'nosniff' });
      const app = new RestApplication({ logger: silentLogger });
      app.get('/files/{name}', ({ name }) => Response.file(join(dir, name), { headers: noSniff }));
      const old = await app.request('/files/old.txt');
      const fresh = await app.request('/files/new.txt');
      expect(old.headers.get('last-modified')).toBe('Mon, 01 Jan 2001 00:00:00 GMT');
      expect(fresh.headers.get('last-modified')).toBe('Thu, 01 Jan 2026 00:00:00 GMT');
      expect(fresh.headers.get('x-content-type-options')).toBe('nosniff');
      const since = { 'If-Modified-Since': 'Mon, 01 Jan 2001 00:00:00 GMT' };
      expect((await app.request('/files/new.txt', { headers: since })).statusCode).toBe(200);
      expect(noSniff.toJSON()).toEqual({ 'x-content-type-options': 'nosniff' });
    });
  });
});
