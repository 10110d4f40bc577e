/**
 * StaticRouter over a local directory, in-process: the store suite (store-suite.ts) through a
 * directory, then what only a local directory does (docs/static-files.md): symlinks, sibling
 * directories, directory redirects, the small-file cache, files streamed from disk, gzip
 * siblings, read errors.
 */
import { chmodSync, existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Router } from '../../src/index.js';
import { FileBody } from '../../src/response.js';
import { StaticRouter, StaticRouterError } from '../../src/static/index.js';
import {
  createFixture,
  DOTENV,
  type Fixture,
  LARGE,
  MEDIUM,
  quietApp,
  SECRET,
  send,
} from './helpers.js';
import { storeSuite } from './store-suite.js';

let fixture: Fixture;
let app: ReturnType<typeof quietApp>;

beforeAll(() => {
  fixture = createFixture();
  app = quietApp();
  app.get('/api/items', () => [{ id: 1 }]);
  app.mount('/static', new StaticRouter(fixture.root));
});
afterAll(() => fixture.remove());

storeSuite({
  name: 'local directory',
  router: (_context, options) => new StaticRouter(fixture.root, options),
});

describe('construction', () => {
  it('exposes directory (the real absolute path) and the S3 attributes', () => {
    const router = new StaticRouter(fixture.root);
    expect(router).toBeInstanceOf(Router);
    expect(router.directory).toBe(fixture.root);
    expect(router.isS3).toBe(false);
    expect(router.s3Bucket).toBeUndefined();
    expect(router.s3Prefix).toBeUndefined();
  });

  it('exposes indexFile and retryWithIndex, with their defaults', () => {
    const defaults = new StaticRouter(fixture.root);
    expect(defaults.indexFile).toBe('index.html');
    expect(defaults.retryWithIndex).toBe(false);
    const custom = new StaticRouter(fixture.root, { indexFile: 'home.htm', retryWithIndex: true });
    expect([custom.indexFile, custom.retryWithIndex]).toEqual(['home.htm', true]);
  });

  it('resolves a relative directory to an absolute one', () => {
    const router = new StaticRouter(join(fixture.root, 'css', '..'));
    expect(router.directory).toBe(fixture.root);
  });

  it('throws a clear error naming a missing directory', () => {
    const missing = join(fixture.base, 'nope');
    expect(() => new StaticRouter(missing)).toThrowError(StaticRouterError);
    expect(() => new StaticRouter(missing)).toThrowError(`directory not found: ${missing}`);
    try {
      new StaticRouter(missing);
    } catch (error) {
      expect((error as StaticRouterError).code).toBe('DIRECTORY_NOT_FOUND');
    }
  });

  it('throws a clear error naming a path that is not a directory', () => {
    const file = join(fixture.root, 'hello.txt');
    expect(() => new StaticRouter(file)).toThrowError(`not a directory: ${file}`);
    try {
      new StaticRouter(file);
    } catch (error) {
      expect((error as StaticRouterError).code).toBe('NOT_A_DIRECTORY');
    }
  });

  it('rejects malformed options', () => {
    expect(() => new StaticRouter(fixture.root, { indexFile: '../x.html' })).toThrowError(
      /indexFile/,
    );
    expect(() => new StaticRouter(fixture.root, { indexFile: '' })).toThrowError(/indexFile/);
    expect(() => new StaticRouter(fixture.root, { fallback: '../secret.txt' })).toThrowError(
      /fallback/,
    );
    expect(() => new StaticRouter(fixture.root, { fallback: 'spa/' })).toThrowError(/fallback/);
    expect(
      () => new StaticRouter(fixture.root, { dotfiles: 'maybe' as unknown as 'allow' }),
    ).toThrowError(/dotfiles/);
    expect(() => new StaticRouter(fixture.root, { cacheControl: 'a\r\nb' })).toThrowError(
      /cacheControl/,
    );
    expect(() => new StaticRouter(fixture.root, { cache: { maxBytes: -1 } })).toThrowError(
      /cache.maxBytes/,
    );
    expect(() => new StaticRouter('')).toThrowError(StaticRouterError);
    expect(() => new StaticRouter('s3://')).toThrowError(/bucket/);
  });
});

