/**
 * Places in JSON text that `JSON.parse` accepted, read with jsonc-parser (which keeps offsets):
 * where a value (or the key that holds it) is written, and the first duplicate key.
 * `JSON.parse` keeps the last of two equal keys without a word; RFC 8259 §4 says names SHOULD
 * be unique, and a configuration with a duplicate key is an error, so JSON schema text is held
 * to the same rule.
 */
import { findNodeAtLocation, type Node, parseTree, visit } from 'jsonc-parser';
import type { PathSegment } from './path.js';

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
