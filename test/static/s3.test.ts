/**
 * StaticRouter over S3, against a real S3-compatible server on loopback (moto, or s3rver where
 * moto is absent): the seed 000 §4.1 rules for object stores, the §7 rows, and SPEC §10 / §17.14.
 */
import {
  CreateBucketCommand,
  PutBucketPolicyCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { RestApplication, Router } from '../../src/index.js';
import { StaticRouter, StaticServeError } from '../../src/static/index.js';
import { quietApp, SECRET, send } from './helpers.js';
import { type S3TestServer, startS3Server } from './s3-server.js';

let server: S3TestServer | undefined;
let unavailable: string | undefined;
let client: S3Client;

const LARGE = Buffer.from(Array.from({ length: 1024 * 1024 }, (_, index) => index % 253));

const OBJECTS: Record<string, { body: string | Buffer; contentType?: string }> = {
  'www/index.html': { body: '<h1>home</h1>' },
  'www/hello.txt': { body: 'hello world\n' },
  'www/alphabet.txt': { body: 'abcdefghijklmnopqrstuvwxyz' },
  'www/css/style.css': { body: 'body { color: red; }' },
  'www/js/app.js': { body: 'console.log(1);' },
  'www/data.json': { body: '{"ok":true}' },
  'www/image.png': { body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
  'www/docs/index.html': { body: '<h1>docs</h1>' },
  'www/about/index.html': { body: '<h1>about</h1>' },
  'www/custom': { body: 'typed by upload', contentType: 'text/x-custom' },
  'www/.env': { body: `KEY=${SECRET}` },
  'www/zipped.js': { body: 'plain variant' },
  'www/zipped.js.br': { body: 'BROTLI-BYTES' },
  'www/assets/app.3f9a2c1e.js': { body: 'fingerprinted' },
  'www/spa/index.html': { body: '<h1>spa</h1>' },
  'www/large.bin': { body: LARGE },
  'outside.txt': { body: SECRET },
  'root.txt': { body: 'at the bucket root' },
  'index.html': { body: '<h1>bucket root</h1>' },
};

beforeAll(async () => {
  const started = await startS3Server();
  if (typeof started === 'string') {
    unavailable = started;
    return;
  }
  server = started;
  client = new S3Client(server.config);
  await client.send(new CreateBucketCommand({ Bucket: 'site' }));
  for (const [key, object] of Object.entries(OBJECTS)) {
    await client.send(
      new PutObjectCommand({
        Bucket: 'site',
        Key: key,
        Body: object.body,
        ContentType: object.contentType,
      }),
    );
  }
  if (server.supportsPolicies) {
    await client.send(new CreateBucketCommand({ Bucket: 'locked' }));
    await client.send(new PutObjectCommand({ Bucket: 'locked', Key: 'a.txt', Body: SECRET }));
    await client.send(
      new PutBucketPolicyCommand({
        Bucket: 'locked',
        Policy: JSON.stringify({
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Deny',
              Principal: '*',
              Action: 's3:GetObject',
              Resource: 'arn:aws:s3:::locked/*',
            },
          ],
        }),
      }),
    );
  }
}, 60_000);

afterAll(async () => {
  client?.destroy();
  await server?.stop();
});

/** The running server, or a skip with the reason (a failure in CI, thrown by the harness). */
function need(context: TestContext): S3TestServer {
  if (server === undefined) {
    console.warn(`Skipped: ${unavailable}`);
    context.skip(unavailable);
  }
  return server as S3TestServer;
}

function siteApp(
  options: ConstructorParameters<typeof StaticRouter>[1] = {},
  serve = 's3://site/www/',
) {
  const app = quietApp();
  app.mount('/', new StaticRouter(serve, { s3: (server as S3TestServer).config, ...options }));
  return app;
}

