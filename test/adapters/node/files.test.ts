/**
 * File bodies through the Node adapter: streamed from disk with flat memory, ranges read
 * without the rest of the file, HEAD without a body.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeHandle } from '../../../src/adapters/node/index.js';
import { type FileBody, Response, RestApplication, silentLogger } from '../../../src/index.js';
import { send, start } from './helpers.js';

const MiB = 1024 * 1024;

/** A client for a separate process: fetches a URL, hashes the body, prints what it got. */
const HASHING_CLIENT = `
const { createHash } = require('node:crypto');
require('node:http').get(process.argv[1], (res) => {
  const hash = createHash('sha256');
  let size = 0;
  res.on('data', (chunk) => { size += chunk.length; hash.update(chunk); });
  res.on('end', () => console.log(JSON.stringify({
    status: res.statusCode, length: res.headers['content-length'], size, sha: hash.digest('hex'),
  })));
});
`;

// `gc()` without starting the test process with --expose-gc: the flag can be set at run time,
// and a fresh context then exposes the function.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
const SIZE = 50 * MiB;
/** Extensions that are names on Object.prototype: no type of the table. */
const PROTOTYPE_NAMES = ['file.constructor', 'file.__proto__', 'file.toString', 'file.valueOf'];
let directory: string;
let bigFile: string;
let server: ServeHandle;

/** Writes `size` bytes where byte i is `i % 251`, so any slice can be checked. */
async function writePatternFile(path: string, size: number): Promise<void> {
  const handle = await open(path, 'w');
  try {
    const block = Buffer.alloc(MiB);
    for (let offset = 0; offset < size; offset += MiB) {
      for (let i = 0; i < MiB; i++) block[i] = (offset + i) % 251;
      await handle.write(block, 0, Math.min(MiB, size - offset));
    }
  } finally {
    await handle.close();
  }
}

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'restmachine-files-'));
  bigFile = join(directory, 'big.bin');
  await writePatternFile(bigFile, SIZE);
  await writeFile(join(directory, 'note.txt'), 'hello file');
  for (const name of PROTOTYPE_NAMES) await writeFile(join(directory, name), 'x');
  const app = new RestApplication({ logger: silentLogger });
  app.get('/big', () => Response.file(bigFile));
  app.get('/note', () => Response.file(join(directory, 'note.txt')));
  app.get('/missing', () => Response.file(join(directory, 'nope.txt')));
  app.get('/named/{name}', ({ name }) => Response.file(join(directory, name)));
  // A handler-chosen slice, as the range support hands one to the adapter.
  app.get('/slice', () => {
    const response = Response.file(bigFile, { status: 206 });
    const body = response.body as FileBody;
    body.start = 10 * MiB + 3;
    body.end = 10 * MiB + 1002;
    response.headers.set('Content-Length', 1000);
    response.headers.set('Content-Range', `bytes ${body.start}-${body.end}/${SIZE}`);
    return response;
  });
  server = await start(app);
});

afterAll(async () => {
  await server?.close();
  await rm(directory, { recursive: true, force: true });
});

describe('file bodies', () => {
  it('streams a 50 MiB file with flat memory and every byte right', async () => {
    // The client runs in its own process, so the RSS measured here is the server's alone.
    const client = spawn(process.execPath, ['-e', HASHING_CLIENT, `${server.url}/big`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    collectGarbage();
    const baseline = process.memoryUsage();
    let peakRss = baseline.rss;
    let peakBuffers = baseline.arrayBuffers;
    // Collecting before each sample measures what the server holds, not the garbage of chunks
    // already sent, which V8 may otherwise leave for tens of megabytes.
    const sampler = setInterval(() => {
      collectGarbage();
      const usage = process.memoryUsage();
      peakRss = Math.max(peakRss, usage.rss);
      peakBuffers = Math.max(peakBuffers, usage.arrayBuffers);
    }, 50);
    let output = '';
    client.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => client.on('close', resolve));
    clearInterval(sampler);
    const growth = peakRss - baseline.rss;
    const buffered = peakBuffers - baseline.arrayBuffers;
    console.info(
      `50 MiB file streamed; server RSS growth ${(growth / MiB).toFixed(1)} MiB, ` +
        `buffers held at most ${(buffered / MiB).toFixed(1)} MiB`,
    );
    expect(code).toBe(0);
    expect(JSON.parse(output)).toEqual({
      status: 200,
      length: String(SIZE),
      size: SIZE,
      sha: await sha256(bigFile),
    });
    // Reading the file whole would hold its 50 MiB at once; streaming holds a few 64 KiB
    // chunks at a time.
    expect(growth).toBeLessThan(64 * MiB);
    expect(buffered).toBeLessThan(24 * MiB);
  }, 60_000);

  it('sends only the selected range of a file', async () => {
    const response = await send(server.port, { path: '/slice' });
    expect(response.status).toBe(206);
    expect(response.body.length).toBe(1000);
    const start = 10 * MiB + 3;
    for (let i = 0; i < 1000; i++) expect(response.body[i]).toBe((start + i) % 251);
    expect(response.headers['content-range']).toBe(`bytes ${start}-${start + 999}/${SIZE}`);
  });

  it('sends a small file with its Content-Type and Content-Length', async () => {
    const response = await send(server.port, { path: '/note' });
    expect(response.status).toBe(200);
    expect(response.body.toString()).toBe('hello file');
    expect(response.headers['content-length']).toBe('10');
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
  });

  it('sends a file whose extension is an Object.prototype name as application/octet-stream', async () => {
    for (const name of PROTOTYPE_NAMES) {
      const response = await send(server.port, { path: `/named/${name}` });
      expect(response.status, name).toBe(200);
      expect(response.headers['content-type'], name).toBe('application/octet-stream');
    }
  });

  it('answers HEAD on a file with its length and no body', async () => {
    const response = await send(server.port, { method: 'HEAD', path: '/big' });
    expect(response.status).toBe(200);
    expect(response.headers['content-length']).toBe(String(SIZE));
    expect(response.body.length).toBe(0);
  });

  it('answers 404 for a file that does not exist, without its path', async () => {
    const response = await send(server.port, { path: '/missing' });
    expect(response.status).toBe(404);
    expect(response.body.toString()).not.toContain(directory);
  });
});
