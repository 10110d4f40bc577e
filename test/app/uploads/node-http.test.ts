/**
 * Uploads over real HTTP: the Node adapter on 127.0.0.1, clients from `node:http` and `fetch`.
 * A 50 MB upload goes through with bounded memory; a limit crossed mid-upload is answered with
 * 413 and `Connection: close` without reading the rest, and the server stays healthy; the
 * temporary directory is listed before and after finished, refused and aborted uploads.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRequestBody, ServeHandle } from '../../../src/adapters/node/index.js';
import {
  HttpError,
  Response,
  RestApplication,
  silentLogger,
  type UploadedFile,
} from '../../../src/index.js';
import { send, sleep, start } from '../../adapters/node/helpers.js';

const MiB = 1024 * 1024;
const BOUNDARY = 'node-http-upload-boundary';
const HEAD = Buffer.from(
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\nbig one\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="video"; filename="v.bin"\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n',
);
const TAIL = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
// One 64 KiB block, sent again and again: the client holds no more than this.
const BLOCK = Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => (i * 31 + 7) % 251));

const run = promisify(execFile);
const CLIENT = fileURLToPath(new URL('./fixtures/upload-client.mjs', import.meta.url));

// `gc()` without starting the test process with --expose-gc: the flag can be set at run time,
// and a fresh context then exposes the function.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

let tmpDir: string;
let server: ServeHandle;

function leftOnDisk(): string[] {
  return readdirSync(tmpDir, { recursive: true }) as string[];
}

async function until(condition: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(10);
  }
}

interface Upload {
  response: Promise<{ status: number; headers: IncomingMessage['headers']; body: string }>;
  /** Bytes written when the response arrived (or all of them). */
  writtenAtResponse: () => number;
}

/**
 * Sends a multipart body whose file is `fileBytes` long, block by block with backpressure;
 * `stopAfter` bytes of the file, when given, ends by destroying the connection (an abort).
 */
