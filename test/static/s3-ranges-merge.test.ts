/**
 * Several range-specs on an S3 object are merged as they are for a local file
 * (docs/static-files.md, Ranges): overlapping and adjacent ones become one range, which S3 is
 * asked for alone, and a non-zero suffix on an empty object is the empty 200 a local file gets.
 * Both stores sit behind a real Node server on loopback with a real client (`fetch`), the bucket
 * on a real S3-compatible server (moto, or s3rver where moto is absent).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { type ServeHandle, serve } from '../../src/adapters/node/index.js';
import { StaticRouter } from '../../src/static/index.js';
import { quietApp } from './helpers.js';
import { type S3TestServer, startS3Server } from './s3-server.js';

const FILES: Record<string, string> = {
  'ten.txt': '0123456789',
  'empty.txt': '',
  'one.txt': 'x',
};

let s3: S3TestServer | undefined;
let unavailable: string | undefined;
let client: S3Client;
let http: ServeHandle;
let directory: string;
/** The Range of every GetObject the store sent, in order. */
const asked: Array<string | undefined> = [];

beforeAll(async () => {
  const started = await startS3Server();
  if (typeof started === 'string') {
    unavailable = started;
    return;
  }
  s3 = started;
  client = new S3Client(s3.config);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'GetObjectCommand') {
        asked.push((args.input as { Range?: string }).Range);
      }
      return next(args);
    },
    { step: 'initialize' },
  );
  await client.send(new CreateBucketCommand({ Bucket: 'site' }));
  directory = mkdtempSync(join(tmpdir(), 'restmachine-ranges-'));
  for (const [name, body] of Object.entries(FILES)) {
    writeFileSync(join(directory, name), body);
    await client.send(new PutObjectCommand({ Bucket: 'site', Key: `www/${name}`, Body: body }));
  }
  const app = quietApp();
  app.mount('/local', new StaticRouter(directory));
  app.mount('/s3', new StaticRouter('s3://site/www/', { s3: client }));
  http = await serve(app, { port: 0, host: '127.0.0.1', handleSignals: false });
}, 60_000);

afterAll(async () => {
  await http?.close();
  client?.destroy();
  await s3?.stop();
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
});

/** The running S3 server, or a skip with the reason (a failure in CI, thrown by the harness). */
function need(context: TestContext): S3TestServer {
  if (s3 === undefined) {
    console.warn(`Skipped: ${unavailable}`);
    context.skip(unavailable);
  }
  return s3 as S3TestServer;
}

/** What moto and S3 do but the fallback server cannot. */
function skipOnS3rver(running: S3TestServer, context: TestContext, reason: string): void {
  if (running.kind !== 's3rver') return;
  console.warn(`Skipped: ${reason}`);
  context.skip(reason);
}

interface Answer {
  status: number;
  contentRange: string | null;
  contentType: string | null;
  body: string;
}

async function get(path: string, headers: Record<string, string>): Promise<Answer> {
  const response = await fetch(`${http.url}${path}`, { headers });
  return {
    status: response.status,
    contentRange: response.headers.get('content-range'),
    contentType: response.headers.get('content-type'),
    body: response.status === 416 ? '' : await response.text(),
  };
}

/** The same request to the local directory and to the bucket. */
async function both(name: string, headers: Record<string, string>) {
  return { local: await get(`/local/${name}`, headers), s3: await get(`/s3/${name}`, headers) };
}

