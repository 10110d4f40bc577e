/**
 * Facts about the machine and the software measured, written next to every table: numbers
 * from different machines or versions are not comparable.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { markdownTable } from './table.js';

export const ROOT = join(import.meta.dirname, '..', '..');

/** The installed version of a package, read from its package.json. */
export function packageVersion(name: string): string {
  const file = join(ROOT, 'node_modules', name, 'package.json');
  if (!existsSync(file)) return 'not installed';
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

function firstLine(command: string, args: string[]): string | undefined {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  // wrk prints its version and exits 1; only a missing command counts as absent.
  if (result.error !== undefined) return undefined;
  // nginx prints its version on stderr.
  const text = `${result.stdout}\n${result.stderr}`.trim();
  return text.split('\n')[0]?.trim();
}

function osName(): string {
  try {
    const text = readFileSync('/etc/os-release', 'utf8');
    return /^PRETTY_NAME="?([^"\n]*)"?/m.exec(text)?.[1] ?? 'unknown';
  } catch {
    return process.platform;
  }
}

export interface MachineFacts {
  readonly cpu: string;
  readonly cores: number;
  readonly memory: string;
  readonly os: string;
  readonly kernel: string;
  readonly node: string;
  readonly load: string;
  readonly commit: string;
}

export function machineFacts(): MachineFacts {
  const list = cpus();
  const commit =
    firstLine('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD']) ??
    'unknown (not a git checkout)';
  const dirty = spawnSync('git', ['-C', ROOT, 'status', '--porcelain', '--', 'src'], {
    encoding: 'utf8',
  }).stdout;
  return {
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memory: `${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    os: osName(),
    kernel: release(),
    node: process.version,
    load: loadavg()
      .map((value) => value.toFixed(2))
      .join(' '),
    commit: dirty?.trim() ? `${commit} (src/ has uncommitted changes)` : commit,
  };
}

/** Versions of system tools, when installed. */
export function toolVersions(): Record<string, string> {
  return {
    wrk: firstLine('wrk', ['--version'])?.replace(/\s*\[.*$/, '') ?? 'not installed',
    nginx: firstLine('nginx', ['-v'])?.replace(/^nginx version:\s*/, '') ?? 'not installed',
    hyperfine: firstLine('hyperfine', ['--version']) ?? 'not installed',
  };
}

export function machineTable(facts: MachineFacts, peers: readonly string[]): string {
  const rows: string[][] = [
    ['CPU', `${facts.cpu} (${facts.cores} cores)`],
    ['Memory', facts.memory],
    ['OS', `${facts.os}, Linux ${facts.kernel}`],
    ['Node', facts.node],
    ['Load average at start', facts.load],
    ['restmachine commit', facts.commit],
  ];
  for (const peer of peers) rows.push([peer, packageVersion(peer)]);
  for (const [tool, version] of Object.entries(toolVersions())) rows.push([tool, version]);
  return markdownTable(['Fact', 'Value'], rows, 'll');
}
