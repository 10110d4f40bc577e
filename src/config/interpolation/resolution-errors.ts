/**
 * The errors a resolution throws about a value, located at its key and expression: a value over
 * a size limit, one nested too deeply to be written into text, a reference that climbs above
 * the root, a chain of references that comes back to where it started.
 */
import {
  ConfigCircularReferenceError,
  ConfigMalformedError,
  ConfigTooLargeError,
} from '../errors.js';
import type { JsonValue } from '../json.js';
import type { SizeLimit } from '../limits.js';
import { type ConfigNode, nodePath, type ScalarNode } from '../source.js';
import type { Expression, ReferenceExpression } from './parser.js';
import { context, type ResolverSource } from './resolver-source.js';

/**
 * A value written into text as JSON. `JSON.stringify` recurses once per level, and references
 * (or `fromObject`) can build a value nested deeper than the stack: that is refused as
 * malformed, naming the key and the expression, rather than escaping as a bare RangeError.
 */
export function jsonText(
  source: ResolverSource,
  value: JsonValue,
  node: ScalarNode,
  expression: Expression,
): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof RangeError && /call stack/i.test(error.message))) throw error;
    throw new ConfigMalformedError(
      'the value is nested too deeply to be written into text as JSON',
      context(source, node, expression),
    );
  }
}

/** A value over `option`, naming the key and the text as written. */
export function tooLarge(
  source: ResolverSource,
  node: ScalarNode,
  expression: string,
  option: SizeLimit,
): ConfigTooLargeError {
  const where = { ...context(source, node), expression };
  return new ConfigTooLargeError(source[option], where, option);
}

/**
 * A reference with more leading dots than `node` has ancestors. A path that no document can hold
 * is a mistake in the text, not a value not there: no default stands in for it.
 */
export function aboveRoot(
  source: ResolverSource,
  node: ScalarNode,
  expression: ReferenceExpression,
): ConfigMalformedError {
  return new ConfigMalformedError(
    `${expression.dots} dots go above the root of the configuration`,
    context(source, node, expression),
  );
}

/** The cycle `needed` closes on the stack, named by its first reference and expression. */
export function circularReference(
  source: ResolverSource,
  frames: readonly { readonly node: ConfigNode; readonly expression: Expression | undefined }[],
  needed: ConfigNode,
): ConfigCircularReferenceError {
  const start = frames.findIndex((frame) => frame.node === needed);
  const cycle = frames.slice(start);
  const chain = [...cycle.map((frame) => nodePath(frame.node)), nodePath(needed)];
  // Name the first value of the cycle that is a reference, with its expression.
  const named = cycle.find((frame) => frame.expression !== undefined) ?? cycle[0]!;
  return new ConfigCircularReferenceError(chain, context(source, named.node, named.expression));
}
