/**
 * `restmachine-config` writing into a pipe whose reader stops early (`... | head -1`): a real
 * process on the TypeScript source, its stdout a real pipe closed after the first line.
 */

import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const cli = join(root, 'src', 'config', 'cli.ts');

/** Runs the command, closes its stdout once the first line has arrived, and waits for the end. */
function runUntilFirstLine(
  args: string[],
): Promise<{ status: number | null; signal: string | null; firstLine: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', cli, ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      // Like `head -1`: read one line, then close the read end while the command still writes.
      if (stdout.includes('\n')) child.stdout.destroy();
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (status, signal) => {
      resolve({ status, signal, firstLine: stdout.split('\n')[0] ?? '', stderr });
    });
  });
}

describe('restmachine-config with a reader that stops early', () => {
  let file: string;

  beforeAll(() => {
    // Megabytes of output: far more than a pipe holds, so the command is still writing when
    // the reader goes away.
    const folder = mkdtempSync(join(tmpdir(), 'restmachine-cli-'));
    file = join(folder, 'wide.yaml');
    const lines = ['wide:'];
    for (let index = 0; index < 20_000; index++) lines.push(`  k${index}: v${index}`);
    writeFileSync(file, `${lines.join('\n')}\n`);
  });

  it('dump --format json ends quietly with status 0', async () => {
    const result = await runUntilFirstLine(['dump', file, '--format', 'json']);
    expect(result).toEqual({ status: 0, signal: null, firstLine: '{', stderr: '' });
  }, 60_000);

  it('dump (YAML) ends quietly with status 0', async () => {
    const result = await runUntilFirstLine(['dump', file]);
    expect(result).toEqual({ status: 0, signal: null, firstLine: 'wide:', stderr: '' });
  }, 60_000);

  it('get ends quietly with status 0', async () => {
    const result = await runUntilFirstLine(['get', file, 'wide']);
    expect(result).toEqual({ status: 0, signal: null, firstLine: '{', stderr: '' });
  }, 60_000);
});
