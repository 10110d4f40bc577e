/**
 * The configuration as a tree of nodes: every value knows its parent (relative references need
 * it), its key, and where it was written in the YAML source (messages need it).
 */

import { ConfigMalformedError } from './errors.js';
import { isJsonObject, type JsonObject, type JsonValue, setOwn } from './json.js';
import { MAX_DOCUMENT_VALUES } from './limits.js';
import { formatPath, type PathSegment } from './path.js';

/** 1-based line and column in the source text. */
export interface Location {
  readonly line: number;
  readonly column: number;
}

interface NodeBase {
  readonly parent: ContainerNode | undefined;
  /** The key in the parent map or the index in the parent list; undefined for the root. */
  readonly key: PathSegment | undefined;
  /** Where the value starts. */
  location: Location | undefined;
  /** Where the key that holds this value starts, for values of a map. */
  keyLocation: Location | undefined;
}

export interface ScalarNode extends NodeBase {
  readonly kind: 'scalar';
  readonly value: string | number | boolean | null;
}

export interface MapNode extends NodeBase {
  readonly kind: 'map';
  readonly entries: Map<string, ConfigNode>;
}

export interface ListNode extends NodeBase {
  readonly kind: 'list';
  readonly items: ConfigNode[];
}

export type ContainerNode = MapNode | ListNode;
export type ConfigNode = ScalarNode | ContainerNode;

export function scalarNode(
  value: string | number | boolean | null,
  parent: ContainerNode | undefined,
  key: PathSegment | undefined,
): ScalarNode {
  return { kind: 'scalar', value, parent, key, location: undefined, keyLocation: undefined };
}

export function mapNode(parent: ContainerNode | undefined, key: PathSegment | undefined): MapNode {
  return {
    kind: 'map',
    entries: new Map(),
    parent,
    key,
    location: undefined,
    keyLocation: undefined,
  };
}

export function listNode(
  parent: ContainerNode | undefined,
  key: PathSegment | undefined,
): ListNode {
  return { kind: 'list', items: [], parent, key, location: undefined, keyLocation: undefined };
}

/** Segments from the root to the node. */
export function nodeSegments(node: ConfigNode): PathSegment[] {
  const segments: PathSegment[] = [];
  for (let current: ConfigNode | undefined = node; current?.key !== undefined; ) {
    segments.push(current.key);
    current = current.parent;
  }
  return segments.reverse();
}

/** The dotted path of the node (`''` for the root). */
export function nodePath(node: ConfigNode): string {
  return formatPath(nodeSegments(node));
}

/** The child of a container for one path segment (`'0'` indexes a list too), if any. */
export function childNode(node: ConfigNode, segment: PathSegment): ConfigNode | undefined {
  if (node.kind === 'map')
    return typeof segment === 'string' ? node.entries.get(segment) : undefined;
  if (node.kind === 'list') {
    const index = typeof segment === 'number' ? segment : arrayIndex(segment);
    return index === undefined ? undefined : node.items[index];
  }
  return undefined;
}

/** `'3'` read as a list index, so that `servers.0.host` works as well as `servers[0].host`. */
export function arrayIndex(segment: string): number | undefined {
  return /^(0|[1-9][0-9]*)$/.test(segment) ? Number(segment) : undefined;
}

/**
 * Builds a node tree from a plain value (`Config.fromObject`). Anything that is not JSON is
 * rejected with the path where it was found. Built without recursion, so depth is no concern.
 *
 * An object may appear in several places (`{ primary: defaults, replica: defaults }`), as in any
 * value `JSON.stringify` accepts: each place gets its own copy. Only an object inside itself is
 * cyclic, so the walk keeps the objects on the path from the root, not every object seen. Shared
 * objects nested in shared objects multiply (forty levels of `[d, d]` are 2^40 places), so the
 * copies count against {@link MAX_DOCUMENT_VALUES} as YAML aliases do, and the walk stops there.
 */
