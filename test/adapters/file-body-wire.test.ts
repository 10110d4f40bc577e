/**
 * File bodies whose file changes between the lookup (the stat that decided Content-Length) and
 * the read, through every adapter that streams files over a real connection: the Node adapter,
 * and the Fetch adapter behind a Fetch-style Node server. A raw keep-alive client reads each
 * response by its own framing, as a real client would, so a body longer or shorter than its
 * Content-Length shows (RFC 9112 §6.3). An `onResponse` hook makes the change at the one moment
 * that matters: after the response was decided, before the adapter opens the file.
 */
import {
  appendFileSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { serve as serveFetch } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchAdapter } from '../../src/adapters/fetch/index.js';
import { type Logger, Response, RestApplication } from '../../src/index.js';
import { StaticRouter } from '../../src/static/index.js';
import { patternBytes } from './file-changes.js';
import { memoryLogger, start } from './node/helpers.js';

const FILE_SIZE = 300_000;

/** What happens to a file between the pipeline's stat and the adapter's open. */
const changes: Record<string, (path: string) => void> = {
  grow: (path) => appendFileSync(path, Buffer.alloc(5_000, 'X')),
  shrink: (path) => truncateSync(path, 10),
  remove: (path) => unlinkSync(path),
  // A link to itself: open() fails with ELOOP, a failure other than "missing", even as root.
  unreadable: (path) => {
    unlinkSync(path);
    symlinkSync(basename(path), path);
  },
};

interface WireResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

interface Exchange {
  /** The whole responses, split by their Content-Length. */
  responses: WireResponse[];
  /** What follows the last whole response: a short body, or bytes beyond a declared length. */
  rest: Buffer;
  /** Whether the server closed the connection before the client gave up waiting. */
  closedByServer: boolean;
}

/** Splits bytes into HTTP/1.1 responses framed by Content-Length. */
function parseResponses(bytes: Buffer): Omit<Exchange, 'closedByServer'> {
  const responses: WireResponse[] = [];
  let offset = 0;
  for (;;) {
    const headEnd = bytes.indexOf('\r\n\r\n', offset);
    if (headEnd === -1) break;
    const [statusLine = '', ...lines] = bytes
      .subarray(offset, headEnd)
      .toString('latin1')
      .split('\r\n');
    const match = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine);
    if (match === null) break;
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const bodyStart = headEnd + 4;
    const bodyEnd = bodyStart + Number(headers['content-length'] ?? 0);
    if (bodyEnd > bytes.length) break;
    responses.push({
      status: Number(match[1]),
      headers,
      body: bytes.subarray(bodyStart, bodyEnd),
    });
    offset = bodyEnd;
  }
  return { responses, rest: bytes.subarray(offset) };
}

/**
 * Writes `requests` (pipelined) on one keep-alive connection and reads until the server closes
 * it or `waitMs` passes; the servers here keep idle connections for 20 s.
 */
function exchange(port: number, requests: string, waitMs = 3_000): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closedByServer = true;
    const timer = setTimeout(() => {
      closedByServer = false;
      socket.destroy();
    }, waitMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET') reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ ...parseResponses(Buffer.concat(chunks)), closedByServer });
    });
    socket.write(requests);
  });
}

/** A raw GET; `change` names what happens to the file once the response is decided. */
function get(path: string, options: { change?: string; range?: string; last?: boolean } = {}) {
  let head = `GET ${path} HTTP/1.1\r\nHost: x\r\n`;
  if (options.change !== undefined) head += `X-Change: ${options.change}\r\n`;
  if (options.range !== undefined) head += `Range: ${options.range}\r\n`;
  if (options.last === true) head += 'Connection: close\r\n';
  return `${head}\r\n`;
}

/** The application: files from a handler (`Response.file`) and from a static mount. */
function buildApp(directory: string, logger: Logger) {
  const app = new RestApplication({ logger });
  app.get('/file/{name}', ({ name }) => Response.file(join(directory, name)));
  app.mount('/static', new StaticRouter(directory, { cache: false }));
  app.onResponse(({ request }) => {
    const change = request.headers.get('x-change');
    if (change !== undefined) changes[change]?.(join(directory, basename(request.path)));
  });
  return app;
}

interface Driver {
  port: number;
  close(): Promise<void>;
}

