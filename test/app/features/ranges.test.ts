/**
 * Ranges on the way out (RFC 9110 §14, docs/http-semantics.md): what can be ranged, how files
 * are served in part without being read whole, and the limits.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { FileBody, Response, RestApplication, silentLogger } from '../../../src/index.js';
import { bodyBytes, isStream } from '../../../src/response.js';

const dir = mkdtempSync(join(tmpdir(), 'restmachine-ranges-'));
const file = join(dir, 'digits.txt');
writeFileSync(file, '0123456789');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function app() {
  const application = new RestApplication({ logger: silentLogger });
  application.get('/file', () => Response.file(file));
  application.get('/empty', () => new Response(200, new Uint8Array(0)));
  application.get(
    '/stream',
    () =>
      new Response(
        200,
        (async function* () {
          yield 'streamed';
        })(),
      ),
  );
  application.get('/text', () => 'abcdef');
  // A span of the file (its own start and end) is the representation: `45678`.
  application.get('/span', () => span(4, 8));
  return application;
}

/** A multipart 206's body as text, once its Content-Length is found to be its exact length. */
async function multipartText(response: Response): Promise<string> {
  expect(response.statusCode).toBe(206);
  const bytes = await bodyBytes(response);
  expect(response.headers.get('content-length')).toBe(String(bytes.length));
  return new TextDecoder().decode(bytes);
}

function span(start: number, end: number): Response {
  const response = Response.file(file);
  const body = response.body as FileBody;
  body.start = start;
  body.end = end;
  return response;
}