describe('serving files from disk', () => {
  it('rule 1: segments are decoded exactly once', async () => {
    expect((await send(app, '/static/a%20b/c%20d.txt')).text).toBe('spaced');
    expect((await send(app, '/static/%C3%BCber.txt')).text).toBe('unicode name');
    // `%252e` decodes once to the literal text `%2e`, never on to `.`.
    const literal = await send(app, '/static/percent%252e.txt');
    expect(literal.status).toBe(200);
    expect(literal.text).toBe('literal percent name');
    expect((await send(app, '/static/percent%2e.txt')).status).toBe(404);
  });

  it('rule 2: paths that would leave the location are 404', async () => {
    for (const path of [
      '/static/../secret.txt',
      '/static/%2e%2e/secret.txt',
      '/static/%2E%2E/secret.txt',
      '/static/.%2e/secret.txt',
      '/static/css/../../secret.txt',
      '/static/css/../../../../../../etc/passwd',
      '/static/../public-private/secret.txt',
      '/static/../publicity/secret.txt',
      '/static/..',
      '/static/../',
    ]) {
      const response = await send(app, path);
      expect(response.status, path).toBe(404);
      expect(response.text, path).not.toContain(SECRET);
    }
  });

  it('rule 2: encoded separators, backslashes and NUL inside a segment are 404', async () => {
    for (const path of [
      '/static/..%2fsecret.txt',
      '/static/..%2Fsecret.txt',
      '/static/css%2fstyle.css',
      '/static/..%5csecret.txt',
      '/static/..%5Csecret.txt',
      '/static/..\\secret.txt',
      '/static/css\\style.css',
      '/static/hello.txt%00.png',
      '/static/hello.txt%00',
    ]) {
      const response = await send(app, path);
      expect(response.status, path).toBe(404);
      expect(response.text, path).not.toContain(SECRET);
    }
  });

  it('rule 2: malformed and overlong percent-encoding is 400', async () => {
    for (const path of [
      '/static/%zz',
      '/static/%',
      '/static/abc%2',
      '/static/%c0%ae%c0%ae/secret.txt',
      '/static/%e0%80%ae%e0%80%ae/secret.txt',
      '/static/%ed%a0%80.txt',
    ]) {
      expect((await send(app, path)).status, path).toBe(400);
    }
  });

  it('rule 2: symlinks that point outside are 404, symlinks inside are served', async () => {
    for (const path of [
      '/static/link-out.txt',
      '/static/link-dir-out/secret.txt',
      '/static/link-sibling/secret.txt',
      '/static/link-dir-out/',
      '/static/link-dir-out',
    ]) {
      const response = await send(app, path);
      expect(response.status, path).toBe(404);
      expect(response.text, path).not.toContain(SECRET);
    }
    expect((await send(app, '/static/link-in.txt')).text).toBe('hello world\n');
    expect((await send(app, '/static/link-docs/guide.txt')).text).toBe('guide');
    // Out through a symlink and back in: the real path is inside, so it is served.
    expect((await send(app, '/static/link-dir-out/public/hello.txt')).text).toBe('hello world\n');
  });

  it('rule 3: a directory without its index file is 404', async () => {
    expect((await send(app, '/static/empty-dir/')).status).toBe(404);
    expect((await send(app, '/static/css/')).status).toBe(404);
  });

  it('rule 4: a missing file is 404', async () => {
    expect((await send(app, '/static/missing.txt')).status).toBe(404);
    expect((await send(app, '/static/css/missing.css')).status).toBe(404);
    expect((await send(app, '/static/hello.txt/more')).status).toBe(404);
    // A file named as a directory.
    expect((await send(app, '/static/hello.txt/')).status).toBe(404);
  });

  it('Content-Type by extension, the table of docs/static-files.md exactly', async () => {
    const table: Record<string, string> = {
      'index.html': 'text/html; charset=utf-8',
      'css/style.css': 'text/css; charset=utf-8',
      'js/app.js': 'application/javascript; charset=utf-8',
      'data.json': 'application/json',
      'image.png': 'image/png',
      'photo.jpg': 'image/jpeg',
      'photo.jpeg': 'image/jpeg',
      'logo.svg': 'image/svg+xml',
      'doc.pdf': 'application/pdf',
      'hello.txt': 'text/plain; charset=utf-8',
      'archive.unknownext': 'application/octet-stream',
      noext: 'application/octet-stream',
      'font.woff2': 'font/woff2',
    };
    for (const [file, type] of Object.entries(table)) {
      const response = await send(app, `/static/${file}`);
      expect(response.status, file).toBe(200);
      expect(response.headers.get('content-type'), file).toBe(type);
      expect(response.headers.get('x-content-type-options'), file).toBe('nosniff');
    }
  });

  it('rule 8: Content-Length is the file size, for cached and streamed files', async () => {
    const medium = await send(app, '/static/medium.bin');
    expect(medium.headers.get('content-length')).toBe(String(MEDIUM.length));
    expect(medium.body.equals(MEDIUM)).toBe(true);
    const large = await send(app, '/static/large.bin');
    expect(large.headers.get('content-length')).toBe(String(LARGE.length));
    // Large files are streamed from disk, never read whole into the response.
    expect(large.response.body).toBeInstanceOf(FileBody);
    expect(large.body.equals(LARGE)).toBe(true);
    const empty = await send(app, '/static/empty.txt');
    expect(empty.status).toBe(200);
    expect(empty.headers.get('content-length')).toBe('0');
  });

  it('a file is served whatever the Accept header says (no 406)', async () => {
    const response = await send(app, '/static/css/style.css', {
      headers: { Accept: 'image/png' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });
});

describe('methods', () => {
  it('the router mounts beside other routes, which keep working', async () => {
    const response = await send(app, '/api/items');
    expect(response.status).toBe(200);
    expect(JSON.parse(response.text)).toEqual([{ id: 1 }]);
  });
});

describe('directories without their trailing slash', () => {
  it('redirects 301 to the slash form, keeping the query', async () => {
    const response = await send(app, '/static/docs?lang=en&page=2');
    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe('./docs/?lang=en&page=2');
    const mountRoot = await send(app, '/static');
    expect(mountRoot.status).toBe(301);
    expect(mountRoot.headers.get('location')).toBe('./static/');
  });

  it('builds the target from the normalised name, relative to it: never an open redirect', async () => {
    const evil = quietApp();
    const base = join(fixture.base, 'redirect-root');
    mkdirSync(join(base, 'evil.example', 'd'), { recursive: true });
    mkdirSync(join(base, 'docs'), { recursive: true });
    evil.mount('/', new StaticRouter(base));
    const cases: Record<string, string> = {
      '//evil.example/d': './d/',
      '///evil.example/d': './d/',
      '/./evil.example/d': './d/',
      '/docs/../evil.example//d': './d/',
      '/%2e/evil.example/d': './d/',
      '/docs?next=//evil.example': './docs/?next=//evil.example',
      '/docs?x=%0d%0aSet-Cookie:a=b': './docs/?x=%0d%0aSet-Cookie:a=b',
      '/docs?q=a\\b': './docs/?q=a%5Cb',
    };
    for (const [path, location] of Object.entries(cases)) {
      const response = await send(evil, path);
      expect(response.status, path).toBe(301);
      expect(response.headers.get('location'), path).toBe(location);
      // Resolved against the URL the client asked for, it stays on this site.
      const target = new URL(location, `http://site.example${path}`);
      expect(target.origin, path).toBe('http://site.example');
    }
  });

  it('encodes what it puts in Location', async () => {
    const response = await send(app, '/static/a%20b');
    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe('./a%20b/');
  });
});

describe('dotfiles', () => {
  it('are 404 by default, files and directories alike', async () => {
    for (const path of [
      '/static/.env',
      '/static/.hidden/file.txt',
      '/static/%2eenv',
      '/static/empty-dir/.keep',
    ]) {
      const response = await send(app, path);
      expect(response.status, path).toBe(404);
      expect(response.text).not.toContain(DOTENV);
    }
  });

  it("are 403 with dotfiles: 'deny' and served with 'allow'", async () => {
    const deny = quietApp();
    deny.mount('/', new StaticRouter(fixture.root, { dotfiles: 'deny' }));
    expect((await send(deny, '/.hidden/file.txt')).status).toBe(403);
    const allow = quietApp();
    allow.mount('/', new StaticRouter(fixture.root, { dotfiles: 'allow' }));
    expect((await send(allow, '/.hidden/file.txt')).text).toBe('hidden dir');
  });
});

describe('HTTP caching', () => {
  it('every file has a strong ETag and Last-Modified from its stat', async () => {
    const response = await send(app, '/static/hello.txt');
    expect(response.headers.get('etag')).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(response.headers.get('last-modified')).toMatch(/GMT$/);
    expect(response.headers.get('accept-ranges')).toBe('bytes');
  });

  it('a changed file gets new validators and new content (the cache follows mtime)', async () => {
    const path = join(fixture.root, 'changing.txt');
    writeFileSync(path, 'version one');
    utimesSync(path, new Date('2020-01-01T00:00:00Z'), new Date('2020-01-01T00:00:00Z'));
    const first = await send(app, '/static/changing.txt');
    expect(first.text).toBe('version one');
    writeFileSync(path, 'version two!');
    utimesSync(path, new Date('2021-01-01T00:00:00Z'), new Date('2021-01-01T00:00:00Z'));
    const second = await send(app, '/static/changing.txt');
    expect(second.text).toBe('version two!');
    expect(second.headers.get('etag')).not.toBe(first.headers.get('etag'));
    expect(second.headers.get('last-modified')).toBe('Fri, 01 Jan 2021 00:00:00 GMT');
    const stale = await send(app, '/static/changing.txt', {
      headers: { 'If-None-Match': first.headers.get('etag') as string },
    });
    expect(stale.status).toBe(200);
  });

  it('cacheControl and immutable set Cache-Control, also on 304', async () => {
    const cached = quietApp();
    cached.mount(
      '/',
      new StaticRouter(fixture.root, {
        cacheControl: 'public, max-age=60',
        immutable: /\.[0-9a-f]{8}\.js$/g,
      }),
    );
    const plain = await send(cached, '/assets/plain.js');
    expect(plain.headers.get('cache-control')).toBe('public, max-age=60');
    for (let i = 0; i < 3; i++) {
      // A global RegExp must not alternate between matches and misses.
      const fingerprinted = await send(cached, '/assets/app.3f9a2c1e.js');
      expect(fingerprinted.headers.get('cache-control')).toBe(
        'public, max-age=31536000, immutable',
      );
    }
    const etag = plain.headers.get('etag') as string;
    const notModified = await send(cached, '/assets/plain.js', {
      headers: { 'If-None-Match': etag },
    });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('cache-control')).toBe('public, max-age=60');
    expect((await send(app, '/static/hello.txt')).headers.has('cache-control')).toBe(false);
  });

  it('works with the small-file cache turned off', async () => {
    const uncached = quietApp();
    uncached.mount('/', new StaticRouter(fixture.root, { cache: false }));
    const response = await send(uncached, '/hello.txt');
    expect(response.text).toBe('hello world\n');
    expect(response.response.body).toBeInstanceOf(FileBody);
    expect((await send(uncached, '/link-out.txt')).status).toBe(404);
  });
});

describe('ranges', () => {
  it('overlapping ranges merge into one 206', async () => {
    const response = await send(app, '/static/alphabet.txt', {
      headers: { Range: 'bytes=0-4,3-8' },
    });
    expect(response.status).toBe(206);
    expect(response.text).toBe('abcdefghi');
    expect(response.headers.get('content-range')).toBe('bytes 0-8/26');
    expect(response.headers.get('content-length')).toBe('9');
  });

  it('an empty suffix range is 416 with Content-Range: bytes */size', async () => {
    for (const range of ['bytes=-0']) {
      const response = await send(app, '/static/alphabet.txt', { headers: { Range: range } });
      expect(response.status, range).toBe(416);
      expect(response.headers.get('content-range'), range).toBe('bytes */26');
    }
  });

  it('a range of a large file reads only those bytes from disk', async () => {
    const response = await send(app, '/static/large.bin', {
      headers: { Range: 'bytes=1000000-1000099' },
    });
    expect(response.status).toBe(206);
    const body = response.response.body as FileBody;
    expect(body).toBeInstanceOf(FileBody);
    expect([body.start, body.end]).toEqual([1000000, 1000099]);
    expect(response.body.equals(LARGE.subarray(1000000, 1000100))).toBe(true);
    expect(response.headers.get('content-range')).toBe(`bytes 1000000-1000099/${LARGE.length}`);
  });

  it('If-Range with the current tag or date gives 206; a stale one gives 200', async () => {
    // A date is a strong validator only once its second is over (RFC 9110 §8.8.2.2): the file
    // must not have been written in the current second.
    const past = new Date('2024-05-01T00:00:00Z');
    utimesSync(join(fixture.root, 'alphabet.txt'), past, past);
    const first = await send(app, '/static/alphabet.txt');
    const etag = first.headers.get('etag') as string;
    const lastModified = first.headers.get('last-modified') as string;
    const byTag = await send(app, '/static/alphabet.txt', {
      headers: { Range: 'bytes=0-1', 'If-Range': etag },
    });
    expect(byTag.status).toBe(206);
    expect(byTag.text).toBe('ab');
    const byDate = await send(app, '/static/alphabet.txt', {
      headers: { Range: 'bytes=0-1', 'If-Range': lastModified },
    });
    expect(byDate.status).toBe(206);
    for (const stale of ['"other"', `W/${etag}`, 'Thu, 01 Jan 1970 00:00:00 GMT', 'garbage']) {
      const response = await send(app, '/static/alphabet.txt', {
        headers: { Range: 'bytes=0-1', 'If-Range': stale },
      });
      expect(response.status, stale).toBe(200);
      expect(response.text).toBe('abcdefghijklmnopqrstuvwxyz');
    }
  });
});

describe('a file modified in the future', () => {
  it('is sent with Last-Modified no later than now (RFC 9110 §8.8.2.1)', async () => {
    const path = join(fixture.root, 'from-the-future.txt');
    writeFileSync(path, 'later');
    const tomorrow = new Date(Date.now() + 86_400_000);
    utimesSync(path, tomorrow, tomorrow);
    const app = quietApp();
    app.mount('/', new StaticRouter(fixture.root));
    const header = (await send(app, '/from-the-future.txt')).headers.get('last-modified');
    expect(Date.parse(header as string)).toBeLessThanOrEqual(Date.now());
  });

  it('is compared as the Last-Modified that is sent, so a client can send it back', async () => {
    const path = join(fixture.root, 'next-year.txt');
    writeFileSync(path, 'later');
    const nextYear = new Date(Date.now() + 365 * 86_400_000);
    utimesSync(path, nextYear, nextYear);
    const app = quietApp();
    app.mount('/', new StaticRouter(fixture.root));
    const sent = (await send(app, '/next-year.txt')).headers.get('last-modified') as string;
    const again = await send(app, '/next-year.txt', { headers: { 'If-Modified-Since': sent } });
    expect(again.status).toBe(304);
    expect(again.headers.get('last-modified')).toBe(sent);
    const unmodified = await send(app, '/next-year.txt', {
      headers: { 'If-Unmodified-Since': sent },
    });
    expect(unmodified.status).toBe(200);
  });
});

describe('precompressed siblings', () => {
  let compressed: ReturnType<typeof quietApp>;
  beforeAll(() => {
    compressed = quietApp();
    compressed.mount('/', new StaticRouter(fixture.root, { precompressed: true }));
  });

  it('follows q-values and falls back to gzip, then to the plain file', async () => {
    const gzip = await send(compressed, '/zipped.js', {
      headers: { 'Accept-Encoding': 'br;q=0.5, gzip' },
    });
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    const refused = await send(compressed, '/zipped.js', {
      headers: { 'Accept-Encoding': 'br;q=0, gzip;q=0' },
    });
    expect(refused.headers.has('content-encoding')).toBe(false);
    expect(refused.text).toBe('console.log("plain variant");');
    expect(refused.headers.get('vary')).toBe('Accept-Encoding');
    const none = await send(compressed, '/zipped.js');
    expect(none.headers.has('content-encoding')).toBe(false);
    const onlyGz = await send(compressed, '/onlygz.css', {
      headers: { 'Accept-Encoding': 'br, gzip' },
    });
    expect(onlyGz.headers.get('content-encoding')).toBe('gzip');
    expect(onlyGz.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const wildcard = await send(compressed, '/zipped.js', { headers: { 'Accept-Encoding': '*' } });
    expect(wildcard.headers.get('content-encoding')).toBe('br');
  });

  it('serves the plain file when the client weighs identity higher, as compress() does', async () => {
    for (const [accept, coding] of [
      ['gzip;q=0.5, identity', undefined],
      ['br;q=0.4, gzip;q=0.5, identity;q=0.45', 'gzip'],
      ['br;q=0.4, gzip;q=0.4, identity;q=0.4', 'br'],
      ['*;q=0.2, identity;q=0.3', undefined],
    ] as const) {
      const response = await send(compressed, '/zipped.js', {
        headers: { 'Accept-Encoding': accept },
      });
      expect(response.headers.get('content-encoding'), accept).toBe(coding);
      expect(response.headers.get('vary'), accept).toBe('Accept-Encoding');
    }
  });

  it('a variant served directly and as its sibling keeps its own headers, in either order', async () => {
    for (const order of [
      ['/zipped.js.gz', '/zipped.js'],
      ['/zipped.js', '/zipped.js.gz'],
    ]) {
      const app = quietApp();
      app.mount('/', new StaticRouter(fixture.root, { precompressed: true }));
      const seen = new Map<string, Awaited<ReturnType<typeof send>>>();
      for (const path of order) {
        seen.set(path, await send(app, path, { headers: { 'Accept-Encoding': 'gzip' } }));
      }
      const variant = seen.get('/zipped.js');
      expect(variant?.headers.get('content-encoding')).toBe('gzip');
      expect(variant?.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
      const direct = seen.get('/zipped.js.gz');
      expect(direct?.headers.has('content-encoding')).toBe(false);
      expect(direct?.headers.get('content-type')).toBe('application/gzip');
      expect(direct?.headers.get('etag')).not.toBe(variant?.headers.get('etag'));
    }
  });

  it('each variant has its own ETag', async () => {
    const br = await send(compressed, '/zipped.js', { headers: { 'Accept-Encoding': 'br' } });
    const plain = await send(compressed, '/zipped.js');
    expect(br.headers.get('etag')).toMatch(/-br"$/);
    expect(br.headers.get('etag')).not.toBe(plain.headers.get('etag'));
    const notModified = await send(compressed, '/zipped.js', {
      headers: { 'Accept-Encoding': 'br', 'If-None-Match': br.headers.get('etag') as string },
    });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('vary')).toBe('Accept-Encoding');
  });

  it('is off by default', async () => {
    const response = await send(app, '/static/zipped.js', { headers: { 'Accept-Encoding': 'br' } });
    expect(response.headers.has('content-encoding')).toBe(false);
    expect(response.headers.has('vary')).toBe(false);
  });
});

describe('SPA fallback', () => {
  let spa: ReturnType<typeof quietApp>;
  beforeAll(() => {
    spa = quietApp();
    spa.mount('/app', new StaticRouter(join(fixture.root, 'spa'), { fallback: 'index.html' }));
  });

  it('serves the fallback for unknown paths without an extension', async () => {
    for (const path of ['/app/users/42', '/app/settings', '/app/deep/link/']) {
      const response = await send(spa, path);
      expect(response.status, path).toBe(200);
      expect(response.text).toBe('<h1>spa</h1>');
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    }
  });

  it('names its file as written, a percent sign included, never as a request path', async () => {
    const root = await mkdtemp(join(tmpdir(), 'restmachine-fallback-'));
    try {
      await writeFile(join(root, 'app%20shell.html'), 'escaped name');
      await writeFile(join(root, 'app shell.html'), 'decoded name');
      await writeFile(join(root, '100%.html'), 'percent');
      const app = quietApp();
      app.mount('/a', new StaticRouter(root, { fallback: 'app%20shell.html' }));
      app.mount('/b', new StaticRouter(root, { fallback: '100%.html' }));
      expect((await send(app, '/a/route')).text).toBe('escaped name');
      expect((await send(app, '/b/route')).text).toBe('percent');
      expect(() => new StaticRouter(root, { fallback: '%2e%2e/x.html' })).not.toThrow();
      expect(() => new StaticRouter(root, { fallback: 'a\\..\\x.html' })).toThrowError(/fallback/);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('keeps 404 for missing files with an extension and for traversal', async () => {
    expect((await send(spa, '/app/missing.js')).status).toBe(404);
    expect((await send(spa, '/app/../secret')).status).toBe(404);
    expect((await send(spa, '/app/.env')).status).toBe(404);
  });
});

describe('errors', () => {
  it('a read error is 500 with a generic body, and the detail is logged', async () => {
    const lines: string[] = [];
    const logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: (message: string) => lines.push(message),
    };
    let served: string;
    let file: string;
    if (process.getuid?.() !== 0) {
      served = join(fixture.base, 'unreadable');
      mkdirSync(served, { recursive: true });
      writeFileSync(join(served, 'locked.txt'), SECRET);
      chmodSync(join(served, 'locked.txt'), 0o000);
      file = 'locked.txt';
    } else if (existsSync('/sys/bus/pci/rescan')) {
      // Root reads any file; a write-only sysfs attribute refuses reads even to root (EACCES).
      served = '/sys/bus/pci';
      file = 'rescan';
    } else {
      if (process.env.CI === 'true') throw new Error('No way to make an unreadable file here');
      console.warn('Skipped: running as root without /sys/bus/pci/rescan, no unreadable file');
      return;
    }
    const failing = quietApp();
    failing.mount('/', new StaticRouter(served, { logger }));
    const response = await send(failing, `/${file}`);
    expect(response.status).toBe(500);
    expect(response.text).not.toContain(SECRET);
    expect(response.text).not.toMatch(/EACCES|errno|\/sys\/|unreadable/);
    expect(JSON.parse(response.text)).toMatchObject({
      error: 'Internal Server Error',
      statusCode: 500,
    });
    expect(lines.join('\n')).toMatch(/EACCES/);
  });
});

describe('mounting', () => {
  it('works at the root, under nested routers and under a parameterised prefix', async () => {
    const nested = quietApp();
    const outer = new Router();
    outer.mount('/files', new StaticRouter(fixture.root));
    nested.mount('/v1', outer);
    nested.mount('/', new StaticRouter(join(fixture.root, 'docs')));
    nested.mount('/t/{tenant}', new StaticRouter(fixture.root));
    expect((await send(nested, '/v1/files/hello.txt')).text).toBe('hello world\n');
    expect((await send(nested, '/v1//files//css/style.css')).text).toBe('body { color: red; }');
    expect((await send(nested, '/guide.txt')).text).toBe('guide');
    expect((await send(nested, '/')).text).toBe('<h1>docs</h1>');
    expect((await send(nested, '/t/acme/hello.txt')).text).toBe('hello world\n');
    const redirect = await send(nested, '/t/ac%20me/docs');
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('./docs/');
    // Dot-segments are removed before routing, on every adapter (a Fetch runtime's URL parser
    // does the same): `..` names the parent path, whichever router serves it.
    expect((await send(nested, '/v1/files/../files/hello.txt')).text).toBe('hello world\n');
    expect((await send(nested, '/v1/files/%2e%2e/../guide.txt')).text).toBe('guide');
    expect((await send(nested, '/v1/files/./css/%2E/style.css')).text).toBe('body { color: red; }');
  });
});
