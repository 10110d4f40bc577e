/**
 * References that lead back to themselves without consuming any of the value. A schema such as
 * `{ "$ref": "#" }`, or `properties: { x: { $ref: '#/properties/x' } }`, applies itself to the
 * same value again and again: validation would never end (Ajv's generated code overflows the
 * call stack, or compiling it does). Such a schema is refused where it is built, at the `$ref`.
 *
 * The graph walked here has an edge from a subschema to every subschema applied to the same
 * value (`$ref`'s target, `allOf`/`anyOf`/`oneOf` members, `not`, `if`/`then`/`else`,
 * `dependencies`); keywords that move to a part of the value (`properties`, `items`, ...)
 * consume input and are not edges. A cycle in it is an endless recursion. Only references
 * within the document (`#...`) outside any nested `$id` are followed; others are left to the
 * check made while validating (see `schema.ts`).
 */

import type { Dialect } from './dialects.js';
import { isSchemaObject, pointerStateAfter } from './walk.js';

/** A `$ref` on a cycle: where it is written (a JSON pointer to the keyword) and what it says. */
export interface EndlessReference {
  readonly pointer: string;
  readonly reference: string;
}

interface Node {
  readonly schema: Record<string, unknown>;
  readonly pointer: string;
  /** Inside a subschema with its own `$id`: `#` there means something else. */
  readonly scoped: boolean;
}

/** The first `$ref` found on a cycle of subschemas applied to the same value, if any. */
export function endlessReference(
  definition: unknown,
  dialect: Dialect,
): EndlessReference | undefined {
  if (!isSchemaObject(definition)) return undefined;
  const nodes = new Map<Record<string, unknown>, Node>();
  // Every object subschema with its pointer, without recursion (a schema may be deeply nested).
  const pending: Array<[unknown, ReturnType<typeof pointerStateAfter>, string, boolean]> = [
    [definition, 'schema', '', false],
  ];
  while (pending.length > 0) {
    const [value, state, pointer, scoped] = pending.pop()!;
    if (state === 'verbatim') continue;
    if (state === 'member' || (state === 'items' && Array.isArray(value))) {
      if (typeof value !== 'object' || value === null) continue;
      for (const [key, member] of Object.entries(value)) {
        pending.push([member, 'schema', `${pointer}/${escapeToken(key)}`, scoped]);
      }
      continue;
    }
    if (!isSchemaObject(value) || nodes.has(value)) continue;
    const inScope = scoped || (pointer !== '' && typeof value.$id === 'string');
    nodes.set(value, { schema: value, pointer, scoped: inScope });
    for (const [keyword, subschema] of Object.entries(value)) {
      pending.push([
        subschema,
        pointerStateAfter(keyword),
        `${pointer}/${escapeToken(keyword)}`,
        inScope,
      ]);
    }
  }

  const draft = dialect === 'draft-06' || dialect === 'draft-07';
  /** Subschemas applied to the same value, with the `$ref` that leads there when one does. */
  const next = (node: Node): Array<[Record<string, unknown>, EndlessReference | undefined]> => {
    const { schema } = node;
    const edges: Array<[Record<string, unknown>, EndlessReference | undefined]> = [];
    const add = (value: unknown) => {
      if (isSchemaObject(value)) edges.push([value, undefined]);
    };
    if (typeof schema.$ref === 'string') {
      const target = node.scoped ? undefined : resolveLocal(definition, schema.$ref);
      if (isSchemaObject(target)) {
        edges.push([target, { pointer: `${node.pointer}/$ref`, reference: schema.$ref }]);
      }
      // Draft-06 and draft-07 ignore every keyword beside `$ref`.
      if (draft) return edges;
    }
    for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
      const list = schema[keyword];
      if (Array.isArray(list)) list.forEach(add);
    }
    add(schema.not);
    if (dialect !== 'draft-06') {
      add(schema.if);
      add(schema.then);
      add(schema.else);
    }
    for (const keyword of draft ? ['dependencies'] : ['dependencies', 'dependentSchemas']) {
      const map = schema[keyword];
      if (isSchemaObject(map)) Object.values(map).forEach(add);
    }
    return edges;
  };

  // Depth-first search for a cycle, with an explicit stack.
  const done = new Set<Record<string, unknown>>();
  const onPath = new Map<Record<string, unknown>, number>();
  for (const start of nodes.values()) {
    if (done.has(start.schema)) continue;
    const path: Array<{
      node: Node;
      edges: Array<[Record<string, unknown>, EndlessReference | undefined]>;
      index: number;
      via: EndlessReference | undefined;
    }> = [{ node: start, edges: next(start), index: 0, via: undefined }];
    onPath.set(start.schema, 0);
    while (path.length > 0) {
      const top = path[path.length - 1]!;
      if (top.index >= top.edges.length) {
        path.pop();
        onPath.delete(top.node.schema);
        done.add(top.node.schema);
        continue;
      }
      const [target, via] = top.edges[top.index++]!;
      const at = onPath.get(target);
      if (at !== undefined) {
        // The cycle is the path from `at` on, closed by this edge; a `$ref` is on it, since
        // the other edges lead deeper into the document.
        const references = [...path.slice(at + 1).map((step) => step.via), via];
        const found = references.find((reference) => reference !== undefined);
        if (found) return found;
        continue;
      }
      if (done.has(target)) continue;
      const node = nodes.get(target);
      if (node === undefined) continue;
      onPath.set(target, path.length);
      path.push({ node, edges: next(node), index: 0, via });
    }
  }
  return undefined;
}

/** The value a `#...` JSON pointer reference names in the document, if it names one. */
function resolveLocal(definition: unknown, reference: string): unknown {
  if (!reference.startsWith('#')) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(reference.slice(1));
  } catch {
    return undefined;
  }
  if (fragment === '') return definition;
  if (!fragment.startsWith('/')) return undefined;
  let value: unknown = definition;
  for (const token of fragment.slice(1).split('/')) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}