describe('ranges', () => {
  it('serve one range of a file by selecting start and end, not by reading it', async () => {
    const response = await app().request('/file', { headers: { Range: 'bytes=2-4' } });
    expect(response.statusCode).toBe(206);
    const body = response.body as FileBody;
    expect(body).toBeInstanceOf(FileBody);
    expect([body.start, body.end, body.size]).toEqual([2, 4, 10]);
    expect(response.isRangeResponse()).toBe(true);
    expect([response.rangeStart, response.rangeEnd]).toEqual([2, 4]);
    expect(new TextDecoder().decode(await bodyBytes(response))).toBe('234');
  });

  it('stream several ranges of a file as multipart with an exact Content-Length', async () => {
    const response = await app().request('/file', { headers: { Range: 'bytes=0-0,-2' } });
    expect(isStream(response.body)).toBe(true);
    const text = await multipartText(response);
    expect(text).toContain('Content-Range: bytes 0-0/10\r\n\r\n0\r\n');
    expect(text).toContain('Content-Range: bytes 8-9/10\r\n\r\n89\r\n');
  });

  it('count a range of a file span from the span, not from the start of the file', async () => {
    const response = await app().request('/span', { headers: { Range: 'bytes=1-2' } });
    expect(response.statusCode).toBe(206);
    expect(response.headers.get('content-range')).toBe('bytes 1-2/5');
    expect(response.headers.get('content-length')).toBe('2');
    expect(new TextDecoder().decode(await bodyBytes(response))).toBe('56');
  });

  it('count every part of a multipart answer for a file span from the span', async () => {
    const response = await app().request('/span', { headers: { Range: 'bytes=0-0,-1' } });
    const text = await multipartText(response);
    expect(text).toContain('Content-Range: bytes 0-0/5\r\n\r\n4\r\n');
    expect(text).toContain('Content-Range: bytes 4-4/5\r\n\r\n8\r\n');
  });

  it('send the bytes a range names within any span of a file', async () => {
    const digits = '0123456789';
    const spanAndRange = fc
      .tuple(fc.nat(9), fc.nat(9))
      .map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const)
      .chain(([start, end]) =>
        fc
          .tuple(fc.nat(end - start), fc.nat(end - start))
          .map(([a, b]) => ({ start, end, first: Math.min(a, b), last: Math.max(a, b) })),
      );
    await fc.assert(
      fc.asyncProperty(spanAndRange, async ({ start, end, first, last }) => {
        const application = new RestApplication({ logger: silentLogger });
        application.get('/span', () => span(start, end));
        const response = await application.request('/span', {
          headers: { Range: `bytes=${first}-${last}` },
        });
        const expected = digits.slice(start, end + 1).slice(first, last + 1);
        expect(response.statusCode).toBe(206);
        expect(response.headers.get('content-range')).toBe(
          `bytes ${first}-${last}/${end - start + 1}`,
        );
        expect(new TextDecoder().decode(await bodyBytes(response))).toBe(expected);
      }),
      { numRuns: 60 },
    );
  });

  it('leave HEAD whole: range handling is defined for GET only (RFC 9110 §14.2)', async () => {
    for (const [path, length] of [
      ['/text', '6'],
      ['/file', '10'],
    ]) {
      for (const range of ['bytes=0-1', 'bytes=0-0,2-2', 'bytes=99-']) {
        const response = await app().request(path as string, {
          method: 'HEAD',
          headers: { Range: range },
        });
        expect(response.statusCode, `${path} ${range}`).toBe(200);
        expect(response.body, `${path} ${range}`).toBeUndefined();
        expect(response.headers.has('content-range'), `${path} ${range}`).toBe(false);
        expect(response.headers.get('content-type'), `${path} ${range}`).not.toMatch(/multipart/);
        expect(response.headers.get('content-length'), `${path} ${range}`).toBe(length);
      }
    }
  });

  it('answer 416 for an empty representation', async () => {
    const response = await app().request('/empty', { headers: { Range: 'bytes=0-' } });
    expect(response.statusCode).toBe(416);
    expect(response.headers.get('content-range')).toBe('bytes */0');
  });

  it('leave streams alone: their length is unknown', async () => {
    const response = await app().request('/stream', { headers: { Range: 'bytes=0-1' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers.has('accept-ranges')).toBe(false);
  });

  it('send the whole representation for too many ranges or a repeated Range header', async () => {
    const many = Array.from({ length: 17 }, (_, i) => `${i % 6}-${i % 6}`).join(',');
    expect((await app().request('/text', { headers: { Range: `bytes=${many}` } })).statusCode).toBe(
      200,
    );
    const twice = await app().request('/text', {
      headers: [
        ['Range', 'bytes=0-0'],
        ['Range', 'bytes=1-1'],
      ],
    });
    expect(twice.statusCode).toBe(200);
  });

  it('send an encoded representation whole for several ranges, and slice it for one', async () => {
    const { gzipSync } = await import('node:zlib');
    const encoded = gzipSync('0123456789');
    const application = new RestApplication({ logger: silentLogger });
    application.get(
      '/encoded',
      () =>
        new Response(200, encoded, {
          contentType: 'text/plain',
          headers: { 'Content-Encoding': 'gzip' },
        }),
    );
    application.get('/encoded-file', () => {
      const response = Response.file(file);
      response.headers.set('Content-Encoding', 'gzip');
      return response;
    });
    for (const path of ['/encoded', '/encoded-file']) {
      const several = await application.request(path, { headers: { Range: 'bytes=0-1,4-5' } });
      // Not multipart/byteranges under a Content-Encoding its body is not in.
      expect([path, several.statusCode]).toEqual([path, 200]);
      expect(several.headers.get('content-encoding')).toBe('gzip');
      expect(several.headers.get('content-type')).toMatch(/^text\/plain/);
      const one = await application.request(path, { headers: { Range: 'bytes=0-1' } });
      expect([path, one.statusCode]).toEqual([path, 206]);
    }
    const whole = await application.request('/encoded', { headers: { Range: 'bytes=0-1,4-5' } });
    expect(Buffer.from(await bodyBytes(whole))).toEqual(encoded);
  });

  it('ignore If-Range without Range, and a malformed If-Range', async () => {
    expect((await app().request('/text', { headers: { 'If-Range': '"x"' } })).statusCode).toBe(200);
    const malformed = await app().request('/file', {
      headers: { Range: 'bytes=0-0', 'If-Range': 'soon' },
    });
    expect(malformed.statusCode).toBe(200);
  });

  it('let a custom 416 error handler keep Content-Range', async () => {
    const application = app();
    application.errorHandler(416, () => ({ message: 'out of range' }));
    const response = await application.request('/text', { headers: { Range: 'bytes=50-' } });
    expect(response.statusCode).toBe(416);
    expect(response.headers.get('content-range')).toBe('bytes */6');
    expect(response.body).toBe('{"message":"out of range"}');
  });
});
