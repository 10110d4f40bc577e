/**
 * Shared parts of the Node adapter tests: a server on a free loopback port and raw clients.
 */
import {
  request as httpRequest,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from 'node:http';
import { connect } from 'node:net';
import { type ServeHandle, type ServeOptions, serve } from '../../../src/adapters/node/index.js';
import type { Logger, RestApplication } from '../../../src/index.js';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer;
}

/** Starts `app` on 127.0.0.1 with a free port, without signal handlers. */
export function start(
  // biome-ignore lint/suspicious/noExplicitAny: tests build apps with many registered names.
  app: RestApplication<any>,
  options: ServeOptions = {},
): Promise<ServeHandle> {
  return serve(app, { port: 0, host: '127.0.0.1', handleSignals: false, ...options });
}

/** One request with `node:http`, the path sent exactly as given; no connection reuse. */
export function send(
  port: number,
  options: {
    method?: string;
    path?: string;
    headers?: OutgoingHttpHeaders;
    body?: string | Uint8Array;
  } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path ?? '/',
        headers: options.headers,
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
            rawHeaders: incoming.rawHeaders,
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/**
 * Writes `text` on a plain TCP connection and collects everything the server sends until it
 * closes the connection (or `waitMs` passes).
 */
export function rawExchange(port: number, text: string | Buffer, waitMs = 2_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), waitMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET') return;
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.write(text);
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

export interface LoggedLine {
  level: string;
  message: string;
  fields: Record<string, unknown> | undefined;
}

/** A logger that keeps every line, so tests can check what was (and was not) reported. */
export function memoryLogger(): { lines: LoggedLine[]; logger: Logger } {
  const lines: LoggedLine[] = [];
  const write =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void => {
      lines.push({ level, message, fields });
    };
  return {
    lines,
    logger: {
      debug: write('debug'),
      info: write('info'),
      warn: write('warn'),
      error: write('error'),
    },
  };
}
