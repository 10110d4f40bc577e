/**
 * Places in JSON text that `JSON.parse` accepted, read with jsonc-parser (which keeps offsets):
 * where a value (or the key that holds it) is written, and the first duplicate key.
 * `JSON.parse` keeps the last of two equal keys without a word; RFC 8259 §4 says names SHOULD
 * be unique, and a configuration with a duplicate key is an error, so JSON schema text is held
 * to the same rule.
 */
import { findNodeAtLocation, type Node, parseTree, visit } from 'jsonc-parser';
import { type JsonSyntaxError, locateJsonSyntaxError } from './json.js';
import type { PathSegment } from './path.js';

/**
 * Why text is not strict JSON (RFC 8259: no comments, single quotes or trailing commas), and
 * where: a syntax error, a key written twice in one object, or nesting deeper than the checks
 * can follow. `undefined` when it is JSON. The value is `JSON.parse`'s, when it parses. A byte
 * order mark is dropped before (source-text.ts).
 */
export function strictJsonProblem(
  text: string,
): { readonly offset: number; readonly reason: string } | { readonly value: unknown } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return locateJsonSyntaxError(text);
  }
  let duplicate: DuplicateKey | undefined;
  try {
    duplicate = duplicateJsonKey(text);
  } catch (error) {
    // jsonc-parser recurses once per level of nesting.
    if (!(error instanceof RangeError)) throw error;
    return { offset: 0, reason: 'the text is nested too deeply to be read' };
  }
  if (duplicate) {
    return { offset: duplicate.offset, reason: `duplicate key ${JSON.stringify(duplicate.key)}` };
  }
  return { value };
}

// jsonc-parser's ParseErrorCode.UnexpectedEndOfComment (a const enum, not importable as a value).
const UNEXPECTED_END_OF_COMMENT = 11;

/**
 * JSON with comments and trailing commas (JSONC, as VS Code's settings and `tsconfig.json` are
 * written) as JSON of the same length and lines: every comment and trailing comma becomes
 * spaces, its line breaks kept, so a place in one is the same place in the other. Anything else
 * is left as it is, for the strict checks to find.
 */
export function jsoncAsJson(text: string): string | JsonSyntaxError {
  const blanks: Array<readonly [number, number]> = [];
  // A `/*` never closed would blank the rest of the file, which would then pass for empty.
  let unclosed: number | undefined;
  // The last `,` with no value after it yet: a trailing one if its object or array ends next.
  let comma: number | undefined;
  const valueStarts = () => {
    comma = undefined;
  };
  const collectionEnds = () => {
    if (comma !== undefined) blanks.push([comma, 1]);
    comma = undefined;
  };
  try {
    visit(
      text,
      {
        onComment: (offset, length) => blanks.push([offset, length]),
        onSeparator: (separator, offset) => {
          if (separator === ',') comma = offset;
        },
        onObjectProperty: valueStarts,
        onLiteralValue: valueStarts,
        onObjectBegin: valueStarts,
        onArrayBegin: valueStarts,
        onObjectEnd: collectionEnds,
        onArrayEnd: collectionEnds,
        onError: (error, offset) => {
          if (error === UNEXPECTED_END_OF_COMMENT) unclosed ??= offset;
        },
      },
      { allowTrailingComma: true, disallowComments: false },
    );
  } catch (error) {
    // jsonc-parser recurses once per level of nesting: the strict checks say it is too deep.
    if (!(error instanceof RangeError)) throw error;
    return text;
  }
  if (unclosed !== undefined) {
    return { offset: unclosed, reason: 'a /* comment is never closed with */' };
  }
  if (blanks.length === 0) return text;
  // A trailing comma is known only at the end of its object or array, after the comments that
  // follow it.
  blanks.sort((a, b) => a[0] - b[0]);
  let json = '';
  let from = 0;
  for (const [offset, length] of blanks) {
    json += text.slice(from, offset) + text.slice(offset, offset + length).replace(/[^\r\n]/g, ' ');
    from = offset + length;
  }
  return json + text.slice(from);
}

/** A key written twice in one object: the second one, and where it starts. */
export interface DuplicateKey {
  readonly key: string;
  readonly offset: number;
}

/** The first key an object in the text holds twice, if any. */
export function duplicateJsonKey(text: string): DuplicateKey | undefined {
  const objects: Array<Set<string>> = [];
  let duplicate: DuplicateKey | undefined;
  visit(text, {
    onObjectBegin: () => {
      objects.push(new Set());
    },
    onObjectEnd: () => {
      objects.pop();
    },
    onObjectProperty: (key, offset) => {
      const keys = objects[objects.length - 1];
      if (duplicate !== undefined || keys === undefined) return;
      if (keys.has(key)) duplicate = { key, offset };
      keys.add(key);
    },
  });
  return duplicate;
}

/**
 * The offset of the value at `segments` (of its key, for a member of an object), or of its
 * nearest ancestor in the text when the path goes further than the text does.
 */
export function jsonOffset(text: string, segments: readonly PathSegment[]): number {
  let root: Node | undefined;
  try {
    root = parseTree(text);
  } catch {
    // Nesting deeper than the reader's stack: the error is placed at the start.
    return 0;
  }
  if (root === undefined) return 0;
  for (let depth = segments.length; depth > 0; depth--) {
    const node = findNodeAtLocation(root, segments.slice(0, depth));
    if (node !== undefined)
      return node.parent?.type === 'property' ? node.parent.offset : node.offset;
  }
  return root.offset;
}
