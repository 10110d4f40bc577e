/**
 * What the installed package does on the Workers runtime itself, beyond starting (worker.test.ts):
 * one workerd serves one Worker three times, without Node compatibility, with `nodejs_compat`,
 * and with `nodejs_compat` and a file system (`enable_nodejs_fs_module`), and the tests send it
 * many requests. Each checks something workerd does differently from Node, Bun and Deno.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Installed, packAndInstall } from './packed.js';
import { bundleWorker, needWorkerd, type RunningWorkerd, startWorkerd } from './workerd.js';

const WORKER = `
import { RestApplication, Response } from 'restmachine';
import { FetchAdapter } from 'restmachine/fetch';
import { openapiRouter } from 'restmachine/openapi';
import { StaticRouter } from 'restmachine/static';

const app = new RestApplication();
const pause = (ms) => new Promise((wake) => setTimeout(wake, ms));
app.get('/', () => ({ ready: true }));
app.get('/big', () => ({ data: 'x'.repeat(5000) })).compress();
app.get('/big-stream', () => new Response(200, (async function* () {
  for (let i = 0; i < 3; i++) { yield 'y'.repeat(2000); await pause(10); }
})(), { contentType: 'text/plain' })).compress();

const released = { ticks: false, sized: false };
app.get('/released', () => released);
const ticks = (name) => (async function* () {
  try {
    for (let i = 0; ; i++) { yield 'tick ' + i + '\\n'; await pause(100); }
  } finally {
    await pause(50);
    released[name] = true;
  }
})();
// Naming the signal binds the stream to it: the pipeline stops it without waiting for it.
app.get('/ticks', ({ signal }) => new Response(200, ticks('ticks'), { contentType: 'text/plain' }));
// A declared length: on Workers the body goes out through a FixedLengthStream.
app.get('/sized-ticks', ({ signal }) => new Response(200, ticks('sized'), {
  contentType: 'text/plain',
  headers: { 'Content-Length': '100000' },
}));

app.get('/sized', () => new Response(200, (async function* () { yield 'abc'; yield 'def'; })(), {
  contentType: 'text/plain',
  headers: { 'Content-Length': '6' },
}));

let staticFailure = null;
try {
  app.mount('/files', new StaticRouter('/bundle'));
} catch (error) {
  staticFailure = error.code;
}
app.get('/static-failure', () => ({ staticFailure }));

let docsFailure = null;
try {
  openapiRouter(app, { info: { title: 'Page', version: '1' } });
} catch (error) {
  docsFailure = error.message;
}
app.get('/docs-failure', () => ({ docsFailure }));
app.mount('/', openapiRouter(app, { info: { title: 'Worker', version: '1' }, docs: false }));

export default { fetch: new FetchAdapter(app).fetch };
`;

let installed: Installed;
let workerd: RunningWorkerd | undefined;
/** The Worker without Node compatibility, with `nodejs_compat`, and with a file system too. */
let plain: string;
let compat: string;
let files: string;

beforeAll(async () => {
  installed = await packAndInstall();
}, 240_000);

afterAll(() => {
  workerd?.process.kill();
  if (installed !== undefined) rmSync(installed.work, { recursive: true, force: true });
});

/** Starts workerd once, for the first test that needs it. */
async function started(): Promise<void> {
  if (workerd !== undefined) return;
  const directory = mkdtempSync(join(installed.work, 'worker-'));
  await bundleWorker(installed.project, WORKER, directory);
  workerd = await startWorkerd(directory, [
    { file: 'worker.js', flags: [] },
    { file: 'worker.js', flags: ['nodejs_compat'] },
    { file: 'worker.js', flags: ['nodejs_compat', 'enable_nodejs_fs_module'] },
  ]);
  [plain, compat, files] = workerd.origins as [string, string, string];
}

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A request over plain HTTP/1.1, whose answer is read as sent: nothing decoded. */
function raw(
  url: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<RawAnswer> {
  return new Promise((resolveAnswer, reject) => {
    httpRequest(url, { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolveAnswer({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks),
        }),
      );
    })
      .on('error', reject)
      .end();
  });
}

describe('restmachine on workerd', () => {
  it('sends a compressed body compressed once, buffered and streamed', async (context) => {
    needWorkerd(context);
    await started();
    for (const origin of [plain, compat]) {
      const buffered = await raw(`${origin}/big`, { 'accept-encoding': 'gzip' });
      expect(buffered.headers['content-encoding']).toBe('gzip');
      expect(JSON.parse(gunzipSync(buffered.body).toString())).toEqual({ data: 'x'.repeat(5000) });
      const streamed = await raw(`${origin}/big-stream`, { 'accept-encoding': 'gzip' });
      expect(streamed.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(streamed.body).toString()).toBe('y'.repeat(6000));
    }
  }, 60_000);

  it('uses node:zlib, Brotli included, where Node compatibility gives it', async (context) => {
    needWorkerd(context);
    await started();
    const answer = await raw(`${compat}/big`, { 'accept-encoding': 'br' });
    expect(answer.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(answer.body).toString())).toEqual({
      data: 'x'.repeat(5000),
    });
  }, 60_000);

  it("runs a stream's finally after its client went away, past an await", async (context) => {
    needWorkerd(context);
    await started();
    for (const [path, name] of [
      ['/ticks', 'ticks'],
      ['/sized-ticks', 'sized'],
    ] as const) {
      const abort = new AbortController();
      const answer = await fetch(`${plain}${path}`, { signal: abort.signal });
      const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      await reader.read();
      abort.abort();
      const deadline = Date.now() + 5_000;
      let released = false;
      while (!released && Date.now() < deadline) {
        await new Promise((wait) => setTimeout(wait, 100));
        const flags = (await (await fetch(`${plain}/released`)).json()) as Record<string, boolean>;
        released = flags[name] === true;
      }
      expect({ path, released }).toEqual({ path, released: true });
    }
  }, 60_000);

  it('serves the OpenAPI document, and says why the reference page cannot be', async (context) => {
    needWorkerd(context);
    await started();
    for (const origin of [plain, compat]) {
      const answer = await fetch(`${origin}/openapi.json`);
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { info: unknown }).info).toEqual({
        title: 'Worker',
        version: '1',
      });
    }
    const failure = (await (await fetch(`${plain}/docs-failure`)).json()) as {
      docsFailure: string;
    };
    expect(failure.docsFailure).toMatch(/docs: false/);
  }, 60_000);

  it('serves a local directory where there is a file system, with its length', async (context) => {
    needWorkerd(context);
    await started();
    for (const origin of [plain, compat]) {
      expect(await (await fetch(`${origin}/static-failure`)).json()).toEqual({
        staticFailure: 'NO_FILE_SYSTEM',
      });
    }
    const head = await raw(`${files}/files/worker.js`, {}, 'HEAD');
    const length = Number(head.headers['content-length']);
    expect(length).toBeGreaterThan(0);
    const whole = await raw(`${files}/files/worker.js`);
    expect(whole.status).toBe(200);
    expect(whole.headers['content-length']).toBe(String(length));
    expect(whole.body.length).toBe(length);
    const range = await raw(`${files}/files/worker.js`, { range: 'bytes=0-9' });
    expect(range.status).toBe(206);
    expect(range.headers['content-length']).toBe('10');
    expect(range.body.length).toBe(10);
    const sized = await raw(`${plain}/sized`);
    expect(sized.headers['content-length']).toBe('6');
    expect(sized.body.toString()).toBe('abcdef');
  }, 60_000);
});
