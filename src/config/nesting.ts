/**
 * How deeply a YAML or JSON text nests, counted before it is parsed. The YAML parser recurses
 * once per level: a few hundred levels of brackets (2 KB of text) overflow its stack, and near
 * the limit V8 may abort the whole process instead of throwing (a regular expression compiled
 * with no stack left), so no `try` could stop it.
 *
 * The count needs no parsing and is never under the real depth: at each character, the
 * indentation levels open on its line (the column after each `- ` that begins a line is one,
 * as it is to YAML), and the brackets opened and not yet closed before it, wherever they are (a
 * bracket in a string or a comment counts too).
 * It is over the real depth only for text no configuration has: a pretty-printed JSON level
 * counts twice (its bracket and its indentation), so JSON may nest half as deep, and an
 * unclosed bracket in a string or a comment counts until the end of the text.
 */

import { ConfigMalformedError } from './errors.js';
import { lineAndColumn } from './json.js';

/** The deepest nesting a configuration or schema text may have. */
export const MAX_TEXT_NESTING = 200;

/** An open block level: the column its nodes start at, and whether it is a sequence. */
interface Level {
  column: number;
  sequence: boolean;
}

function dashAt(text: string, at: number): boolean {
  return text[at] === '-' && (text[at + 1] === ' ' || text[at + 1] === '\t');
}

/** The offset of the first character nested deeper than `limit` in `text`, or -1. */
export function tooDeepAt(text: string, limit = MAX_TEXT_NESTING): number {
  const levels: Level[] = [];
  let brackets = 0;
  let lineStart = 0;
  while (lineStart <= text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd === -1) lineEnd = text.length;
    let at = lineStart;
    while (at < lineEnd && text[at] === ' ') at++;
    // A comment's indentation means nothing, nor does a blank line's.
    if (at < lineEnd && text[at] !== '\r' && text[at] !== '#') {
      // Outside brackets a line closes the levels deeper than its indentation, and those at it
      // unless it is the next item of a sequence there. Inside brackets levels only open, so no
      // text can close more than it opened.
      if (brackets === 0) {
        const column = at - lineStart;
        const dash = dashAt(text, at);
        let top = levels.at(-1);
        while (top !== undefined && (top.column > column || (!dash && top.column === column))) {
          levels.pop();
          top = levels.at(-1);
        }
      }
      // Each `- ` opens a sequence at its column (a sequence may sit at its key's indentation),
      // unless one is open there; what follows it starts a node at the next column.
      while (dashAt(text, at)) {
        const column = at - lineStart;
        const top = levels.at(-1);
        if (top === undefined || top.column < column || (top.column === column && !top.sequence)) {
          levels.push({ column, sequence: true });
        }
        at += 2;
        while (text[at] === ' ' || text[at] === '\t') at++;
      }
      const column = at - lineStart;
      if (at < lineEnd && (levels.at(-1)?.column ?? -1) < column) {
        levels.push({ column, sequence: false });
      }
    }
    let depth = levels.length + brackets;
    if (depth > limit) return at;
    for (; at < lineEnd; at++) {
      const char = text.charCodeAt(at);
      if (char === 0x5b || char === 0x7b) {
        // `[` or `{`
        brackets++;
        if (++depth > limit) return at;
      } else if ((char === 0x5d || char === 0x7d) && brackets > 0) {
        // `]` or `}`
        brackets--;
        depth--;
      }
    }
    lineStart = lineEnd + 1;
  }
  return -1;
}

/**
 * Refuses text nested deeper than the parser can follow ({@link MAX_TEXT_NESTING} levels),
 * before the parser recurses into it: as malformed text, placed where the limit is crossed.
 */
export function refuseDeepNesting(text: string, file: string | undefined, language: string): void {
  const at = tooDeepAt(text);
  if (at === -1) return;
  throw new ConfigMalformedError(
    `invalid ${language}: the text nests more than ${MAX_TEXT_NESTING} levels deep`,
    { file, ...lineAndColumn(text, at) },
  );
}
