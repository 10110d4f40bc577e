/**
 * A real S3-compatible server on loopback for the S3 tests, started and stopped by the tests
 * (docs/testing.md): moto's server (`python3 -m moto.server`), or the npm package `s3rver`
 * where moto is absent. `STATIC_S3_SERVER=s3rver` forces the fallback, to test it where moto exists.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3ClientConfig } from '@aws-sdk/client-s3';

export interface S3TestServer {
  kind: 'moto' | 's3rver';
  endpoint: string;
  /** Client settings for this server (path-style addressing, its credentials). */
  config: S3ClientConfig;
  /** moto enforces bucket policies (a Deny gives 403); s3rver has no policies at all. */
  supportsPolicies: boolean;
  stop(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 30_000;

function startMoto(): Promise<S3TestServer | string> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn('python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', '0'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      resolve(`python3 could not start: ${(error as Error).message}`);
      return;
    }
    let output = '';
    let settled = false;
    const finish = (result: S3TestServer | string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (typeof result === 'string') child.kill('SIGKILL');
      resolve(result);
    };
    const timer = setTimeout(
      () => finish(`moto did not report its port within ${STARTUP_TIMEOUT_MS} ms: ${output}`),
      STARTUP_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      // moto prints ` * Running on http://127.0.0.1:<port>` once it listens.
      const match = /Running on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match === null) return;
      const endpoint = `http://127.0.0.1:${match[1]}`;
      finish({
        kind: 'moto',
        endpoint,
        supportsPolicies: true,
        config: {
          endpoint,
          region: 'us-east-1',
          forcePathStyle: true,
          credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
        },
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', (error) => finish(`python3 could not start: ${error.message}`));
    child.once('exit', (code) => finish(`moto exited with status ${code}: ${output.trim()}`));
  });
}

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
type S3rverConstructor = new (options: Record<string, unknown>) => S3rverInstance;

async function startS3rver(): Promise<S3TestServer | string> {
  let S3rver: S3rverConstructor;
  try {
    S3rver = createRequire(import.meta.url)('s3rver') as S3rverConstructor;
  } catch (error) {
    return `s3rver is not installed: ${(error as Error).message}`;
  }
  const directory = mkdtempSync(join(tmpdir(), 'restmachine-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    kind: 's3rver',
    endpoint,
    supportsPolicies: false,
    config: {
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      // s3rver checks signatures against its one built-in key pair.
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    },
    stop: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * Starts moto, else s3rver. Without either, returns the reason; in CI (`CI=true`) that is a
 * failure, thrown here.
 */
export async function startS3Server(): Promise<S3TestServer | string> {
  const reasons: string[] = [];
  if (process.env.STATIC_S3_SERVER !== 's3rver') {
    const moto = await startMoto();
    if (typeof moto !== 'string') return moto;
    reasons.push(moto);
  }
  const fallback = await startS3rver();
  if (typeof fallback !== 'string') return fallback;
  reasons.push(fallback);
  const reason = `No S3-compatible server could start: ${reasons.join('; ')}`;
  if (process.env.CI === 'true') throw new Error(reason);
  return reason;
}
