/**
 * The store suite: what a StaticRouter promises whatever it serves from, written once and run
 * through every store (a local directory in local.test.ts, an S3 bucket in s3.test.ts), so a
 * bug in one store cannot hide. Each store holds STORE_FILES at the root it serves, and the
 * secret `secret.txt` one level above it. What only one store does stays in its own file.
 */
import { describe, expect, it, type TestContext } from 'vitest';
import type { RestApplication } from '../../src/index.js';
import type { StaticRouter, StaticRouterOptions } from '../../src/static/index.js';
import { DOTENV, LARGE, overNode, quietApp, SECRET, send } from './helpers.js';

/** One store under test. */
export interface StoreUnderTest {
  name: string;
  /**
   * A router over the store's copy of STORE_FILES. Skips the test (through `context`) when the
   * store cannot run here, as S3 does without a local S3 server.
   */
  router(context: TestContext, options?: StaticRouterOptions): StaticRouter;
  /** Behaviours this store cannot show, by test title, each with the reason; asked per test. */
  skips?(): Readonly<Record<string, string>>;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz';

export function storeSuite(store: StoreUnderTest): void {
  /** Registers one case; the app mounts the store's router at the root. */
  function storeTest(
    title: string,
    body: (open: (options?: StaticRouterOptions) => RestApplication) => Promise<void>,
  ): void {
    it(title, async (context) => {
      const reason = store.skips?.()[title];
      if (reason !== undefined) {
        console.warn(`Skipped on ${store.name}: ${reason}`);
        context.skip(reason);
      }
      await body((options) => {
        const app = quietApp();
        app.mount('/', store.router(context, options));
        return app;
      });
    });
  }

  describe(`store suite: ${store.name}`, () => {
    describe('serving files', () => {
      storeTest(
        'GET serves the file with its type, length, validators and nosniff',
        async (open) => {
          const app = open();
          const response = await send(app, '/hello.txt');
          expect(response.status).toBe(200);
          expect(response.text).toBe('hello world\n');
          expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
          expect(response.headers.get('content-length')).toBe('12');
          expect(response.headers.get('etag')).toMatch(/^"[^"]+"$/);
          expect(response.headers.get('last-modified')).toMatch(/GMT$/);
          expect(response.headers.get('accept-ranges')).toBe('bytes');
          expect(response.headers.get('x-content-type-options')).toBe('nosniff');
          const types: Record<string, string> = {
            '/css/style.css': 'text/css; charset=utf-8',
            '/js/app.js': 'application/javascript; charset=utf-8',
            '/data.json': 'application/json',
            '/image.png': 'image/png',
            '/index.html': 'text/html; charset=utf-8',
          };
          for (const [path, type] of Object.entries(types)) {
            const typed = await send(app, path);
            expect(typed.status, path).toBe(200);
            expect(typed.headers.get('content-type'), path).toBe(type);
          }
        },
      );

      storeTest('an extension that is an Object.prototype name is octet-stream', async (open) => {
        await overNode(open(), async (sendLines) => {
          for (const [path, text] of [
            ['/file.constructor', 'constructor'],
            ['/file.__proto__', 'proto'],
          ] as const) {
            const response = await sendLines(path, []);
            expect(response.status, path).toBe(200);
            expect(response.text, path).toBe(text);
            // docs/static-files.md: anything the table does not know.
            expect(response.headers['content-type'], path).toBe('application/octet-stream');
          }
        });
      });

      storeTest('a large file comes whole with its full length', async (open) => {
        const response = await send(open(), '/large.bin');
        expect(response.status).toBe(200);
        expect(response.headers.get('content-length')).toBe(String(LARGE.length));
        expect(response.body.equals(LARGE)).toBe(true);
      });

      storeTest('paths are normalised before the file is looked up', async (open) => {
        const app = open();
        for (const path of [
          '//css//style.css',
          '/./css/./style.css',
          '/css/../css/style.css',
          '/css/%2e%2e/css/style.css',
          '/css/./../js/../css/style.css',
        ]) {
          const response = await send(app, path);
          expect(response.status, path).toBe(200);
          expect(response.text, path).toBe('body { color: red; }');
        }
      });

      storeTest('paths that leave the location are 404; malformed ones 400', async (open) => {
        const app = open();
        for (const path of [
          '/../secret.txt',
          '/%2e%2e/secret.txt',
          '/css/../../secret.txt',
          '/..%2fsecret.txt',
          '/..%5csecret.txt',
          '/x%00',
        ]) {
          const response = await send(app, path);
          expect(response.status, path).toBe(404);
          expect(response.text, path).not.toContain(SECRET);
        }
        expect((await send(app, '/%zz')).status).toBe(400);
      });

      storeTest('a directory path serves its index; without one it is 404', async (open) => {
        const app = open();
        expect((await send(app, '/')).text).toBe('<h1>home</h1>');
        expect((await send(app, '/docs/')).text).toBe('<h1>docs</h1>');
        expect((await send(app, '/css/')).status).toBe(404);
      });

      storeTest('a missing file is 404, and so is a dotfile by default', async (open) => {
        const app = open();
        expect((await send(app, '/missing.txt')).status).toBe(404);
        const dotfile = await send(app, '/.env');
        expect(dotfile.status).toBe(404);
        expect(dotfile.text).not.toContain(DOTENV);
      });
    });

    describe('methods', () => {
      storeTest(
        'HEAD sends the GET headers and no body; 405 and OPTIONS list GET, HEAD, OPTIONS',
        async (open) => {
          const app = open();
          for (const file of ['/hello.txt', '/large.bin']) {
            const get = await send(app, file);
            const head = await send(app, file, { method: 'HEAD' });
            expect(head.status, file).toBe(200);
            expect(head.body.length, file).toBe(0);
            for (const name of ['content-length', 'content-type', 'etag', 'last-modified']) {
              expect(head.headers.get(name), `${file} ${name}`).toBe(get.headers.get(name));
            }
          }
          const missing = await send(app, '/missing.txt', { method: 'HEAD' });
          expect(missing.status).toBe(404);
          expect(missing.body.length).toBe(0);
          for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
            for (const path of ['/hello.txt', '/missing.txt', '/']) {
              const response = await send(app, path, { method });
              expect(response.status, `${method} ${path}`).toBe(405);
              expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
            }
          }
          const options = await send(app, '/hello.txt', { method: 'OPTIONS' });
          expect(options.status).toBe(204);
          expect(options.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
          expect(options.body.length).toBe(0);
        },
      );
    });

    describe('conditional requests (RFC 9110 §13)', () => {
      storeTest(
        'If-None-Match and If-Modified-Since give 304 with the ETag and Cache-Control',
        async (open) => {
          const app = open({ cacheControl: 'public, max-age=60' });
          const first = await send(app, '/hello.txt');
          const etag = first.headers.get('etag') as string;
          const byTag = await send(app, '/hello.txt', { headers: { 'If-None-Match': etag } });
          expect(byTag.status).toBe(304);
          expect(byTag.body.length).toBe(0);
          expect(byTag.headers.get('etag')).toBe(etag);
          expect(byTag.headers.get('cache-control')).toBe('public, max-age=60');
          // The validators a 200 carries (RFC 9110 §15.4.5), Last-Modified too.
          expect(byTag.headers.get('last-modified')).toBe(first.headers.get('last-modified'));
          expect(byTag.headers.has('content-length')).toBe(false);
          // At or after Last-Modified, at one-second precision (RFC 9110 §13.1.3).
          const later = new Date(Date.now() + 3_600_000).toUTCString();
          for (const since of [first.headers.get('last-modified') as string, later]) {
            const byDate = await send(app, '/hello.txt', {
              headers: { 'If-Modified-Since': since },
            });
            expect(byDate.status, since).toBe(304);
            expect(byDate.headers.get('last-modified'), since).toBe(
              first.headers.get('last-modified'),
            );
          }
          for (const value of [`W/${etag}`, `"nope", ${etag}`, '*']) {
            const matched = await send(app, '/hello.txt', { headers: { 'If-None-Match': value } });
            expect(matched.status, value).toBe(304);
          }
          const other = await send(app, '/hello.txt', { headers: { 'If-None-Match': '"other"' } });
          expect(other.status).toBe(200);
          expect(other.text).toBe('hello world\n');
          const garbage = await send(app, '/hello.txt', {
            headers: { 'If-Modified-Since': 'yesterday' },
          });
          expect(garbage.status).toBe(200);
          // If-None-Match wins over If-Modified-Since (RFC 9110 §13.1.3).
          const both = await send(app, '/hello.txt', {
            headers: { 'If-None-Match': '"other"', 'If-Modified-Since': later },
          });
          expect(both.status).toBe(200);
          const earlier = 'Thu, 01 Jan 1970 00:00:00 GMT';
          const old = await send(app, '/hello.txt', { headers: { 'If-Modified-Since': earlier } });
          expect(old.status).toBe(200);
        },
      );

      storeTest(
        'a matching If-None-Match is 304 before a Range is looked at, whatever its form',
        async (open) => {
          const app = open();
          const first = await send(app, '/hello.txt');
          const etag = first.headers.get('etag') as string;
          for (const value of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
            const response = await send(app, '/hello.txt', {
              headers: { 'If-None-Match': value, Range: 'bytes=0-1' },
            });
            expect(response.status, value).toBe(304);
            expect(response.headers.get('etag'), value).toBe(etag);
            expect(response.headers.get('last-modified'), value).toBe(
              first.headers.get('last-modified'),
            );
          }
          const stale = await send(app, '/hello.txt', {
            headers: { 'If-None-Match': '"nope", W/"other"', Range: 'bytes=0-1' },
          });
          expect(stale.status).toBe(206);
          expect(stale.text).toBe('he');
        },
      );

      storeTest('an If-Match list holding the current tag passes', async (open) => {
        const app = open();
        const etag = (await send(app, '/hello.txt')).headers.get('etag') as string;
        for (const headers of [
          { 'If-Match': `"other", ${etag}` },
          { 'If-Match': `${etag}, "other"`, Range: 'bytes=0-1' },
          {
            'If-Match': `W/"other", ${etag}`,
            'If-Unmodified-Since': 'Thu, 01 Jan 1970 00:00:00 GMT',
          },
        ]) {
          const response = await send(app, '/hello.txt', { headers });
          expect(response.status, headers['If-Match']).toBe('Range' in headers ? 206 : 200);
        }
        const none = await send(app, '/hello.txt', {
          headers: { 'If-Match': `"other", W/${etag}` },
        });
        expect(none.status).toBe(412);
        const head = await send(app, '/hello.txt', {
          method: 'HEAD',
          headers: { 'If-Match': `"other", ${etag}` },
        });
        expect(head.status).toBe(200);
        expect(head.headers.get('content-length')).toBe('12');
      });

      storeTest('a failing If-Match or If-Unmodified-Since is 412', async (open) => {
        const app = open();
        const etag = (await send(app, '/hello.txt')).headers.get('etag') as string;
        expect((await send(app, '/hello.txt', { headers: { 'If-Match': etag } })).status).toBe(200);
        // If-Match compares strongly (RFC 9110 §13.1.1): a weak tag never matches.
        for (const value of ['"other"', `W/${etag}`]) {
          const response = await send(app, '/hello.txt', { headers: { 'If-Match': value } });
          expect(response.status, value).toBe(412);
        }
        const unmodified = await send(app, '/hello.txt', {
          headers: { 'If-Unmodified-Since': 'Thu, 01 Jan 1970 00:00:00 GMT' },
        });
        expect(unmodified.status).toBe(412);
        // `If-Match: *` holds for any current representation (§13.1.1), and wins over a date.
        const any = await send(app, '/hello.txt', {
          headers: { 'If-Match': '*', 'If-Unmodified-Since': 'Thu, 01 Jan 1970 00:00:00 GMT' },
        });
        expect(any.status).toBe(200);
        expect(any.text).toBe('hello world\n');
      });

      storeTest(
        'a date precondition or If-Range sent on two field lines is ignored',
        async (open) => {
          await overNode(open(), async (sendLines) => {
            const first = await sendLines('/hello.txt', []);
            const etag = first.headers.etag as string;
            const lastModified = first.headers['last-modified'] as string;
            const past = 'Mon, 01 Jan 2001 00:00:00 GMT';
            // RFC 9110 §13.1.3, §13.1.4: a recipient must ignore the field when it has more than
            // one member; §13.1.5: If-Range is one tag or one date, so on two lines it never holds.
            const cases: Array<[string, Array<[string, string]>, number, string]> = [
              [
                'GET',
                [
                  ['If-Modified-Since', lastModified],
                  ['If-Modified-Since', lastModified],
                ],
                200,
                'hello world\n',
              ],
              [
                'HEAD',
                [
                  ['If-Modified-Since', lastModified],
                  ['If-Modified-Since', lastModified],
                ],
                200,
                '',
              ],
              [
                'GET',
                [
                  ['If-Unmodified-Since', past],
                  ['If-Unmodified-Since', past],
                ],
                200,
                'hello world\n',
              ],
              [
                'GET',
                [
                  ['Range', 'bytes=0-1'],
                  ['If-Range', etag],
                  ['If-Range', etag],
                ],
                200,
                'hello world\n',
              ],
            ];
            for (const [method, lines, status, text] of cases) {
              const label = `${method} ${lines.map(([name]) => name).join(', ')}`;
              const response = await sendLines('/hello.txt', lines, method);
              expect(response.status, label).toBe(status);
              expect(response.text, label).toBe(text);
              expect(response.headers['content-length'], label).toBe('12');
            }
            // The same fields on one line each still count.
            const once = await sendLines('/hello.txt', [['If-Modified-Since', lastModified]]);
            expect(once.status).toBe(304);
            const ranged = await sendLines('/hello.txt', [
              ['Range', 'bytes=0-1'],
              ['If-Range', etag],
            ]);
            expect(ranged.status).toBe(206);
            expect(ranged.text).toBe('he');
          });
        },
      );
    });

    describe('ranges (RFC 9110 §14)', () => {
      storeTest(
        'Range gives 206 with only those bytes; unsatisfiable gives 416 bytes */size',
        async (open) => {
          const app = open();
          const cases: Array<[string, string, string]> = [
            ['bytes=0-4', 'abcde', 'bytes 0-4/26'],
            ['bytes=10-', 'klmnopqrstuvwxyz', 'bytes 10-25/26'],
            ['bytes=20-100', 'uvwxyz', 'bytes 20-25/26'],
            ['bytes=0-0', 'a', 'bytes 0-0/26'],
          ];
          for (const [range, body, contentRange] of cases) {
            const response = await send(app, '/alphabet.txt', { headers: { Range: range } });
            expect(response.status, range).toBe(206);
            expect(response.text, range).toBe(body);
            expect(response.headers.get('content-range'), range).toBe(contentRange);
            expect(response.headers.get('content-length'), range).toBe(String(body.length));
          }
          const large = await send(app, '/large.bin', {
            headers: { Range: 'bytes=500000-500009' },
          });
          expect(large.status).toBe(206);
          expect(large.body.equals(LARGE.subarray(500000, 500010))).toBe(true);
          for (const range of ['bytes=26-', 'bytes=100-200']) {
            const unsatisfiable = await send(app, '/alphabet.txt', { headers: { Range: range } });
            expect(unsatisfiable.status, range).toBe(416);
            expect(unsatisfiable.headers.get('content-range'), range).toBe('bytes */26');
          }
        },
      );

      storeTest('a suffix range gives the last bytes', async (open) => {
        const response = await send(open(), '/alphabet.txt', { headers: { Range: 'bytes=-3' } });
        expect(response.status).toBe(206);
        expect(response.text).toBe('xyz');
        expect(response.headers.get('content-range')).toBe('bytes 23-25/26');
      });

      storeTest(
        'a malformed Range or another unit is ignored: 200 with the whole file',
        async (open) => {
          const app = open();
          for (const range of ['bytes=5-2', 'bytes=abc', 'items=0-1', 'bytes', 'bytes=--1']) {
            const response = await send(app, '/alphabet.txt', { headers: { Range: range } });
            expect(response.status, range).toBe(200);
            expect(response.text, range).toBe(ALPHABET);
          }
        },
      );

      storeTest(
        'several ranges that stay apart are never answered with only the first',
        async (open) => {
          const response = await send(open(), '/alphabet.txt', {
            headers: { Range: 'bytes=0-1,5-6' },
          });
          // The whole file (a streamed S3 object), or every range as multipart/byteranges (a file
          // whose bytes the pipeline holds): RFC 9110 §14.2 allows either.
          expect([200, 206]).toContain(response.status);
          if (response.status === 200) expect(response.text).toBe(ALPHABET);
          else expect(response.headers.get('content-type')).toMatch(/^multipart\/byteranges/);
        },
      );

      storeTest(
        'If-Range: the current ETag gives 206, a stale one the whole file',
        async (open) => {
          const app = open();
          const etag = (await send(app, '/alphabet.txt')).headers.get('etag') as string;
          const current = await send(app, '/alphabet.txt', {
            headers: { Range: 'bytes=0-1', 'If-Range': etag },
          });
          expect(current.status).toBe(206);
          expect(current.text).toBe('ab');
          const stale = await send(app, '/alphabet.txt', {
            headers: { Range: 'bytes=0-1', 'If-Range': '"stale"' },
          });
          expect(stale.status).toBe(200);
          expect(stale.text).toBe(ALPHABET);
        },
      );

      storeTest(
        'preconditions come before the range: a matching If-None-Match is 304',
        async (open) => {
          const app = open();
          const etag = (await send(app, '/alphabet.txt')).headers.get('etag') as string;
          const response = await send(app, '/alphabet.txt', {
            headers: { Range: 'bytes=0-1', 'If-None-Match': etag },
          });
          expect(response.status).toBe(304);
        },
      );

      storeTest('HEAD ignores Range (RFC 9110 §14.2: ranges are defined for GET)', async (open) => {
        const response = await send(open(), '/alphabet.txt', {
          method: 'HEAD',
          headers: { Range: 'bytes=0-1' },
        });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-length')).toBe('26');
        expect(response.body.length).toBe(0);
      });
    });

    describe('options', () => {
      storeTest('under compress(), HEAD carries the encoding headers GET gets', async (open) => {
        const app = open().compress({ threshold: 1 });
        const headers = { 'Accept-Encoding': 'gzip' };
        const get = await send(app, '/hello.txt', { headers });
        const head = await send(app, '/hello.txt', { method: 'HEAD', headers });
        expect(get.headers.get('content-encoding')).toBe('gzip');
        expect(head.status).toBe(200);
        expect(head.body.length).toBe(0);
        for (const name of ['content-encoding', 'content-type', 'etag', 'vary']) {
          expect(head.headers.get(name)).toBe(get.headers.get(name));
        }
        // Never the unencoded length: only producing the compressed body would tell it.
        expect(head.headers.get('content-length')).not.toBe('12');
      });

      storeTest('cacheControl and immutable set Cache-Control', async (open) => {
        const app = open({ cacheControl: 'no-cache', immutable: /\.[0-9a-f]{8}\.js$/ });
        expect((await send(app, '/hello.txt')).headers.get('cache-control')).toBe('no-cache');
        expect((await send(app, '/assets/app.3f9a2c1e.js')).headers.get('cache-control')).toBe(
          'public, max-age=31536000, immutable',
        );
      });

      storeTest('precompressed siblings and the SPA fallback', async (open) => {
        const app = open({ precompressed: true, fallback: 'spa/index.html' });
        const br = await send(app, '/zipped.js', { headers: { 'Accept-Encoding': 'gzip, br' } });
        expect(br.text).toBe('BROTLI-BYTES');
        expect(br.headers.get('content-encoding')).toBe('br');
        expect(br.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
        expect(br.headers.get('vary')).toBe('Accept-Encoding');
        const plain = await send(app, '/zipped.js', { headers: { 'Accept-Encoding': 'identity' } });
        expect(plain.text).toBe('console.log("plain variant");');
        expect(plain.headers.has('content-encoding')).toBe(false);
        const spa = await send(app, '/users/42');
        expect(spa.status).toBe(200);
        expect(spa.text).toBe('<h1>spa</h1>');
        expect((await send(app, '/missing.js')).status).toBe(404);
      });

      storeTest('a precompressed variant is never served for a missing file', async (open) => {
        await overNode(open({ precompressed: true }), async (sendLines) => {
          // docs/static-files.md: variants are served in place of the file, so the file must
          // exist; and a 404 that hung on Accept-Encoding would need a Vary (RFC 9110 §12.5.5).
          for (const encodings of ['br', 'gzip, br', 'identity']) {
            const response = await sendLines('/orphan.js', [['Accept-Encoding', encodings]]);
            expect(response.status, encodings).toBe(404);
            expect(response.text, encodings).not.toContain('ORPHAN');
          }
          const head = await sendLines('/orphan.js', [['Accept-Encoding', 'br']], 'HEAD');
          expect(head.status).toBe(404);
        });
      });
    });
  });
}
