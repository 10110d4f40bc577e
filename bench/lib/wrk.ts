/**
 * wrk, the load generator: a C program, so the client's own cost stays far below any of the
 * servers' (a Node-based generator would compete with them for the same kind of work).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILD_DIR } from './build.js';
import { pinned } from './system.js';

export interface WrkRequest {
  readonly method?: string;
  readonly path: string;
  readonly body?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface WrkResult {
  readonly requestsPerSecond: number;
  /** Response bytes per second, in MB/s (10^6 bytes). */
  readonly megabytesPerSecond: number;
  readonly requests: number;
  /** Responses outside 2xx/3xx plus socket errors: a run with any is not a valid sample. */
  readonly errors: number;
  readonly errorText: string;
}

const UNITS: Readonly<Record<string, number>> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

/** Parses wrk's text output. */
export function parseWrk(output: string): WrkResult {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(output);
  const transfer = /Transfer\/sec:\s+([\d.]+)([KMG]?B)/.exec(output);
  const requests = /(\d+) requests in/.exec(output);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(output);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(
    output,
  );
  if (rps === null || transfer === null) throw new Error(`Unexpected wrk output: ${output.trim()}`);
  const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  const badStatus = non2xx ? Number(non2xx[1]) : 0;
  const count = requests ? Number(requests[1]) : 0;
  const errorText = [
    count === 0 ? 'no response completed' : '',
    badStatus > 0 ? `${badStatus} non-2xx/3xx responses` : '',
    socketErrors > 0 ? `socket errors (${socket?.[0]})` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return {
    requestsPerSecond: Number(rps[1]),
    megabytesPerSecond: (Number(transfer[1]) * (UNITS[transfer[2] as string] ?? 1)) / 1e6,
    requests: count,
    // A run in which nothing completed measured nothing, whatever wrk's rate says.
    errors: badStatus + socketErrors + (count === 0 ? 1 : 0),
    errorText,
  };
}

let scriptCount = 0;

/** A Lua script setting the method, body and headers of every request. */
function luaScript(request: WrkRequest): string | undefined {
  if (request.method === undefined && request.body === undefined && request.headers === undefined) {
    return undefined;
  }
  const lines: string[] = [];
  if (request.method !== undefined) lines.push(`wrk.method = ${JSON.stringify(request.method)}`);
  // JSON string literals are valid Lua string literals for the ASCII bodies used here.
  if (request.body !== undefined) lines.push(`wrk.body = ${JSON.stringify(request.body)}`);
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    lines.push(`wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`);
  }
  mkdirSync(BUILD_DIR, { recursive: true });
  const file = join(BUILD_DIR, `wrk-${process.pid}-${scriptCount++}.lua`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** A run's script is written for that run alone; nothing else reads it afterwards. */
function removeScript(file: string | undefined): void {
  if (file !== undefined) rmSync(file, { force: true });
}

export interface WrkOptions {
  readonly port: number;
  readonly request: WrkRequest;
  readonly seconds: number;
  readonly connections: number;
  readonly core: number | undefined;
}

/** Runs wrk (one thread, on the load core) against 127.0.0.1:port. */
export function runWrk(options: WrkOptions): Promise<WrkResult> {
  const script = luaScript(options.request);
  const args = [
    '-t1',
    `-c${options.connections}`,
    // wrk takes whole seconds only.
    `-d${Math.max(1, Math.round(options.seconds))}s`,
    '--timeout',
    '10s',
    ...(script ? ['-s', script] : []),
    `http://127.0.0.1:${options.port}${options.request.path}`,
  ];
  const [command, argv] = pinned(options.core, 'wrk', args);
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    child.on('error', (error) => {
      removeScript(script);
      reject(error);
    });
    child.on('close', (code) => {
      removeScript(script);
      if (code !== 0) {
        reject(new Error(`wrk exited with ${code}: ${output.trim()}`));
        return;
      }
      try {
        resolve(parseWrk(output));
      } catch (error) {
        reject(error);
      }
    });
  });
}