const drivers: Array<[string, (app: RestApplication) => Promise<Driver>]> = [
  [
    'Node adapter',
    async (app) => {
      const server = await start(app, { keepAliveTimeout: 20_000 });
      return { port: server.port, close: () => server.close() };
    },
  ],
  [
    'Fetch adapter',
    async (app) => {
      const server = serveFetch({
        fetch: new FetchAdapter(app).fetch,
        port: 0,
        hostname: '127.0.0.1',
        overrideGlobalObjects: false,
      }) as Server;
      server.keepAliveTimeout = 20_000;
      await new Promise<void>((resolve) => {
        if (server.listening) resolve();
        else server.once('listening', () => resolve());
      });
      return {
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      };
    },
  ],
];

describe.each(drivers)('a file that changes after its lookup, through the %s', (name, serve) => {
  let directory: string;
  let driver: Driver;
  const { logger, lines } = memoryLogger();

  /** A fresh pattern file for one test. */
  function fixture(file: string): void {
    writeFileSync(join(directory, file), patternBytes(FILE_SIZE));
  }

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'restmachine-file-body-'));
    writeFileSync(join(directory, 'note.txt'), 'hello');
    driver = await serve(buildApp(directory, logger));
  });

  afterAll(async () => {
    await driver?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it.each([
    ['a handler', '/file/grow-handler.bin'],
    ['a static mount', '/static/grow-static.bin'],
  ])(
    'sends only the declared bytes of a grown file from %s; the next response stays intact',
    async (_, path) => {
      fixture(basename(path));
      const result = await exchange(
        driver.port,
        get(path, { change: 'grow' }) + get('/file/note.txt', { last: true }),
      );
      expect(result.responses).toHaveLength(2);
      const [file, note] = result.responses as [WireResponse, WireResponse];
      expect(file.status).toBe(200);
      expect(file.headers['content-length']).toBe(String(FILE_SIZE));
      expect(file.body.equals(patternBytes(FILE_SIZE))).toBe(true);
      expect(note.status).toBe(200);
      expect(note.body.toString()).toBe('hello');
      expect(result.rest.length).toBe(0);
    },
  );

  it.each([
    ['whole', undefined],
    ['ranged', 'bytes=100-199999'],
  ])(
    'closes the connection when a file shrinks before its declared length is sent (%s)',
    async (kind, range) => {
      const file = `shrink-${kind}.bin`;
      fixture(file);
      const result = await exchange(driver.port, get(`/file/${file}`, { change: 'shrink', range }));
      // No whole response: the short body is not passed off as complete, and the connection
      // is not left open waiting for bytes that never come.
      expect(result.responses).toHaveLength(0);
      expect(result.closedByServer).toBe(true);
      expect(result.rest.length).toBeLessThan(1_000);
      if (name === 'Node adapter') {
        expect(lines).toContainEqual(
          expect.objectContaining({
            level: 'error',
            message: 'Response body stream failed',
            fields: expect.objectContaining({
              error: expect.objectContaining({
                message: expect.stringMatching(/ended after \d+ of the \d+ bytes/),
              }),
            }),
          }),
        );
      }
    },
  );

  it('answers 404 for a file removed between the lookup and the open, and keeps the connection', async () => {
    fixture('gone.bin');
    const result = await exchange(
      driver.port,
      get('/file/gone.bin', { change: 'remove' }) + get('/file/note.txt', { last: true }),
    );
    expect(result.responses.map((response) => response.status)).toEqual([404, 200]);
    const [missing, note] = result.responses as [WireResponse, WireResponse];
    expect(missing.body.toString()).toBe('Not Found');
    expect(missing.headers['x-request-id']).toMatch(/./);
    expect(note.body.toString()).toBe('hello');
  });

  it('answers the generic 500 for a file that cannot be opened', async () => {
    fixture('loop.bin');
    const result = await exchange(
      driver.port,
      get('/file/loop.bin', { change: 'unreadable' }) + get('/file/note.txt', { last: true }),
    );
    expect(result.responses.map((response) => response.status)).toEqual([500, 200]);
    // The Node adapter writes its plain 500 (the file is opened as the head is written); the
    // Fetch adapter opens it before anything is sent, and answers through the error path.
    const body = (result.responses[0] as WireResponse).body.toString();
    if (name === 'Fetch adapter') {
      expect(JSON.parse(body)).toMatchObject({ error: 'Internal Server Error', statusCode: 500 });
    } else expect(body).toBe('Internal Server Error');
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        fields: expect.objectContaining({ error: expect.objectContaining({ code: 'ELOOP' }) }),
      }),
    );
  });
});