export function nodesFromValue(value: unknown): ConfigNode {
  type Pending =
    | {
        value: unknown;
        parent: ContainerNode | undefined;
        key: PathSegment | undefined;
        copy: boolean;
      }
    | { leave: object };
  const pending: Pending[] = [{ value, parent: undefined, key: undefined, copy: false }];
  let root: ConfigNode | undefined;
  const ancestors = new Set<object>();
  const seen = new Set<object>();
  let copies = 0;
  while (pending.length > 0) {
    const item = pending.pop()!;
    if ('leave' in item) {
      ancestors.delete(item.leave);
      continue;
    }
    const node = nodeFor(item.value, item.parent, item.key);
    if (item.parent === undefined) root = node;
    else if (item.parent.kind === 'map') item.parent.entries.set(item.key as string, node);
    else item.parent.items[item.key as number] = node;
    const container = node.kind === 'scalar' ? undefined : (item.value as object);
    const copy = item.copy || (container !== undefined && seen.has(container));
    if (copy && ++copies > MAX_DOCUMENT_VALUES) {
      throw new ConfigMalformedError(
        `the value expands to more than ${MAX_DOCUMENT_VALUES} values (an object held in several places counts in each)`,
        { key: nodePath(node) },
      );
    }
    if (container === undefined || node.kind === 'scalar') continue;
    if (ancestors.has(container)) {
      throw new ConfigMalformedError('the value contains itself (a cyclic object is not JSON)', {
        key: nodePath(node),
      });
    }
    seen.add(container);
    ancestors.add(container);
    pending.push({ leave: container });
    if (node.kind === 'list') {
      const items = item.value as unknown[];
      for (let index = items.length - 1; index >= 0; index--) {
        pending.push({ value: items[index], parent: node, key: index, copy });
      }
    } else {
      const entries = Object.keys(container);
      for (let index = entries.length - 1; index >= 0; index--) {
        const key = entries[index]!;
        pending.push({
          value: (container as Record<string, unknown>)[key],
          parent: node,
          key,
          copy,
        });
      }
    }
  }
  return root!;

  function nodeFor(
    value: unknown,
    parent: ContainerNode | undefined,
    key: PathSegment | undefined,
  ): ConfigNode {
    if (value === null || typeof value === 'string' || typeof value === 'boolean') {
      return scalarNode(value, parent, key);
    }
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw notJson(`the number ${value} is not JSON`);
      return scalarNode(value, parent, key);
    }
    if (Array.isArray(value)) return listNode(parent, key);
    if (isJsonObject(value)) return mapNode(parent, key);
    throw notJson(
      `a ${value === undefined ? 'undefined value' : typeof value === 'object' ? (value.constructor?.name ?? 'object') : typeof value} is not a JSON value`,
    );

    function notJson(reason: string): ConfigMalformedError {
      const segments = parent === undefined ? [] : [...nodeSegments(parent), key!];
      return new ConfigMalformedError(reason, { key: formatPath(segments) });
    }
  }
}

/** The plain value of a node tree, interpolations left as written. */
export function plainValue(
  root: ConfigNode,
  mapScalar?: (node: ScalarNode) => JsonValue,
): JsonValue {
  // Iterative for the same reason as nodesFromValue.
  const convert = (node: ConfigNode): JsonValue => {
    if (node.kind === 'scalar') return mapScalar ? mapScalar(node) : node.value;
    return node.kind === 'list' ? [] : {};
  };
  const result = convert(root);
  const pending: Array<{ node: ConfigNode; value: JsonValue }> = [{ node: root, value: result }];
  while (pending.length > 0) {
    const { node, value } = pending.pop()!;
    if (node.kind === 'list') {
      const list = value as JsonValue[];
      for (const item of node.items) {
        const converted = convert(item);
        list.push(converted);
        if (item.kind !== 'scalar') pending.push({ node: item, value: converted });
      }
    } else if (node.kind === 'map') {
      const object = value as JsonObject;
      for (const [key, child] of node.entries) {
        const converted = convert(child);
        setOwn(object, key, converted);
        if (child.kind !== 'scalar') pending.push({ node: child, value: converted });
      }
    }
  }
  return result;
}

/**
 * The node nearest to `segments`: the node itself, or its deepest existing ancestor when the
 * path leads into a value that came from a reference or was added as a default.
 */
export function nearestNode(root: ConfigNode, segments: readonly PathSegment[]): ConfigNode {
  let current = root;
  for (const segment of segments) {
    const child = childNode(current, segment);
    if (!child) break;
    current = child;
  }
  return current;
}