describe('S3 merges overlapping and adjacent ranges as a local directory does', () => {
  it('answers 206 with the one merged range, and asks S3 for that range alone', async (context) => {
    need(context);
    const cases: Array<[string, string, string]> = [
      ['bytes=0-3,2-5', 'bytes 0-5/10', '012345'],
      ['bytes=0-1,2-3', 'bytes 0-3/10', '0123'],
      ['bytes=1-1,1-1,1-1', 'bytes 1-1/10', '1'],
      ['bytes=2-4,', 'bytes 2-4/10', '234'],
      ['bytes=2-4, 3-4', 'bytes 2-4/10', '234'],
      // Merging these needs the size: `100-200` lies past the end, `-8` reaches back to 2.
      ['bytes=0-1,100-200', 'bytes 0-1/10', '01'],
      ['bytes=5-,-8', 'bytes 2-9/10', '23456789'],
      ['bytes=-3,-5', 'bytes 5-9/10', '56789'],
    ];
    for (const [range, contentRange, body] of cases) {
      asked.length = 0;
      const { local, s3: fromS3 } = await both('ten.txt', { Range: range });
      for (const answer of [local, fromS3]) {
        expect(answer.status, range).toBe(206);
        expect(answer.contentRange, range).toBe(contentRange);
        expect(answer.body, range).toBe(body);
      }
      // Only the merged range left the bucket.
      expect(asked, range).toEqual([`bytes=${contentRange.slice(6, contentRange.indexOf('/'))}`]);
    }
  });

  it('merges by the size: `0-0,-1` is one range of a 1-byte object', async (context) => {
    need(context);
    const { local, s3: fromS3 } = await both('one.txt', { Range: 'bytes=0-0,-1' });
    expect(fromS3).toEqual(local);
    expect([fromS3.status, fromS3.contentRange, fromS3.body]).toEqual([206, 'bytes 0-0/1', 'x']);
  });

  it('answers 416 when no spec is satisfiable, with the size', async (context) => {
    need(context);
    for (const range of ['bytes=10-,20-30', 'bytes=-0,-0', 'bytes=12-, -0']) {
      const { local, s3: fromS3 } = await both('ten.txt', { Range: range });
      expect([local.status, local.contentRange], range).toEqual([416, 'bytes */10']);
      expect([fromS3.status, fromS3.contentRange], range).toEqual([416, 'bytes */10']);
    }
  });

  it('keeps ranges that stay apart whole (200) and never sends only the first', async (context) => {
    need(context);
    asked.length = 0;
    const fromS3 = await get('/s3/ten.txt', { Range: 'bytes=0-0,-1' });
    expect([fromS3.status, fromS3.contentRange, fromS3.body]).toEqual([200, null, '0123456789']);
    expect(asked).toEqual([undefined]);
  });

  it('still honours If-Range and the preconditions before merging', async (context) => {
    need(context);
    const etag = (await fetch(`${http.url}/s3/ten.txt`)).headers.get('etag') as string;
    const current = await get('/s3/ten.txt', { Range: 'bytes=0-3,2-5', 'If-Range': etag });
    expect([current.status, current.contentRange, current.body]).toEqual([
      206,
      'bytes 0-5/10',
      '012345',
    ]);
    const stale = await get('/s3/ten.txt', { Range: 'bytes=0-3,2-5', 'If-Range': '"stale"' });
    expect([stale.status, stale.body]).toEqual([200, '0123456789']);
    const unchanged = await get('/s3/ten.txt', { Range: 'bytes=0-3,2-5', 'If-None-Match': etag });
    expect(unchanged.status).toBe(304);
  });

  it('a failed If-Match is 412 even when no range is satisfiable (RFC 9110 §13.2.2)', async (context) => {
    skipOnS3rver(need(context), context, 's3rver ignores the conditions of a HeadObject');
    const failed = await get('/s3/ten.txt', { Range: 'bytes=50-,-0', 'If-Match': '"other"' });
    expect(failed.status).toBe(412);
  });
});

describe('a suffix range on an empty file (RFC 9110 §14.1.2)', () => {
  it('is the empty 200 from both stores; other forms are 416 bytes */0', async (context) => {
    skipOnS3rver(need(context), context, 's3rver fails every ranged read of an empty object');
    for (const range of ['bytes=-5', 'bytes=-5,-1', 'bytes=0-,-5']) {
      const { local, s3: fromS3 } = await both('empty.txt', { Range: range });
      for (const answer of [local, fromS3]) {
        expect([answer.status, answer.contentRange, answer.body], range).toEqual([200, null, '']);
      }
    }
    for (const range of ['bytes=0-', 'bytes=0-0,-0']) {
      const { local, s3: fromS3 } = await both('empty.txt', { Range: range });
      for (const answer of [local, fromS3]) {
        expect([answer.status, answer.contentRange], range).toEqual([416, 'bytes */0']);
      }
    }
  });
});

describe('S3 and a local directory agree on any Range', () => {
  it('gives the same status, Content-Range and bytes, or S3 the whole file where the local answer is multipart', async (context) => {
    // store-suite.ts: s3rver reads a single suffix range `-3` as `0-3`.
    skipOnS3rver(need(context), context, 's3rver misreads a suffix range');
    const position = fc.nat({ max: 13 });
    const spec = fc.oneof(
      fc.tuple(position, position).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
      position.map((a) => `${a}-`),
      position.map((n) => `-${n}`),
    );
    const header = fc
      .tuple(
        fc.array(spec, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(',', ', ', ' ,'),
        fc.boolean(),
      )
      .map(
        ([specs, separator, trailing]) => `bytes=${specs.join(separator)}${trailing ? ',' : ''}`,
      );
    await fc.assert(
      fc.asyncProperty(
        header,
        fc.constantFrom('ten.txt', 'one.txt', 'empty.txt'),
        async (range, name) => {
          const { local, s3: fromS3 } = await both(name, { Range: range });
          if (local.contentType?.startsWith('multipart/byteranges')) {
            // Ranges that stay apart: S3 reads one range per request, so the whole file (§14.2).
            expect([fromS3.status, fromS3.contentRange, fromS3.body]).toEqual([
              200,
              null,
              FILES[name],
            ]);
            return;
          }
          expect(fromS3).toEqual(local);
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);
});
