/**
 * Fixtures for the static router tests: a served directory created in a temporary folder, with
 * a secret file beside it (never inside), a sibling directory sharing its name as a prefix, and
 * symlinks leading out.
 */

import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { serve } from '../../src/adapters/node/index.js';
import {
  type HeadersInit,
  Request,
  type Response,
  RestApplication,
  silentLogger,
} from '../../src/index.js';
import { bodyBytes, FileBody, isStream, streamChunks } from '../../src/response.js';

/** Text that must never appear in any response. */
export const SECRET = 'TOP-SECRET-7f3a9c2e-do-not-serve';

/** The content of `.env` inside the served directory, hidden by the default dotfiles policy. */
export const DOTENV = 'dotenv-value-4b1d';

export interface Fixture {
  /** The folder holding everything. */
  base: string;
  /** The served directory: `<base>/public`. */
  root: string;
  /** `<base>/secret.txt`, beside the served directory. */
  secretFile: string;
  remove(): void;
}

/** A 200 KiB file: above nothing, below the cache limit; 2 MiB: streamed from disk. */
export const MEDIUM = Buffer.alloc(200 * 1024, 'm');
export const LARGE = Buffer.from(
  Array.from({ length: 2 * 1024 * 1024 }, (_, index) => index % 251),
);

/**
 * The tree every store holds for the store suite (store-suite.ts): the same bytes in the local
 * directory and below the bucket prefix, so one set of cases runs through both.
 */
export const STORE_FILES: Readonly<Record<string, string | Buffer>> = {
  'index.html': '<h1>home</h1>',
  'hello.txt': 'hello world\n',
  'alphabet.txt': 'abcdefghijklmnopqrstuvwxyz',
  'css/style.css': 'body { color: red; }',
  'js/app.js': 'console.log("app");',
  'data.json': '{"ok":true}',
  'image.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  'docs/index.html': '<h1>docs</h1>',
  '.env': `API_KEY=${DOTENV}`,
  'assets/app.3f9a2c1e.js': 'fingerprinted',
  'assets/plain.js': 'plain',
  'large.bin': LARGE,
  'zipped.js': 'console.log("plain variant");',
  'zipped.js.br': 'BROTLI-BYTES',
  'spa/index.html': '<h1>spa</h1>',
  // A precompressed variant whose file is missing: never served in its place.
  'orphan.js.br': 'ORPHAN-BROTLI-BYTES',
  // Extensions that are names on Object.prototype, not in the type table.
  'file.constructor': 'constructor',
  'file.__proto__': 'proto',
};

/** Builds the fixture tree: the store tree and what only the local tests need. */
export function createFixture(): Fixture {
  const base = mkdtempSync(join(tmpdir(), 'restmachine-static-'));
  const root = join(base, 'public');
  const files: Record<string, string | Buffer> = {
    ...STORE_FILES,
    'photo.jpg': 'jpg',
    'photo.jpeg': 'jpeg',
    'logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
    'doc.pdf': '%PDF-1.4',
    'archive.unknownext': 'binary?',
    noext: 'no extension',
    'font.woff2': 'w2',
    'docs/guide.txt': 'guide',
    'empty-dir/.keep': '',
    'a b/c d.txt': 'spaced',
    'percent%2e.txt': 'literal percent name',
    '.hidden/file.txt': 'hidden dir',
    'medium.bin': MEDIUM,
    'empty.txt': '',
    'zipped.js.gz': gzipSync('console.log("plain variant");'),
    'onlygz.css': 'p{}',
    'onlygz.css.gz': gzipSync('p{}'),
    'über.txt': 'unicode name',
  };
  for (const [name, content] of Object.entries(files)) {
    const path = join(root, name);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, content);
  }
  const secretFile = join(base, 'secret.txt');
  writeFileSync(secretFile, SECRET);
  // A sibling whose name starts with the served directory's name: `/public` must not contain it.
  mkdirSync(join(base, 'public-private'));
  writeFileSync(join(base, 'public-private', 'secret.txt'), SECRET);
  mkdirSync(join(base, 'publicity'));
  writeFileSync(join(base, 'publicity', 'secret.txt'), SECRET);
  // Symlinks that lead out, and one that stays inside.
  symlinkSync(secretFile, join(root, 'link-out.txt'));
  symlinkSync(base, join(root, 'link-dir-out'));
  symlinkSync(join(base, 'public-private'), join(root, 'link-sibling'));
  symlinkSync(join(root, 'hello.txt'), join(root, 'link-in.txt'));
  symlinkSync(join(root, 'docs'), join(root, 'link-docs'));
  return { base, root, secretFile, remove: () => rmSync(base, { recursive: true, force: true }) };
}

/** An application with no log output. */
export function quietApp(): RestApplication {
  return new RestApplication({ logger: silentLogger });
}

export interface Received {
  status: number;
  headers: Response['headers'];
  body: Buffer;
  text: string;
  response: Response;
}

/** Reads a response body the way an adapter sends it: a FileBody honours start/end. */
export async function readBody(response: Response): Promise<Buffer> {
  const body = response.body;
  if (body instanceof FileBody) {
    const all = readFileSync(body.path);
    const start = body.start ?? 0;
    const end = body.end ?? all.length - 1;
    return all.subarray(start, end + 1);
  }
  if (body !== null && typeof body === 'object' && isStream(body)) {
    const chunks: Buffer[] = [];
    for await (const chunk of streamChunks(body)) chunks.push(Buffer.from(chunk));
    return Buffer.concat(chunks);
  }
  return Buffer.from(await bodyBytes(response));
}

/** Executes one request in-process. */
export async function send(
  app: RestApplication,
  path: string,
  init: { method?: string; headers?: HeadersInit } = {},
): Promise<Received> {
  const response = await app.execute(
    new Request({ method: init.method ?? 'GET', path, headers: init.headers ?? null }),
  );
  const body = await readBody(response);
  return {
    status: response.statusCode,
    headers: response.headers,
    body,
    text: body.toString('utf8'),
    response,
  };
}

export interface NodeReceived {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Sends one request with `lines` as its field lines exactly as given (a name may repeat). */
export type SendLines = (
  path: string,
  lines: ReadonlyArray<readonly [string, string]>,
  method?: string,
) => Promise<NodeReceived>;

/**
 * Serves `app` on a real Node server on loopback for the length of `body`, which sends requests
 * through node:http: unlike a Headers object, it can repeat a field on several lines.
 */
export async function overNode(
  app: RestApplication,
  body: (send: SendLines) => Promise<void>,
): Promise<void> {
  const server = await serve(app, { port: 0, host: '127.0.0.1', handleSignals: false });
  const send: SendLines = (path, lines, method = 'GET') =>
    new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        {
          host: '127.0.0.1',
          port: server.port,
          method,
          path,
          // The rawHeaders form: name, value, name, value (node:http sends each as its own line,
          // and adds no Host of its own to headers given so).
          headers: [['Host', `127.0.0.1:${server.port}`], ...lines].flat(),
          agent: false,
        },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('error', reject);
          incoming.on('end', () =>
            resolve({
              status: incoming.statusCode ?? 0,
              headers: incoming.headers,
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    });
  try {
    await body(send);
  } finally {
    await server.close();
  }
}
