/**
 * Files that change between the pipeline's lookup and the adapter's read, for the tests of
 * every adapter's file bodies: a pattern whose every slice can be checked, and the changes.
 */
import { appendFileSync, rmSync, truncateSync } from 'node:fs';

/** Byte i of a pattern file is `i % 251`, so any slice can be checked. */
export function patternBytes(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = i % 251;
  return bytes;
}

/** Grow by 5,000 bytes, shrink to 10, or remove (`force`: a hook may see the answer too). */
export const FILE_CHANGES: Record<string, (path: string) => void> = {
  grow: (path) => appendFileSync(path, Buffer.alloc(5_000, 'X')),
  shrink: (path) => truncateSync(path, 10),
  remove: (path) => rmSync(path, { force: true }),
};