describe('S3 location', () => {
  it('exposes isS3, s3Bucket and s3Prefix (with its trailing slash)', (context) => {
    need(context);
    const router = new StaticRouter('s3://site/www/', { s3: client });
    expect(router).toBeInstanceOf(Router);
    expect(router.isS3).toBe(true);
    expect(router.s3Bucket).toBe('site');
    expect(router.s3Prefix).toBe('www/');
    expect(router.directory).toBeUndefined();
    expect(new StaticRouter('s3://site', { s3: client }).s3Prefix).toBe('');
    expect(new StaticRouter('s3://site/', { s3: client }).s3Prefix).toBe('');
    expect(new StaticRouter('s3://site/assets', { s3: client }).s3Prefix).toBe('assets/');
    const neutral = new StaticRouter('objstore://site/www/', { s3: client });
    expect([neutral.isS3, neutral.s3Bucket, neutral.s3Prefix]).toEqual([true, 'site', 'www/']);
  });

  it('serves prefix + path with 200, Content-Type, Content-Length and validators', async (context) => {
    need(context);
    const app = siteApp();
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
      // No known extension: the type it was uploaded with.
      '/custom': 'text/x-custom',
    };
    for (const [path, type] of Object.entries(types)) {
      const typed = await send(app, path);
      expect(typed.status, path).toBe(200);
      expect(typed.headers.get('content-type'), path).toBe(type);
    }
  });

  it('accepts a client or a client configuration', async (context) => {
    need(context);
    const app = quietApp();
    app.mount('/a', new StaticRouter('s3://site/www/', { s3: client }));
    app.mount('/b', new StaticRouter('s3://site/www/', { s3: (server as S3TestServer).config }));
    expect((await send(app, '/a/hello.txt')).text).toBe('hello world\n');
    expect((await send(app, '/b/hello.txt')).text).toBe('hello world\n');
  });

  it('streams a large object with its full length', async (context) => {
    need(context);
    const response = await send(siteApp(), '/large.bin');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(LARGE.length));
    expect(response.body.equals(LARGE)).toBe(true);
  });

  it('serves from the bucket root when the prefix is empty', async (context) => {
    need(context);
    const app = siteApp({}, 's3://site');
    expect((await send(app, '/root.txt')).text).toBe('at the bucket root');
    expect((await send(app, '/')).text).toBe('<h1>bucket root</h1>');
  });
});

