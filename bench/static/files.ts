/**
 * The files the static section serves: 1 KB, 100 KB and 10 MB of pseudo-random bytes, written
 * to a fresh world-readable folder (nginx's worker may run as another user).
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface StaticFile {
  readonly name: string;
  readonly label: string;
  readonly size: number;
  readonly content: Uint8Array;
}

/** Deterministic bytes (xorshift32): the same files in every run. */
function bytes(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  let state = seed;
  for (let i = 0; i < size; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = state & 0xff;
  }
  return out;
}

export const FILE_SPECS = [
  { name: 'file-1k.bin', label: '1 KB', size: 1024 },
  { name: 'file-100k.bin', label: '100 KB', size: 100 * 1024 },
  { name: 'file-10m.bin', label: '10 MB', size: 10 * 1024 * 1024 },
] as const;

export function writeStaticFiles(): { root: string; files: StaticFile[]; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), 'restmachine-bench-static-'));
  chmodSync(root, 0o755);
  const files = FILE_SPECS.map((spec, index) => {
    const content = bytes(spec.size, 0x9e3779b9 + index);
    const path = join(root, spec.name);
    writeFileSync(path, content);
    chmodSync(path, 0o644);
    return { ...spec, content };
  });
  return { root, files, remove: () => rmSync(root, { recursive: true, force: true }) };
}
