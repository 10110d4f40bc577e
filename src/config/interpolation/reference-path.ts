/**
 * Following a reference's path (docs/configuration.md, "Interpolation"): from where it starts,
 * through the nodes it names, and on into a value already resolved.
 */
import type { JsonValue } from '../json.js';
import type { PathSegment } from '../path.js';
import { arrayIndex, type ConfigNode, childNode, type ScalarNode } from '../source.js';
import {
  mayInterpolate,
  type ReferenceExpression,
  type Template,
  wholeExpression,
} from './parser.js';

/** The node a reference's path starts from: the root, or an ancestor for leading dots. */
export function referenceBase(
  root: ConfigNode,
  expression: ReferenceExpression,
  node: ScalarNode,
): ConfigNode | undefined {
  let base: ConfigNode | undefined = expression.dots === 0 ? root : node.parent;
  for (let level = 1; level < expression.dots && base; level++) base = base.parent;
  return base;
}

/**
 * Where a path that goes on past `scalar` leads, when `scalar` is wholly a reference (and so
 * may be one in the node it names, and so on): the path is followed through the nodes named,
 * not through the resolved value. `a: ${b}` with `b: {x: 1, y: ${a.x}}` is no cycle, but
 * resolving all of `a` to find `a.x` would need `b.y`, which is being resolved. `undefined`
 * when the path cannot be followed that way (a default may apply, the node named is an
 * `${env:}` or mixed text, or the references go round): then the whole value is resolved,
 * as before, which reports a real cycle or applies the default. `root` is the configuration's,
 * and `templateOf` parses a scalar's text (once per configuration).
 */
export function throughReferences(
  root: ConfigNode,
  scalar: ScalarNode,
  rest: readonly PathSegment[],
  templateOf: (node: ScalarNode) => Template,
): ConfigNode | undefined {
  const followed = new Set<ScalarNode>();
  let current: ConfigNode = scalar;
  let remaining = rest;
  while (remaining.length > 0) {
    if (current.kind !== 'scalar') {
      const child = childNode(current, remaining[0]!);
      if (!child) return undefined;
      current = child;
      remaining = remaining.slice(1);
      continue;
    }
    if (followed.has(current) || typeof current.value !== 'string') return undefined;
    if (!mayInterpolate(current.value)) return undefined;
    followed.add(current);
    const whole = wholeExpression(templateOf(current));
    if (whole?.kind !== 'reference') return undefined;
    const base = referenceBase(root, whole, current);
    if (!base) return undefined;
    current = base;
    remaining = [...whole.segments, ...remaining];
  }
  return current;
}

/** One step of a path into a resolved value: an array's index, an object's own key. */
export function step(value: JsonValue | undefined, segment: PathSegment): JsonValue | undefined {
  if (Array.isArray(value)) {
    const index = typeof segment === 'number' ? segment : arrayIndex(segment);
    return index === undefined ? undefined : value[index];
  }
  if (typeof value === 'object' && value !== null && typeof segment === 'string') {
    return Object.hasOwn(value, segment) ? value[segment] : undefined;
  }
  return undefined;
}
