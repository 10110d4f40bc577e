/**
 * Path traversal and path confusion through a real Node server, with request lines written raw
 * on a plain TCP socket so that no client normalises them first (docs/static-files.md). Whatever
 * the request, no response may contain the secret file placed beside the served directory.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeHandle, serve } from '../../src/adapters/node/index.js';
import { StaticRouter } from '../../src/static/index.js';
import { createFixture, type Fixture, quietApp, SECRET } from './helpers.js';

let fixture: Fixture;
let server: ServeHandle;

beforeAll(async () => {
  fixture = createFixture();
  const app = quietApp();
  app.get('/api/health', () => ({ ok: true }));
  // The same directory behind every mount shape and the options that widen what is served.
  app.mount('/', new StaticRouter(fixture.root));
  app.mount('/static', new StaticRouter(fixture.root));
  app.mount(
    '/all',
    new StaticRouter(fixture.root, { dotfiles: 'allow', precompressed: true, cache: false }),
  );
  app.mount('/spa', new StaticRouter(fixture.root, { fallback: 'index.html' }));
  server = await serve(app, { port: 0, host: '127.0.0.1', handleSignals: false });
});

afterAll(async () => {
  await server?.close();
  fixture?.remove();
});

/** Sends `head` (the request line and headers) as raw bytes; resolves with everything read. */
function rawRequest(target: string | Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`No answer to ${String(target)}`));
    }, 10_000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    socket.write(
      Buffer.concat([
        Buffer.from('GET '),
        typeof target === 'string' ? Buffer.from(target, 'latin1') : target,
        Buffer.from(' HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
      ]),
    );
  });
}

function statusOf(raw: Buffer): number {
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(raw.toString('latin1'));
  return match === null ? 0 : Number(match[1]);
}

// Every way of writing `..` the attacks in the wild use.
const DOT_DOTS = [
  '..',
  '%2e%2e',
  '%2E%2E',
  '.%2e',
  '%2e.',
  '%252e%252e',
  '%%32%65%%32%65',
  '%c0%ae%c0%ae',
  '%e0%80%ae%e0%80%ae',
  '%f0%80%80%ae%f0%80%80%ae',
  '%c0%2e%c0%2e',
  '%uff0e%uff0e',
  '%ef%bc%8e%ef%bc%8e',
  '..;',
  '...',
  '..%00',
  '..%20',
  '.%00.',
];
// Every way of writing a separator.
const SEPARATORS = [
  '/',
  '//',
  '%2f',
  '%2F',
  '%252f',
  '\\',
  '%5c',
  '%5C',
  '%255c',
  '%c0%af',
  '%c1%9c',
  '%e0%80%af',
  '/./',
];
const TARGETS = ['secret.txt', 'public-private/secret.txt', 'publicity/secret.txt'];
const MOUNTS = ['', '/static', '/all', '/spa'];

function traversalTargets(): string[] {
  const out = new Set<string>();
  for (const mount of MOUNTS) {
    for (const dotDot of DOT_DOTS) {
      for (const separator of SEPARATORS) {
        for (const depth of [1, 4]) {
          for (const target of TARGETS) {
            out.add(`${mount}/${`${dotDot}${separator}`.repeat(depth)}${target}`);
          }
        }
      }
    }
  }
  return [...out];
}

function confusionTargets(): string[] {
  const secret = fixture.secretFile;
  const list: string[] = [];
  for (const mount of MOUNTS) {
    list.push(
      // Sibling directories whose names start with the served directory's name.
      `${mount}/../public-private/secret.txt`,
      `${mount}/../publicity/secret.txt`,
      `${mount}/..%2fpublic-private%2fsecret.txt`,
      // Symlinks that lead out.
      `${mount}/link-out.txt`,
      `${mount}/link-dir-out/secret.txt`,
      `${mount}/link-dir-out/public-private/secret.txt`,
      `${mount}/link-sibling/secret.txt`,
      `${mount}/link-dir-out/`,
      `${mount}/link-dir-out`,
      // NUL bytes.
      `${mount}/secret.txt%00`,
      `${mount}/hello.txt%00/../../secret.txt`,
      `${mount}/%00/../secret.txt`,
      `${mount}/..%00/secret.txt`,
      // Drive letters and Windows forms.
      `${mount}/C:/secret.txt`,
      `${mount}/C:\\..\\secret.txt`,
      `${mount}/c:%5c..%5csecret.txt`,
      `${mount}/%43:%5c..%5csecret.txt`,
      `${mount}/..\\..\\secret.txt`,
      `${mount}/secret.txt::$DATA`,
      `${mount}/\\\\?\\${secret}`,
      // The secret's absolute path, plain and encoded.
      `${mount}/${secret}`,
      `${mount}//${secret}`,
      `${mount}/${encodeURIComponent(secret)}`,
      `${mount}/${secret.replaceAll('/', '%2f')}`,
      `${mount}/..${secret}`,
      // Double and mixed encodings.
      `${mount}/%25%32%65%25%32%65/secret.txt`,
      `${mount}/%2e%2e%2fsecret.txt`,
      `${mount}/.%2e/.%2e/secret.txt`,
      `${mount}/css/..%2f..%2fsecret.txt`,
      `${mount}/css/%2e%2e/%2e%2e/secret.txt`,
      `${mount}/css/../../secret.txt`,
      `${mount}/css/....//....//secret.txt`,
      `${mount}/;/../secret.txt`,
      `${mount}/..;/secret.txt`,
      `${mount}/%2e%2e;/secret.txt`,
      `${mount}/.env`,
      `${mount}/%2eenv`,
      // Query and fragment tricks.
      `${mount}/../secret.txt?x=1`,
      `${mount}/..%3fsecret.txt`,
      `${mount}/..%23/secret.txt`,
      `${mount}/hello.txt?/../../secret.txt`,
    );
  }
  list.push(
    '../secret.txt',
    '..%2fsecret.txt',
    'secret.txt',
    'http://127.0.0.1/../secret.txt',
    'http://127.0.0.1/static/../../secret.txt',
    'http://127.0.0.1/%2e%2e/secret.txt',
    `file://${secret}`,
    '*',
  );
  return list;
}

