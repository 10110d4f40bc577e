/**
 * A Range on an empty representation, on the wire (RFC 9110 §14.1.2, docs/http-semantics.md):
 * a non-zero suffix-range is the one satisfiable form there, but no 206 can describe zero bytes,
 * so it is answered with the empty representation and 200; every other form is a 416 with
 * `Content-Range: bytes *\/0`. Routes (bytes, text, a file) and the static router agree.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeHandle, serve } from '../../src/adapters/node/index.js';
import { Response, RestApplication, silentLogger } from '../../src/index.js';
import { StaticRouter } from '../../src/static/index.js';

const PATHS = ['/bytes', '/text', '/file', '/static/empty.txt'];

let directory: string;
let server: ServeHandle;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'restmachine-range-empty-'));
  const empty = join(directory, 'empty.txt');
  writeFileSync(empty, '');
  const app = new RestApplication({ logger: silentLogger });
  app.get('/bytes', () => new Response(200, new Uint8Array(0)));
  app.get('/text', () => new Response(200, '', { contentType: 'text/plain' }));
  app.get('/file', () => Response.file(empty));
  app.mount('/static', new StaticRouter(directory));
  server = await serve(app, { port: 0, host: '127.0.0.1', handleSignals: false });
});

afterAll(async () => {
  await server?.close();
  rmSync(directory, { recursive: true, force: true });
});

async function get(path: string, range: string) {
  const response = await fetch(`${server.url}${path}`, { headers: { Range: range } });
  return {
    status: response.status,
    contentRange: response.headers.get('content-range'),
    contentLength: response.headers.get('content-length'),
    body: response.status === 416 ? '' : await response.text(),
  };
}

describe('Range on an empty representation', () => {
  it('a non-zero suffix-range gets the empty representation with 200, not a 416', async () => {
    for (const path of PATHS) {
      for (const range of ['bytes=-5', 'bytes=-1', 'bytes=0-,-5']) {
        expect(await get(path, range), `${path} ${range}`).toEqual({
          status: 200,
          contentRange: null,
          contentLength: '0',
          body: '',
        });
      }
    }
  });

  it('every other range is 416 with Content-Range: bytes */0', async () => {
    for (const path of PATHS) {
      for (const range of ['bytes=0-', 'bytes=0-0', 'bytes=-0', 'bytes=3-9, -0']) {
        const answer = await get(path, range);
        expect([answer.status, answer.contentRange], `${path} ${range}`).toEqual([
          416,
          'bytes */0',
        ]);
      }
    }
  });

  it('whatever the range-specs, the answer is 200 exactly when one is a non-zero suffix', async () => {
    const spec = fc.oneof(
      fc.tuple(fc.nat({ max: 9 }), fc.nat({ max: 9 })).map(([a, b]) => ({
        text: `${Math.min(a, b)}-${Math.max(a, b)}`,
        suffix: false,
      })),
      fc.nat({ max: 9 }).map((a) => ({ text: `${a}-`, suffix: false })),
      fc.nat({ max: 9 }).map((n) => ({ text: `-${n}`, suffix: n > 0 })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(spec, { minLength: 1, maxLength: 5 }),
        fc.constantFrom(...PATHS),
        async (specs, path) => {
          const answer = await get(path, `bytes=${specs.map((s) => s.text).join(', ')}`);
          if (specs.some((s) => s.suffix)) {
            expect([answer.status, answer.contentRange, answer.body]).toEqual([200, null, '']);
          } else {
            expect([answer.status, answer.contentRange]).toEqual([416, 'bytes */0']);
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