describe('seed 000 §4.1 rules on S3', () => {
  it('rule 1: paths are normalised before the key is built', async (context) => {
    need(context);
    const app = siteApp();
    for (const path of ['//css//style.css', '/./css/./style.css', '/css/../css/style.css']) {
      const response = await send(app, path);
      expect(response.status, path).toBe(200);
      expect(response.text).toBe('body { color: red; }');
    }
  });

  it('rule 2: paths that leave the prefix are 404, never another key', async (context) => {
    need(context);
    const app = siteApp();
    for (const path of [
      '/../outside.txt',
      '/%2e%2e/outside.txt',
      '/css/../../outside.txt',
      '/..%2foutside.txt',
      '/..%5coutside.txt',
      '/x%00',
    ]) {
      const response = await send(app, path);
      expect(response.status, path).toBe(404);
      expect(response.text).not.toContain(SECRET);
    }
    expect((await send(app, '/%zz')).status).toBe(400);
  });

  it('rule 3: a directory path serves its index object; a missing one is 404', async (context) => {
    need(context);
    const app = siteApp();
    expect((await send(app, '/')).text).toBe('<h1>home</h1>');
    expect((await send(app, '/docs/')).text).toBe('<h1>docs</h1>');
    expect((await send(app, '/css/')).status).toBe(404);
  });

  it('rule 4: a missing key is 404', async (context) => {
    need(context);
    expect((await send(siteApp(), '/missing.txt')).status).toBe(404);
  });

  it('rule 5: with retryWithIndex a missing key is retried as <path>/<indexFile>', async (context) => {
    need(context);
    expect((await send(siteApp(), '/docs')).status).toBe(404);
    const retrying = siteApp({ retryWithIndex: true });
    const docs = await send(retrying, '/docs');
    expect(docs.status).toBe(200);
    expect(docs.text).toBe('<h1>docs</h1>');
    expect(docs.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect((await send(retrying, '/nothing-here')).status).toBe(404);
    const custom = siteApp({ retryWithIndex: true, indexFile: 'style.css' });
    expect((await send(custom, '/css')).text).toBe('body { color: red; }');
  });

  it('rule 6: access denied is 403', async (context) => {
    need(context);
    if (!(server as S3TestServer).supportsPolicies) {
      console.warn('Skipped: s3rver has no bucket policies, so it cannot produce a 403');
      context.skip('s3rver cannot produce a 403');
    }
    const app = siteApp({}, 's3://locked/');
    const response = await send(app, '/a.txt');
    expect(response.status).toBe(403);
    expect(response.text).not.toContain(SECRET);
  });

  it('rule 6: any other S3 error is 500 with a generic body, the detail logged', async (context) => {
    need(context);
    const lines: string[] = [];
    const logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: (message: string) => lines.push(message),
    };
    const app = siteApp({ logger }, 's3://no-such-bucket-here/');
    const response = await send(app, '/hello.txt');
    expect(response.status).toBe(500);
    expect(JSON.parse(response.text)).toEqual({
      error: 'Internal Server Error',
      statusCode: 500,
      path: '/hello.txt',
    });
    expect(response.text).not.toMatch(/NoSuchBucket|no-such-bucket/);
    expect(lines.join('\n')).toMatch(/no-such-bucket-here/);
    expect(lines.join('\n')).toMatch(/NoSuchBucket/);
  });

  it("without a logger option the detail reaches the application's logger", async (context) => {
    need(context);
    const logged: unknown[] = [];
    const capture = (message: string, fields?: Record<string, unknown>) =>
      logged.push({ message, ...fields });
    const app = new RestApplication({
      logger: { debug: capture, info: capture, warn: capture, error: capture },
    });
    app.mount('/', new StaticRouter('s3://no-such-bucket-here/', { s3: client }));
    const response = await send(app, '/hello.txt');
    expect(response.status).toBe(500);
    expect(response.text).not.toMatch(/NoSuchBucket/);
    const error = (logged[0] as { error?: unknown }).error;
    expect(error).toBeInstanceOf(StaticServeError);
    expect((error as Error).message).toMatch(
      /s3:\/\/no-such-bucket-here\/hello\.txt.*NoSuchBucket/,
    );
  });

  it('a key longer than 1024 bytes is 404 without calling S3', async (context) => {
    need(context);
    const counting = new S3Client((server as S3TestServer).config);
    let calls = 0;
    const send_ = counting.send.bind(counting);
    counting.send = ((...args: Parameters<typeof counting.send>) => {
      calls++;
      return send_(...args);
    }) as typeof counting.send;
    const app = quietApp();
    app.mount('/', new StaticRouter('s3://site/www/', { s3: counting, retryWithIndex: true }));
    const response = await send(app, `/${'é'.repeat(600)}`);
    expect(response.status).toBe(404);
    expect(calls).toBe(0);
    await send(app, '/hello.txt');
    expect(calls).toBe(1);
    counting.destroy();
  });

  it('dotfiles are 404 by default', async (context) => {
    need(context);
    const response = await send(siteApp(), '/.env');
    expect(response.status).toBe(404);
    expect(response.text).not.toContain(SECRET);
  });
});

