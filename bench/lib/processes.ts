/**
 * Child processes of the harness: in-process workers that print one JSON line of results, and
 * servers that announce their port with a `READY <port>` line (or are polled until they
 * accept connections). Every child is pinned when pinning is available, and stopped by pid.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import { pinned } from './system.js';

const STOP_GRACE_MS = 3000;

function collect(child: ChildProcess): { stdout: () => string; stderr: () => string } {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    // Results and READY lines come in the first kilobytes; a server that logs every request
    // must not grow the harness without bound.
    if (stdout.length < 1_000_000) stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    // Keep the tail only: a chatty child must not grow the harness without bound.
    stderr = (stderr + chunk).slice(-8000);
  });
  return { stdout: () => stdout, stderr: () => stderr };
}

export interface WorkerOptions {
  readonly core: number | undefined;
  /** Flags for node before the script, such as `--cpu-prof`. */
  readonly nodeFlags?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  readonly timeoutMs?: number;
}

/**
 * Runs `node <script> <args>` and resolves to the JSON value of the last line it prints;
 * rejects with its stderr when it fails.
 */
export function runWorker<T>(
  script: string,
  args: readonly string[],
  options: WorkerOptions,
): Promise<T> {
  const [command, argv] = pinned(options.core, process.execPath, [
    '--expose-gc',
    ...(options.nodeFlags ?? []),
    script,
    ...args,
  ]);
  return new Promise<T>((resolve, reject) => {
    const child = spawn(command, argv, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: options.env ?? process.env,
      cwd: options.cwd,
    });
    const output = collect(child);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`worker ${script} ${args.join(' ')} timed out`));
    }, options.timeoutMs ?? 300_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(new Error(`exit ${code}: ${lastLines(output.stderr(), 6)}`));
        return;
      }
      const lines = output.stdout().trim().split('\n');
      try {
        resolve(JSON.parse(lines[lines.length - 1] ?? '') as T);
      } catch {
        reject(
          new Error(
            `no JSON result: ${lastLines(output.stdout(), 3)} ${lastLines(output.stderr(), 3)}`,
          ),
        );
      }
    });
  });
}

function lastLines(text: string, count: number): string {
  return text.trim().split('\n').slice(-count).join(' / ');
}

/** A running server. */
export interface RunningServer {
  readonly port: number;
  readonly pid: number | undefined;
  /** Sends SIGTERM (SIGKILL after a grace period) and waits for the exit. */
  stop(): Promise<void>;
  /** The tail of what the server wrote on stderr. */
  stderr(): string;
}

export interface ServerOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly core: number | undefined;
  readonly env?: NodeJS.ProcessEnv;
  /** Wait for this line on stdout; group 1 is the port. */
  readonly readyLine?: RegExp;
  /** Or poll this port until it accepts a connection. */
  readonly port?: number;
  readonly timeoutMs?: number;
}

/** Starts a server and resolves once it listens. */
export function startServer(options: ServerOptions): Promise<RunningServer> {
  const [command, argv] = pinned(options.core, options.command, options.args);
  const child = spawn(command, argv, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: options.env ?? process.env,
  });
  const output = collect(child);
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.on('close', () => {
      exited = true;
      resolve();
    });
  });
  const stop = async (): Promise<void> => {
    if (exited) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exit;
    clearTimeout(timer);
  };
  const handle = (port: number): RunningServer => ({
    port,
    pid: child.pid,
    stop,
    stderr: output.stderr,
  });
  return new Promise<RunningServer>((resolve, reject) => {
    const fail = (reason: string): void => {
      void stop().then(() => reject(new Error(`${reason}: ${lastLines(output.stderr(), 6)}`)));
    };
    const timer = setTimeout(
      () => fail('server did not start in time'),
      options.timeoutMs ?? 20_000,
    );
    child.on('error', (error) => fail(error.message));
    void exit.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited before it was ready: ${lastLines(output.stderr(), 6)}`));
    });
    if (options.readyLine !== undefined) {
      const pattern = options.readyLine;
      const onData = (): void => {
        const match = pattern.exec(output.stdout());
        if (match === null) return;
        child.stdout?.off('data', onData);
        clearTimeout(timer);
        resolve(handle(Number(match[1])));
      };
      child.stdout?.on('data', onData);
    } else if (options.port !== undefined) {
      const port = options.port;
      const poll = (): void => {
        if (exited) return;
        const socket = createConnection({ host: '127.0.0.1', port });
        socket.once('connect', () => {
          socket.destroy();
          clearTimeout(timer);
          resolve(handle(port));
        });
        socket.once('error', () => {
          socket.destroy();
          setTimeout(poll, 50);
        });
      };
      poll();
    } else {
      fail('startServer needs readyLine or port');
    }
  });
}

/** A port that was free a moment ago (for servers that cannot report the port they got). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
