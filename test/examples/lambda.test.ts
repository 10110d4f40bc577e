/**
 * The example on AWS Lambda: examples/app/lambda.ts driven with HTTP API payload 2.0 and
 * Function URL events as AWS sends them (test/adapters/aws/fixtures.ts), on the embedded
 * database; the function as `sam build` packages it (scripts/build-example-lambda.mjs); and the
 * SAM template's structure (no SAM CLI here).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { GatewayHandler } from '../../src/adapters/aws/index.js';
import {
  lambdaContext,
  readV2Result,
  type V2EventOptions,
  v2Event,
  type WireRequest,
} from '../adapters/aws/fixtures.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const appDir = join(root, 'examples', 'app');
const decoder = new TextDecoder();
/**
 * The bundle's bytes (lambda.mjs): restmachine, zod and pg, about 1 MB. It was 2.3 MB while the
 * static router's import of @aws-sdk/client-s3 was one esbuild followed.
 */
const LAMBDA_BUNDLE_BUDGET = 1.2 * 1024 * 1024;

async function invoke(handler: GatewayHandler, request: WireRequest, options: V2EventOptions = {}) {
  const result = await handler(v2Event(request, options), lambdaContext());
  const response = readV2Result(result);
  const text = decoder.decode(response.body);
  return { ...response, text, json: () => JSON.parse(text) };
}

describe('the Lambda entry on the embedded database', () => {
  let handler: GatewayHandler;
  let savedUrl: string | undefined;

  beforeAll(async () => {
    // The entry reads DATABASE_URL when it loads: unset, the embedded database.
    savedUrl = process.env.DATABASE_URL;
    delete process.env.DATABASE_URL;
    ({ handler } = await import('../../examples/app/lambda.js'));
  });
  afterAll(() => {
    if (savedUrl !== undefined) process.env.DATABASE_URL = savedUrl;
  });

  it('starts on the first event and lists the bookmarks through an HTTP API', async () => {
    const list = await invoke(handler, { method: 'GET', path: '/api/v1/bookmarks?tag=http' });
    expect(list.status).toBe(200);
    expect(list.headers.get('content-type')).toBe('application/json');
    expect(list.json()).toMatchObject([{ id: '2', title: 'RFC 9110: HTTP Semantics' }]);
  }, 120_000);

  it('creates, reads with ETag, updates with If-Match, refuses a stale one, deletes', async () => {
    const created = await invoke(handler, {
      method: 'POST',
      path: '/api/v1/bookmarks',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://aws.amazon.com/lambda/', title: 'Lambda' }),
    });
    expect(created.status).toBe(201);
    const { id } = created.json();
    expect(created.headers.get('location')).toBe(`/api/v1/bookmarks/${id}`);

    // Through the Function URL this time: the same function, the other integration.
    const read = await invoke(
      handler,
      { method: 'GET', path: `/api/v1/bookmarks/${id}` },
      { functionUrl: true },
    );
    expect(read.status).toBe(200);
    const etag = read.headers.get('etag') as string;
    expect(etag).toBe('"v1"');

    const patch = (ifMatch: string) =>
      invoke(handler, {
        method: 'PATCH',
        path: `/api/v1/bookmarks/${id}`,
        headers: { 'content-type': 'application/json', 'if-match': ifMatch },
        body: JSON.stringify({ tags: ['aws'] }),
      });
    const updated = await patch(etag);
    expect(updated.status).toBe(200);
    expect(updated.json()).toMatchObject({ id, tags: ['aws'], version: 2 });
    expect((await patch(etag)).status).toBe(412);

    const removed = await invoke(handler, { method: 'DELETE', path: `/api/v1/bookmarks/${id}` });
    expect(removed.status).toBe(204);
    const missing = await invoke(handler, { method: 'GET', path: `/api/v1/bookmarks/${id}` });
    expect(missing.status).toBe(404);
  });

  it('answers 422 for an invalid body, and serves the API only (no front-end)', async () => {
    const invalid = await invoke(
      handler,
      {
        method: 'POST',
        path: '/api/v1/bookmarks',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'ftp://x', title: '' }),
      },
      { base64Text: true },
    );
    expect(invalid.status).toBe(422);
    expect(
      invalid
        .json()
        .details.map((issue: { path: string }) => issue.path)
        .sort(),
    ).toEqual(['title', 'url']);
    expect((await invoke(handler, { method: 'GET', path: '/' })).status).toBe(404);
  });
});