describe('methods on S3', () => {
  it('HEAD sends the headers with Content-Length and no body; 405 and OPTIONS as locally', async (context) => {
    need(context);
    const app = siteApp();
    const get = await send(app, '/hello.txt');
    const head = await send(app, '/hello.txt', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers.get('content-length')).toBe('12');
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
    expect((await send(app, '/missing.txt', { method: 'HEAD' })).status).toBe(404);
    const post = await send(app, '/hello.txt', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    const options = await send(app, '/hello.txt', { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});

describe('HTTP caching and ranges on S3', () => {
  it('If-None-Match and If-Modified-Since go to S3 and give 304 with the ETag', async (context) => {
    need(context);
    const app = siteApp({ cacheControl: 'public, max-age=60' });
    const first = await send(app, '/hello.txt');
    const etag = first.headers.get('etag') as string;
    const byTag = await send(app, '/hello.txt', { headers: { 'If-None-Match': etag } });
    expect(byTag.status).toBe(304);
    expect(byTag.body.length).toBe(0);
    expect(byTag.headers.get('etag')).toBe(etag);
    expect(byTag.headers.get('cache-control')).toBe('public, max-age=60');
    const later = new Date(Date.now() + 3_600_000).toUTCString();
    expect(
      (await send(app, '/hello.txt', { headers: { 'If-Modified-Since': later } })).status,
    ).toBe(304);
    expect(
      (await send(app, '/hello.txt', { headers: { 'If-None-Match': '"other"' } })).status,
    ).toBe(200);
    const earlier = 'Thu, 01 Jan 1970 00:00:00 GMT';
    expect(
      (await send(app, '/hello.txt', { headers: { 'If-Modified-Since': earlier } })).status,
    ).toBe(200);
  });

  it('a failing If-Match is 412', async (context) => {
    need(context);
    expect(
      (await send(siteApp(), '/hello.txt', { headers: { 'If-Match': '"other"' } })).status,
    ).toBe(412);
  });

  it('Range gives 206 with only those bytes; unsatisfiable gives 416 bytes */size', async (context) => {
    need(context);
    const app = siteApp();
    const cases: Array<[string, string, string]> = [
      ['bytes=0-4', 'abcde', 'bytes 0-4/26'],
      ['bytes=10-', 'klmnopqrstuvwxyz', 'bytes 10-25/26'],
      ['bytes=-3', 'xyz', 'bytes 23-25/26'],
    ];
    for (const [range, body, contentRange] of cases) {
      if (range === 'bytes=-3' && (server as S3TestServer).kind === 's3rver') {
        // s3rver reads a suffix range `-3` as `0-3`; S3 and moto read it as the last 3 bytes.
        console.warn('Skipped on s3rver: it misreads suffix ranges');
        continue;
      }
      const response = await send(app, '/alphabet.txt', { headers: { Range: range } });
      expect(response.status, range).toBe(206);
      expect(response.text, range).toBe(body);
      expect(response.headers.get('content-range'), range).toBe(contentRange);
      expect(response.headers.get('content-length'), range).toBe(String(body.length));
    }
    const large = await send(app, '/large.bin', { headers: { Range: 'bytes=500000-500009' } });
    expect(large.status).toBe(206);
    expect(large.body.equals(LARGE.subarray(500000, 500010))).toBe(true);
    const unsatisfiable = await send(app, '/alphabet.txt', { headers: { Range: 'bytes=100-' } });
    expect(unsatisfiable.status).toBe(416);
    expect(unsatisfiable.headers.get('content-range')).toBe('bytes */26');
  });

  it('several ranges or a malformed one give the whole object with 200', async (context) => {
    need(context);
    const app = siteApp();
    for (const range of ['bytes=0-1,5-6', 'bytes=5-2', 'items=0-1']) {
      const response = await send(app, '/alphabet.txt', { headers: { Range: range } });
      expect(response.status, range).toBe(200);
      expect(response.text).toBe('abcdefghijklmnopqrstuvwxyz');
    }
  });

  it('If-Range: the current ETag gives 206, a stale one the whole object', async (context) => {
    need(context);
    const app = siteApp();
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
    expect(stale.text).toBe('abcdefghijklmnopqrstuvwxyz');
  });

  it('cacheControl and immutable', async (context) => {
    need(context);
    const app = siteApp({ cacheControl: 'no-cache', immutable: /\.[0-9a-f]{8}\.js$/ });
    expect((await send(app, '/hello.txt')).headers.get('cache-control')).toBe('no-cache');
    expect((await send(app, '/assets/app.3f9a2c1e.js')).headers.get('cache-control')).toBe(
      'public, max-age=31536000, immutable',
    );
  });

  it('precompressed siblings and the SPA fallback', async (context) => {
    need(context);
    const app = siteApp({ precompressed: true, fallback: 'spa/index.html' });
    const br = await send(app, '/zipped.js', { headers: { 'Accept-Encoding': 'gzip, br' } });
    expect(br.text).toBe('BROTLI-BYTES');
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(br.headers.get('vary')).toBe('Accept-Encoding');
    const plain = await send(app, '/zipped.js', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(plain.text).toBe('plain variant');
    expect(plain.headers.has('content-encoding')).toBe(false);
    const spa = await send(app, '/users/42');
    expect(spa.status).toBe(200);
    expect(spa.text).toBe('<h1>spa</h1>');
    expect((await send(app, '/missing.js')).status).toBe(404);
  });
});
