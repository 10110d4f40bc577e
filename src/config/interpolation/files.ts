/**
 * The texts `${file:...}` reads in one resolution: each file is read once, and a file longer
 * than the limit is refused without being read whole (see read-text.ts).
 */

import { resolve as resolvePath } from 'node:path';
import { NotTextError, readTextUpTo } from '../read-text.js';

/** What reading a file gave: its text, or why there is none (`path` is the absolute path). */
export type FileText =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'missing'; readonly path: string }
  | { readonly kind: 'too-large' }
  | { readonly kind: 'not-text'; readonly reason: string }
  | { readonly kind: 'unreadable'; readonly reason: string };

export class FileTexts {
  readonly #texts = new Map<string, FileText>();

  constructor(
    private readonly baseDir: string,
    private readonly maxBytes: number,
  ) {}

  /** The text of the file at `path`, relative to the base folder. */
  read(path: string): FileText {
    const absolute = resolvePath(this.baseDir, path);
    let text = this.#texts.get(absolute);
    if (text === undefined) {
      text = readText(absolute, this.maxBytes);
      this.#texts.set(absolute, text);
    }
    return text;
  }
}

function readText(path: string, maxBytes: number): FileText {
  try {
    // The limit counts the file's bytes: a file with more bytes than the limit is refused as
    // soon as one byte past the limit has been read. Bytes that are not text (not UTF-8, nor
    // UTF-16 with a byte order mark) are refused, never replaced (a binary key would change).
    const text = readTextUpTo(path, maxBytes);
    if (text === undefined) return { kind: 'too-large' };
    // The byte order mark marks the encoding and is no part of the value (decodeText drops
    // UTF-16's already): a password saved by Notepad as "UTF-8 with BOM" must not come back
    // with an invisible U+FEFF in front.
    return { kind: 'text', text: text.startsWith('\uFEFF') ? text.slice(1) : text };
  } catch (error) {
    if (error instanceof NotTextError) {
      // Nothing of the content: the value is a secret.
      return {
        kind: 'not-text',
        reason: `file ${JSON.stringify(path)} is not text: not valid UTF-8, nor UTF-16 with a byte order mark`,
      };
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing', path };
    const reason = `file ${JSON.stringify(path)} cannot be read (${code ?? String(error)})`;
    return { kind: 'unreadable', reason };
  }
}
