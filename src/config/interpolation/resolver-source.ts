/**
 * What a resolution reads (the configuration's tree, environment, folder and limits) and gives
 * back, the templates parsed once from its strings, and the place in it an error names.
 */
import { ConfigMalformedError, type ValueContext } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { PathSegment } from '../path.js';
import type { Secret } from '../redaction.js';
import { type ConfigNode, nodePath, type ScalarNode } from '../source.js';
import { type Expression, parseTemplate, type Template } from './parser.js';

/** A resolved value and the places inside it whose text came from an interpolation. */
export interface Resolved {
  readonly value: JsonValue;
  /**
   * Paths (relative to `value`) of strings produced wholly by an `env` or `file` interpolation
   * or by a default: the only strings `validate` may coerce to the schema's scalar type.
   */
  readonly coercible: readonly (readonly PathSegment[])[];
  /** Strings inside `value` any part of which came from `${env:...}` or `${file:...}`. */
  readonly secrets: readonly Secret[];
}

export interface ResolverSource {
  readonly root: ConfigNode;
  readonly file: string | undefined;
  /** The folder `${file:...}` paths are relative to. */
  readonly baseDir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The most bytes a value produced by an interpolation may hold (see limits.ts). */
  readonly maxValueBytes: number;
  /** The most bytes the values one resolution produces may hold together. */
  readonly maxTotalBytes: number;
  /** Parsed templates, shared by every resolution of one configuration. */
  readonly templates: WeakMap<ScalarNode, Template>;
}

/** The template of a scalar string, parsed once; malformed text becomes a located error. */
export function templateOf(source: ResolverSource, node: ScalarNode): Template {
  let template = source.templates.get(node);
  if (template) return template;
  try {
    template = parseTemplate(node.value as string);
  } catch (error) {
    if (error instanceof ConfigMalformedError) {
      throw new ConfigMalformedError(
        `malformed interpolation: ${error.reason}`,
        { ...context(source, node), expression: node.value as string },
        error.offset,
      );
    }
    throw error;
  }
  source.templates.set(node, template);
  return template;
}

/** Where an error about `node` points: its key, the expression, the file and the position. */
export function context(
  source: ResolverSource,
  node: ConfigNode,
  expression?: Expression,
): ValueContext {
  return {
    key: nodePath(node),
    expression: expression?.source,
    file: source.file,
    line: node.location?.line,
    column: node.location?.column,
  };
}
