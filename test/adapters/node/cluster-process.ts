/**
 * The cluster fixture (fixtures/cluster-app.ts) as a real process tree, for the tests that
 * start it: launched with its output collected, its URL once every worker listens, and the pid
 * of the worker that answers.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { sleep } from './helpers.js';

const fixture = fileURLToPath(new URL('./fixtures/cluster-app.ts', import.meta.url));

export function launch(env: Record<string, string> = {}): {
  child: ChildProcess;
  output: () => string;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return { child, output: () => output };
}

/** The URL the primary prints once every worker listens. */
export async function listeningUrl(child: ChildProcess, output: () => string): Promise<string> {
  while (!/listening (\S+)/.test(output())) {
    if (child.exitCode !== null) throw new Error(`cluster exited early:\n${output()}`);
    await sleep(50);
  }
  return (/listening (\S+)/.exec(output()) as RegExpExecArray)[1] as string;
}

/** The pid a worker answers `path` with (`/pid`, or `/crash` before it exits). */
export function pidFrom(url: string, path = '/pid'): Promise<number> {
  return new Promise((resolve, reject) => {
    // A new connection each time, so the primary hands each to the next worker.
    httpRequest(`${url}${path}`, { agent: false }, (incoming) => {
      let text = '';
      incoming.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      incoming.on('end', () => resolve((JSON.parse(text) as { pid: number }).pid));
    })
      .on('error', reject)
      .end();
  });
}
