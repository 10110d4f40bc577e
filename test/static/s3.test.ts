/**
 * StaticRouter over S3, against a real S3-compatible server on loopback (moto, or s3rver where
 * moto is absent): the store suite (store-suite.ts) through a bucket, then what only S3 does
 * (docs/static-files.md, S3): locations, retryWithIndex, error mapping, the key length limit.
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
import { overNode, quietApp, SECRET, STORE_FILES, send } from './helpers.js';
import { type S3TestServer, startS3Server } from './s3-server.js';
import { storeSuite } from './store-suite.js';

let server: S3TestServer | undefined;
let unavailable: string | undefined;
let client: S3Client;

const OBJECTS: Record<
  string,
  { body: string | Buffer; contentType?: string; cacheControl?: string }
> = {
  ...Object.fromEntries(Object.entries(STORE_FILES).map(([key, body]) => [`www/${key}`, { body }])),
  'www/custom': { body: 'typed by upload', contentType: 'text/x-custom' },
  'www/typed.constructor': { body: 'typed by upload', contentType: 'text/x-custom' },
  'www/cached.txt': { body: 'cached for a minute', cacheControl: 'public, max-age=60' },
  'www/empty.txt': { body: '' },
  'secret.txt': { body: SECRET },
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
        CacheControl: object.cacheControl,
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

storeSuite({
  name: 'S3 bucket',
  router(context, options = {}) {
    const running = need(context);
    return new StaticRouter('s3://site/www/', { s3: running.config, ...options });
  },
  skips(): Readonly<Record<string, string>> {
    if (server?.kind !== 's3rver') return {};
    return { 'a suffix range gives the last bytes': 's3rver reads a suffix range `-3` as `0-3`' };
  },
});

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

  it('serves prefix + path; an object without a known extension keeps its uploaded type', async (context) => {
    need(context);
    const response = await send(siteApp(), '/custom');
    expect(response.status).toBe(200);
    expect(response.text).toBe('typed by upload');
    expect(response.headers.get('content-type')).toBe('text/x-custom');
  });

  it('an object whose extension is an Object.prototype name keeps its uploaded type', async (context) => {
    need(context);
    await overNode(siteApp(), async (sendLines) => {
      const response = await sendLines('/typed.constructor', []);
      expect(response.status).toBe(200);
      expect(response.text).toBe('typed by upload');
      expect(response.headers['content-type']).toBe('text/x-custom');
    });
  });

  it('accepts a client or a client configuration', async (context) => {
    need(context);
    const app = quietApp();
    app.mount('/a', new StaticRouter('s3://site/www/', { s3: client }));
    app.mount('/b', new StaticRouter('s3://site/www/', { s3: (server as S3TestServer).config }));
    expect((await send(app, '/a/hello.txt')).text).toBe('hello world\n');
    expect((await send(app, '/b/hello.txt')).text).toBe('hello world\n');
  });

  it('serves from the bucket root when the prefix is empty', async (context) => {
    need(context);
    const app = siteApp({}, 's3://site');
    expect((await send(app, '/root.txt')).text).toBe('at the bucket root');
    expect((await send(app, '/')).text).toBe('<h1>bucket root</h1>');
  });
});

describe('S3 only: index retry, errors and limits', () => {
  it('with retryWithIndex a missing key is retried as <path>/<indexFile>', async (context) => {
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

  it("a 304 carries the object's stored Cache-Control, as its 200 does (RFC 9110 §15.4.5)", async (context) => {
    need(context);
    const app = siteApp();
    const full = await send(app, '/cached.txt');
    expect(full.status).toBe(200);
    expect(full.headers.get('cache-control')).toBe('public, max-age=60');
    const etag = full.headers.get('etag') as string;
    const unchanged = await send(app, '/cached.txt', { headers: { 'If-None-Match': etag } });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get('etag')).toBe(etag);
    expect(unchanged.headers.get('cache-control')).toBe('public, max-age=60');
    // The router's own setting wins over the object's, on the 304 as on the 200.
    const configured = siteApp({ cacheControl: 'no-cache' });
    const revalidated = await send(configured, '/cached.txt', {
      headers: { 'If-None-Match': etag },
    });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('cache-control')).toBe('no-cache');
    // An object without one gets none.
    const plain = await send(app, '/hello.txt');
    const plainUnchanged = await send(app, '/hello.txt', {
      headers: { 'If-None-Match': plain.headers.get('etag') as string },
    });
    expect(plainUnchanged.status).toBe(304);
    expect(plainUnchanged.headers.get('cache-control')).toBeUndefined();
  });

  it('access denied is 403', async (context) => {
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

  it('any other S3 error is 500 with a generic body, the detail logged', async (context) => {
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

  it('HEAD finds a missing bucket as GET does: 500, logged', async (context) => {
    need(context);
    const lines: string[] = [];
    const logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: (message: string) => lines.push(message),
    };
    const app = siteApp({ logger }, 's3://no-such-bucket-here/');
    const response = await send(app, '/hello.txt', { method: 'HEAD' });
    expect(response.status).toBe(500);
    expect(lines.join('\n')).toMatch(/NoSuchBucket/);
    // A missing key is still 404 for HEAD, and an empty object is found.
    const site = siteApp();
    expect((await send(site, '/no-such-file.txt', { method: 'HEAD' })).status).toBe(404);
    const empty = await send(site, '/empty.txt', { method: 'HEAD' });
    expect(empty.status).toBe(200);
    expect(empty.headers.get('content-length')).toBe('0');
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

  it('a client that leaves before the body begins gives its S3 connection back', async (context) => {
    const running = need(context);
    const { Agent } = await import('node:http');
    const { FetchAdapter } = await import('../../src/adapters/fetch/index.js');
    await client.send(
      new PutObjectCommand({ Bucket: 'site', Key: 'www/large.bin', Body: Buffer.alloc(1 << 20) }),
    );
    // Two sockets: without the release, two early cancels would leave none for the next request.
    const pooled = new S3Client({
      ...running.config,
      requestHandler: { httpAgent: new Agent({ keepAlive: true, maxSockets: 2 }) },
    });
    try {
      const app = quietApp();
      app.mount('/', new StaticRouter('s3://site/www/', { s3: pooled }));
      const adapter = new FetchAdapter(app);
      for (let i = 0; i < 4; i++) {
        const response = await adapter.fetch(new Request('http://x/large.bin'));
        expect(response.status).toBe(200);
        // Gone before the first chunk was read (a browser navigating away).
        await response.body?.cancel();
      }
      const answer = adapter.fetch(new Request('http://x/custom')).then((r) => r.text());
      const timeout = new Promise((resolve) => setTimeout(resolve, 5_000, 'no answer in 5 s'));
      expect(await Promise.race([answer, timeout])).toBe('typed by upload');
    } finally {
      pooled.destroy();
    }
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
});