function upload(path: string, fileBytes: number, stopAfter?: number): Upload {
  let written = 0;
  let atResponse = -1;
  const response = new Promise<{
    status: number;
    headers: IncomingMessage['headers'];
    body: string;
  }>((resolve, reject) => {
    const outgoing = httpRequest({
      host: '127.0.0.1',
      port: server.port,
      method: 'POST',
      path,
      agent: false,
      headers: {
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'content-length': String(HEAD.length + fileBytes + TAIL.length),
      },
    });
    let answered = false;
    outgoing.on('response', (incoming) => {
      answered = true;
      atResponse = written;
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () =>
        resolve({
          status: incoming.statusCode ?? 0,
          headers: incoming.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    // The server may close the connection while the client still writes (after a 413).
    outgoing.on('error', (error) => {
      if (!answered && stopAfter === undefined) reject(error);
    });
    void (async () => {
      outgoing.write(HEAD);
      let sent = 0;
      while (sent < fileBytes && !outgoing.destroyed && !answered) {
        if (stopAfter !== undefined && sent >= stopAfter) {
          outgoing.destroy();
          resolve({ status: 0, headers: {}, body: 'aborted' });
          return;
        }
        const block = BLOCK.subarray(0, Math.min(BLOCK.length, fileBytes - sent));
        sent += block.length;
        written = sent;
        if (!outgoing.write(block)) {
          await new Promise<void>((done) => {
            const go = () => {
              outgoing.off('drain', go);
              outgoing.off('close', go);
              done();
            };
            outgoing.on('drain', go);
            outgoing.on('close', go);
          });
        }
        // Give the server's answer a chance to arrive before the next block.
        if (sent % (4 * MiB) === 0) await sleep(0);
      }
      if (!outgoing.destroyed && !answered) outgoing.end(TAIL);
    })();
  });
  return { response, writtenAtResponse: () => (atResponse === -1 ? written : atResponse) };
}

function expectedDigest(fileBytes: number): string {
  const hash = createHash('sha256');
  for (let sent = 0; sent < fileBytes; sent += BLOCK.length) {
    hash.update(BLOCK.subarray(0, Math.min(BLOCK.length, fileBytes - sent)));
  }
  return hash.digest('hex');
}

beforeAll(async () => {
  tmpDir = mkdtempSync(join(tmpdir(), 'uploads-http-'));
  const app = new RestApplication({
    logger: silentLogger,
    multipart: { fileSize: 64 * MiB, tmpDir },
  });
  app.post('/videos', async ({ formBody, files }) => {
    const video = files[0] as UploadedFile;
    const hash = createHash('sha256');
    for await (const chunk of video.stream() as unknown as AsyncIterable<Uint8Array>)
      hash.update(chunk);
    return { note: formBody.note, size: video.size, sha256: hash.digest('hex') };
  });
  app
    .post('/avatars', ({ files }) => ({ size: files[0]?.size }))
    .multipart({ fileSize: MiB, tmpDir });
  app.post('/slow', async ({ files }) => ({ size: files[0]?.size }));
  app.get('/health', () => ({ ok: true }));
  app.post('/hash-parts', async ({ parts }) => {
    const seen: unknown[] = [];
    for await (const part of parts) {
      const hash = createHash('sha256');
      let size = 0;
      for await (const chunk of part) {
        hash.update(chunk);
        size += chunk.length;
      }
      seen.push({ field: part.field, size, sha256: hash.digest('hex') });
    }
    return seen;
  });
  app.post('/magic', async ({ parts }) => {
    const seen: unknown[] = [];
    for await (const part of parts) {
      // The first bytes only, as a type check by magic number does; the rest is left.
      const reader = part.stream().getReader();
      const first = await reader.read();
      reader.releaseLock();
      seen.push({ field: part.field, magic: Buffer.from(first.value ?? []).toString('hex', 0, 4) });
    }
    return seen;
  });
  // A store per part, awaited after the loop: each reads its stream chunk by chunk, later.
  app.post('/archive', async ({ parts }) => {
    const store = async (content: ReadableStream<Uint8Array>) => {
      let stored = 0;
      const reader = content.getReader();
      try {
        for (let next = await reader.read(); !next.done; next = await reader.read()) {
          stored += next.value.length;
          await sleep(1);
        }
        return { stored, complete: true };
      } catch (error) {
        return { stored, error: (error as Error).message };
      }
    };
    const puts: Promise<unknown>[] = [];
    for await (const part of parts) puts.push(store(part.stream()));
    return Promise.all(puts);
  });
  app.post('/form', async ({ formBody, files }) => ({
    formBody,
    files: await Promise.all(
      files.map(async (file) => [file.filename, file.contentType, await file.text()]),
    ),
  }));
  server = await start(app);
});

afterAll(async () => {
  await server.close();
  rmSync(tmpDir, { recursive: true, force: true });
});

describe('uploads over HTTP', () => {
  it('takes a form from fetch and FormData', async () => {
    const form = new FormData();
    form.append('title', 'Café');
    form.append('doc', new Blob(['hello'], { type: 'text/markdown' }), 'notes.md');
    const response = await fetch(`${server.url}/form`, { method: 'POST', body: form });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      formBody: { title: 'Café' },
      files: [['notes.md', 'text/markdown', 'hello']],
    });
  });

  it('holds at most fieldsSize of text fields (the bodyLimit by default): 413 past it', async () => {
    const KiB = 1024;
    const fieldsOf = ({ formBody }: { formBody: Record<string, string> }) =>
      Object.values(formBody).map((value) => value.length);
    const app = new RestApplication({ logger: silentLogger });
    app.post('/form', fieldsOf);
    app.post('/raised', fieldsOf).multipart({ fieldsSize: 2 * MiB });
    app.post('/large-bodies', fieldsOf).bodyLimit(2 * MiB);
    const raisedApp = new RestApplication({
      logger: silentLogger,
      multipart: { fieldsSize: 2 * MiB },
    });
    raisedApp.post('/form', fieldsOf);
    const local = await start(app);
    const raised = await start(raisedApp);
    const postFields = async (url: string, ...sizes: number[]) => {
      const form = new FormData();
      for (const [i, size] of sizes.entries()) form.append(`f${i}`, 'a'.repeat(size));
      const response = await fetch(url, { method: 'POST', body: form });
      return { status: response.status, body: await response.json() };
    };
    try {
      // Each field within fieldSize (1 MiB), the two together over 1 MiB.
      expect(await postFields(`${local.url}/form`, 600 * KiB, 600 * KiB)).toEqual({
        status: 413,
        body: {
          error: 'Upload over the fieldsSize limit of 1048576 bytes at field "f1"',
          statusCode: 413,
          path: '/form',
          details: [{ limit: 'fieldsSize', field: 'f1' }],
        },
      });
      expect(await postFields(`${local.url}/form`, 600 * KiB, 400 * KiB)).toEqual({
        status: 200,
        body: [600 * KiB, 400 * KiB],
      });
      for (const url of [
        `${local.url}/raised`,
        `${local.url}/large-bodies`,
        `${raised.url}/form`,
      ]) {
        expect(await postFields(url, 600 * KiB, 600 * KiB)).toEqual({
          status: 200,
          body: [600 * KiB, 600 * KiB],
        });
      }
      // The server goes on serving.
      expect(
        (await fetch(`${local.url}/form`, { method: 'POST', body: new FormData() })).status,
      ).toBe(200);
    } finally {
      await local.close();
      await raised.close();
    }
  });

  it('takes a 50 MB upload with bounded memory, and leaves nothing on disk', async () => {
    const size = 50 * MiB;
    // The client runs in a process of its own, so this process's memory is the server's.
    const client = async (bytes: number) => {
      const { stdout } = await run(process.execPath, [
        CLIENT,
        `${server.url}/videos`,
        String(bytes),
      ]);
      return JSON.parse(stdout) as { status: number; body: string };
    };
    // Warm up: the parser is loaded on first use, and the first large body grows V8's heap to
    // its working size (about 25 MiB here), which is not what this test is about: that a
    // larger upload takes no more memory than a smaller one.
    expect((await client(16 * MiB)).status).toBe(200);
    // Collecting before each sample measures what the server holds, not garbage V8 has yet to
    // reclaim; RSS also moves with the allocator, so it gets the looser bound.
    collectGarbage();
    const before = process.memoryUsage();
    let peakRss = before.rss;
    let peakBuffers = before.arrayBuffers;
    let sawSpill = false;
    const sampler = setInterval(() => {
      collectGarbage();
      const usage = process.memoryUsage();
      peakRss = Math.max(peakRss, usage.rss);
      peakBuffers = Math.max(peakBuffers, usage.arrayBuffers);
      sawSpill ||= leftOnDisk().length > 0;
    }, 25);
    const started = Date.now();
    const result = await client(size);
    clearInterval(sampler);
    const growth = (Math.max(peakRss, process.memoryUsage().rss) - before.rss) / MiB;
    const buffered = (peakBuffers - before.arrayBuffers) / MiB;
    console.info(
      `[uploads] 50 MiB upload over HTTP: server RSS ${Math.round(before.rss / MiB)} MiB before, peak growth ${growth.toFixed(1)} MiB, buffers held at most ${buffered.toFixed(1)} MiB, ${Date.now() - started} ms`,
    );
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body)).toEqual({
      note: 'big one',
      size,
      sha256: expectedDigest(size),
    });
    expect(sawSpill).toBe(true);
    // Holding the upload would take all of its 50 MiB in either measure.
    expect(buffered).toBeLessThan(40);
    expect(growth).toBeLessThan(40);
    expect(leftOnDisk()).toEqual([]);
  }, 60_000);

  it('streams 20 MiB through parts without a temporary file', async () => {
    const size = 20 * MiB;
    const { stdout } = await run(process.execPath, [
      CLIENT,
      `${server.url}/hash-parts`,
      String(size),
    ]);
    const result = JSON.parse(stdout) as { status: number; body: string };
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body)).toEqual([
      { field: 'note', size: 7, sha256: createHash('sha256').update('big one').digest('hex') },
      { field: 'video', size, sha256: expectedDigest(size) },
    ]);
    expect(leftOnDisk()).toEqual([]);
  }, 30_000);

  it('goes on to the next part when a handler read only the first bytes of one', async () => {
    const form = new FormData();
    const png = new Uint8Array(300 * 1024).fill(7);
    png.set([0x89, 0x50, 0x4e, 0x47]);
    form.append('a', new Blob([png]), 'a.png');
    form.append('b', new Blob(['%PDF-1.7 rest']), 'b.pdf');
    const response = await fetch(`${server.url}/magic`, {
      method: 'POST',
      body: form,
      signal: AbortSignal.timeout(5_000),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([
      { field: 'a', magic: '89504e47' },
      { field: 'b', magic: '25504446' },
    ]);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  it("fails a part's stream read after the loop moved on, rather than ending it as if whole", async () => {
    const form = new FormData();
    form.append('a', new Blob([new Uint8Array(300_000)]), 'a.bin');
    form.append('b', new Blob([new Uint8Array(300_000)]), 'b.bin');
    const response = await fetch(`${server.url}/archive`, {
      method: 'POST',
      body: form,
      signal: AbortSignal.timeout(5_000),
    });
    expect(response.status).toBe(200);
    const stores = (await response.json()) as { stored: number; error?: string }[];
    const skipped = (field: string) =>
      `Part "${field}" was skipped: the loop moved to the next part before it was read`;
    // Each got what was read before the loop went on (the last before it asked for the end),
    // never a clean end that a store would commit as the whole file.
    expect(stores).toMatchObject([{ error: skipped('a') }, { error: skipped('b') }]);
    for (const each of stores) expect(each.stored).toBeLessThan(300_000);
  });

  it('answers 413 mid-upload, closes the connection without reading the rest, and stays healthy', async () => {
    // Within what the route's limits allow in all (ten files of 1 MiB, 1 MiB of fields), so the
    // declared length passes and the file crosses its own limit as it arrives.
    const size = 8 * MiB;
    const sent = upload('/avatars', size);
    const result = await sent.response;
    expect(result.status).toBe(413);
    expect(result.headers.connection).toBe('close');
    expect(JSON.parse(result.body).details).toEqual([
      { limit: 'fileSize', field: 'video', filename: 'v.bin' },
    ]);
    // Answered long before the client could send it all.
    expect(sent.writtenAtResponse()).toBeLessThan(size / 2);
    expect(leftOnDisk()).toEqual([]);
    const next = await send(server.port, { path: '/health' });
    expect(next.status).toBe(200);
    expect(JSON.parse(next.body.toString())).toEqual({ ok: true });
  }, 30_000);

  it('removes what an aborted upload had spilled, and stays healthy', async () => {
    const sent = upload('/slow', 30 * MiB, 8 * MiB);
    await sent.response;
    await until(() => leftOnDisk().length === 0);
    const next = await send(server.port, { path: '/health' });
    expect(next.status).toBe(200);
  }, 30_000);

  it('a client gone mid-upload is a 400 as for any cut-short body, with no error line', async () => {
    const lines: { level: string; message: string; status: unknown; error?: string }[] = [];
    const record = (level: string) => (message: string, fields?: Record<string, unknown>) =>
      lines.push({ level, message, status: fields?.status, error: fields?.error?.toString() });
    const app = new RestApplication({
      accessLog: true,
      logger: {
        debug: record('debug'),
        info: record('info'),
        warn: record('warn'),
        error: record('error'),
      },
      multipart: { tmpDir, spillThreshold: 1024 },
    });
    app.post('/files', ({ files }) => files.length);
    app.post('/parts', async ({ parts }) => {
      for await (const part of parts) await part.bytes();
      return null;
    });
    // Piped as docs/node.md shows: Node's own `aborted` error ends the pipeline.
    app
      .post('/piped', async ({ request }) => {
        const body = request.body as NodeRequestBody;
        await pipeline(body.message, new Writable({ write: (_chunk, _encoding, done) => done() }));
        return null;
      })
      .bodyLimit(2 * MiB);
    const local = await start(app);
    try {
      for (const path of ['/files', '/parts', '/piped']) {
        lines.length = 0;
        await new Promise<void>((resolve) => {
          const outgoing = httpRequest({
            host: '127.0.0.1',
            port: local.port,
            method: 'POST',
            path,
            agent: false,
            headers: {
              'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
              'content-length': String(HEAD.length + MiB + TAIL.length),
            },
          });
          outgoing.on('error', () => undefined);
          outgoing.write(HEAD);
          outgoing.write(BLOCK, () =>
            setTimeout(() => {
              outgoing.destroy();
              resolve();
            }, 50),
          );
        });
        const access = () => lines.find((line) => line.message.startsWith(`POST ${path} `));
        await until(() => access() !== undefined);
        expect(lines.filter((line) => line.level === 'error')).toEqual([]);
        // What the library read is a body cut short (400); what a handler read failed because
        // the client left, which is answered quietly (503, which nobody receives).
        expect(access()?.status).toBe(path === '/piped' ? 503 : 400);
      }
      await until(() => leftOnDisk().length === 0);
    } finally {
      await local.close();
    }
  });

  it.skipIf(!existsSync('/proc/self/fd'))(
    'closes the file of a stream() never read once the route answered, without waiting for gc',
    async () => {
      // The descriptors this process holds on the upload files of `tmpDir`.
      const held = () =>
        readdirSync('/proc/self/fd').filter((fd) => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`).startsWith(tmpDir);
          } catch {
            return false;
          }
        });
      const app = new RestApplication({
        logger: silentLogger,
        multipart: { tmpDir, spillThreshold: 1024 },
      });
      const failingStore = async (_body: ReadableStream<Uint8Array>) => {
        throw new HttpError(502, 'store unavailable');
      };
      const kept: ReadableStream<Uint8Array>[] = [];
      app.post('/throws', async ({ files }) => {
        const stream = (files[0] as UploadedFile).stream();
        kept.push(stream);
        await failingStore(stream);
      });
      app.post('/catches', async ({ files }) => {
        const stream = (files[0] as UploadedFile).stream();
        kept.push(stream);
        return failingStore(stream).catch(() => ({ stored: false }));
      });
      app.post('/echo', ({ files }) => new Response(200, (files[0] as UploadedFile).stream()));
      // Another stream answers: the file's, opened and never read, is not kept for it.
      app.post('/other-stream', ({ files }) => {
        kept.push((files[0] as UploadedFile).stream());
        return new Response(
          200,
          (async function* () {
            yield 'made elsewhere';
          })(),
        );
      });
      // A stream fed from the file's is kept with it.
      app.post(
        '/piped',
        ({ files }) =>
          new Response(200, (files[0] as UploadedFile).stream().pipeThrough(new TransformStream())),
      );
      const local = await start(app);
      try {
        const form = new FormData();
        form.append('f', new Blob([new Uint8Array(64 * 1024).fill(7)]), 'f.bin');
        for (const [path, status] of [
          ['/throws', 502],
          ['/catches', 200],
        ] as const) {
          const response = await fetch(`${local.url}${path}`, { method: 'POST', body: form });
          expect(response.status).toBe(status);
          await response.arrayBuffer();
          // The streams are still referenced here: only a close, not gc, frees their files.
          await until(() => held().length === 0, 2_000);
        }
        expect(kept.length).toBe(2);
        // A spilled file streamed back in the response still keeps its file until read.
        const echoed = await fetch(`${local.url}/echo`, { method: 'POST', body: form });
        expect(Buffer.from(await echoed.arrayBuffer()).equals(Buffer.alloc(64 * 1024, 7))).toBe(
          true,
        );
        await until(() => held().length === 0 && leftOnDisk().length === 0);
        const piped = await fetch(`${local.url}/piped`, { method: 'POST', body: form });
        expect(Buffer.from(await piped.arrayBuffer()).equals(Buffer.alloc(64 * 1024, 7))).toBe(
          true,
        );
        const other = await fetch(`${local.url}/other-stream`, { method: 'POST', body: form });
        expect(await other.text()).toBe('made elsewhere');
        expect(kept.length).toBe(3);
        await until(() => held().length === 0 && leftOnDisk().length === 0, 2_000);
      } finally {
        await local.close();
      }
    },
  );

  it('uses a fresh directory under os.tmpdir() by default and leaves nothing there', async () => {
    const app = new RestApplication({ logger: silentLogger });
    let during: string[] = [];
    const ours = () =>
      readdirSync(tmpdir()).filter((name) => name.startsWith('restmachine-upload-'));
    app.post('/up', ({ files }) => {
      during = ours();
      return { size: files[0]?.size };
    });
    const local = await start(app);
    try {
      const before = ours();
      const form = new FormData();
      form.append('f', new Blob([new Uint8Array(3 * MiB)]), 'three.bin');
      const response = await fetch(`${local.url}/up`, { method: 'POST', body: form });
      expect(await response.json()).toEqual({ size: 3 * MiB });
      expect(during.filter((name) => !before.includes(name)).length).toBeGreaterThan(0);
      expect(ours().filter((name) => !before.includes(name))).toEqual([]);
    } finally {
      await local.close();
    }
  });
});