async function inBatches(
  targets: Array<string | Buffer>,
  check: (target: string | Buffer, raw: Buffer) => void,
) {
  const parallel = 8;
  for (let i = 0; i < targets.length; i += parallel) {
    const batch = targets.slice(i, i + parallel);
    const answers = await Promise.all(batch.map((target) => rawRequest(target)));
    answers.forEach((raw, index) => {
      check(batch[index] as string | Buffer, raw);
    });
  }
}

describe('traversal through a real Node server, raw request lines', () => {
  it('the server serves files inside the directory (the control)', async () => {
    const raw = await rawRequest('/static/hello.txt');
    expect(statusOf(raw)).toBe(200);
    expect(raw.toString()).toContain('hello world');
    // Symlinks that stay inside are fine.
    expect(raw.toString()).not.toContain(SECRET);
    expect(statusOf(await rawRequest('/link-in.txt'))).toBe(200);
  });

  it('dot-dot in every encoding with every separator never reaches the secret', async () => {
    const targets = traversalTargets();
    expect(targets.length).toBeGreaterThan(2000);
    const statuses = new Map<number, number>();
    await inBatches(targets, (target, raw) => {
      expect(raw.length, String(target)).toBeGreaterThan(0);
      expect(raw.toString('latin1'), String(target)).not.toContain(SECRET);
      const status = statusOf(raw);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      // A traversal is answered 404 (or 400 for malformed encoding, or by Node's own parser);
      // the SPA mount may answer its fallback page for paths without an extension.
      expect([200, 301, 400, 404], `${String(target)} → ${status}`).toContain(status);
    });
    // Most of them are refused outright, not answered with some other page.
    expect((statuses.get(404) ?? 0) + (statuses.get(400) ?? 0)).toBeGreaterThan(targets.length / 2);
  });

  it('sibling prefixes, symlinks, NUL, drive letters, absolute paths never reach the secret', async () => {
    await inBatches(confusionTargets(), (target, raw) => {
      expect(raw.length, String(target)).toBeGreaterThan(0);
      expect(raw.toString('latin1'), String(target)).not.toContain(SECRET);
    });
  });

  it('raw bytes Node lets through (backslashes, NUL, non-ASCII, overlong UTF-8) never reach it', async () => {
    const targets: Buffer[] = [];
    for (const mount of MOUNTS) {
      for (const bytes of [
        [0x2e, 0x2e, 0x5c, 0x73, 0x65, 0x63, 0x72, 0x65, 0x74, 0x2e, 0x74, 0x78, 0x74],
        [0xc0, 0xae, 0xc0, 0xae, 0x2f],
        [0xef, 0xbc, 0x8e, 0xef, 0xbc, 0x8e, 0x2f],
        [0x2e, 0x2e, 0x00, 0x2f],
        [0x2e, 0x2e, 0x2f, 0x00],
        [0x2e, 0x2e, 0xff, 0x2f],
      ]) {
        targets.push(
          Buffer.concat([
            Buffer.from(`${mount}/`),
            Buffer.from(bytes),
            Buffer.from(bytes.at(-1) === 0x2f ? 'secret.txt' : ''),
          ]),
        );
      }
    }
    await inBatches(targets, (target, raw) => {
      expect(raw.toString('latin1'), target.toString('latin1')).not.toContain(SECRET);
    });
  });

  it('the server is still healthy afterwards', async () => {
    const raw = await rawRequest('/api/health');
    expect(statusOf(raw)).toBe(200);
    expect(raw.toString()).toContain('{"ok":true}');
  });
});