describe('the SAM template', () => {
  const template = parse(readFileSync(join(appDir, 'template.yaml'), 'utf8'));
  const fn = template.Resources.BookmarksFunction;

  it('is a SAM template with the database URL as a secret parameter', () => {
    expect(template.Transform).toBe('AWS::Serverless-2016-10-31');
    expect(template.Parameters.DatabaseUrl).toMatchObject({ Type: 'String', NoEcho: true });
    expect(fn.Properties.Environment.Variables.DATABASE_URL).toEqual({ Ref: 'DatabaseUrl' });
  });

  it('has a Node.js function behind an HTTP API (payload 2.0) and a Function URL', () => {
    expect(fn.Type).toBe('AWS::Serverless::Function');
    expect(fn.Properties.Runtime).toMatch(/^nodejs(20|22)\.x$/);
    expect(fn.Properties.FunctionUrlConfig).toEqual({ AuthType: 'NONE' });
    const events = Object.values(fn.Properties.Events) as Array<{
      Type: string;
      Properties: Record<string, unknown>;
    }>;
    expect(events).toHaveLength(1);
    expect(events[0]).toEqual({
      Type: 'HttpApi',
      Properties: {
        ApiId: { Ref: 'BookmarksApi' },
        Path: '/{proxy+}',
        Method: 'ANY',
        PayloadFormatVersion: '2.0',
      },
    });
    expect(template.Resources.BookmarksApi.Type).toBe('AWS::Serverless::HttpApi');
  });

  it('builds with the Makefile target sam build runs', () => {
    expect(fn.Metadata).toEqual({ BuildMethod: 'makefile' });
    const makefile = readFileSync(join(appDir, fn.Properties.CodeUri, 'Makefile'), 'utf8');
    expect(makefile).toMatch(/^build-BookmarksFunction:\n\t.*scripts\/build-example-lambda\.mjs/m);
    expect(existsSync(join(root, 'scripts', 'build-example-lambda.mjs'))).toBe(true);
  });
});

describe('the function as sam build packages it', () => {
  let folder: string;
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'restmachine-lambda-'));
    await run(process.execPath, ['scripts/build-example-lambda.mjs', folder], { cwd: root });
  }, 120_000);
  afterAll(() => {
    rmSync(folder, { recursive: true, force: true });
  });

  it('exports the handler the template names, which answers an event', async () => {
    const template = parse(readFileSync(join(appDir, 'template.yaml'), 'utf8'));
    const [file, name] = (template.Resources.BookmarksFunction.Properties.Handler as string).split(
      '.',
    ) as [string, string];
    // The Node.js runtime looks for <file>.js, .mjs or .cjs in the package's root.
    const bundle = join(folder, `${file}.mjs`);
    expect(existsSync(bundle)).toBe(true);
    const loaded = (await import(pathToFileURL(bundle).href)) as Record<string, unknown>;
    const handler = loaded[name] as GatewayHandler;
    expect(typeof handler).toBe('function');
    const tags = await invoke(handler, { method: 'GET', path: '/api/v1/tags' });
    expect(tags.status).toBe(200);
    expect(tags.json()).toContainEqual({ tag: 'http', count: 1 });
  }, 120_000);

  it('carries no AWS SDK, which the example never uses (the static router imports it only at run time)', () => {
    const map = JSON.parse(readFileSync(join(folder, 'lambda.mjs.map'), 'utf8')) as {
      sources: string[];
    };
    expect(map.sources.length).toBeGreaterThan(10);
    expect(map.sources.filter((source) => source.includes('@aws-sdk/'))).toEqual([]);
    expect(statSync(join(folder, 'lambda.mjs')).size).toBeLessThan(LAMBDA_BUNDLE_BUDGET);
  });
});
