/**
 * Resolves interpolations, lazily (only what is asked for) and once per node per resolution.
 *
 * References can chain arbitrarily far (`a: ${b}`, `b: ${c}`, ...), so resolution never recurses
 * along references: an explicit stack of frames holds the nodes being resolved. Evaluating a
 * node either completes or names one node it still needs; that node is pushed and the first is
 * evaluated again once it is done. A needed node that is already on the stack is a cycle, and
 * the stack is its chain. The only recursion left is through nested defaults, which the parser
 * bounds.
 */

import { ConfigMalformedError, ConfigNotFoundError } from '../errors.js';
import { cloneJson, type JsonObject, type JsonValue, setOwn } from '../json.js';
import { SizeBudget, type SizeLimit } from '../limits.js';
import { formatPath, type PathSegment } from '../path.js';
import { type Secret, sourcesOf } from '../redaction.js';
import { type ConfigNode, childNode, nodeSegments, type ScalarNode } from '../source.js';
import { FileTexts } from './files.js';
import {
  type Expression,
  mayInterpolate,
  type ReferenceExpression,
  type Template,
  wholeExpression,
} from './parser.js';
import { referenceBase, step, throughReferences } from './reference-path.js';
import { aboveRoot, circularReference, jsonText, tooLarge } from './resolution-errors.js';
import { context, type Resolved, type ResolverSource, templateOf } from './resolver-source.js';

const NONE: readonly (readonly PathSegment[])[] = Object.freeze([]);
const WHOLE: readonly (readonly PathSegment[])[] = Object.freeze([Object.freeze([])]);
const NO_SECRETS: readonly Secret[] = Object.freeze([]);
const ROOT: readonly PathSegment[] = Object.freeze([]);

interface Frame {
  readonly node: ConfigNode;
  /** Containers: how many children are done. */
  progress: number;
  /** Containers: the value being built. */
  readonly partial: JsonValue[] | JsonObject | undefined;
  /** Maps: the entries, listed once. */
  readonly entries: Array<[string, ConfigNode]> | undefined;
  readonly coercible: PathSegment[][];
  readonly secrets: Secret[];
  /** The expression that last asked for another node, for cycle messages. */
  expression: Expression | undefined;
  /**
   * Scalars: the expressions already evaluated. A scalar whose template waits for another node
   * is evaluated again once that node is done; its finished expressions are taken from here, so
   * each value is read, copied and counted against the size limits once, whatever the order of
   * the keys (docs/configuration.md, "Size limit").
   */
  readonly evaluated: Map<Expression, Resolved>;
}

/** The reason a reference found nothing. */
class Missing {
  constructor(readonly path: string) {}
}

/** One resolution: a memo of finished nodes and the stack of unfinished ones. */
export class Resolution {
  private readonly memo = new Map<ConfigNode, Resolved>();
  private readonly frames: Frame[] = [];
  private readonly active = new Set<ConfigNode>();
  private readonly files: FileTexts;
  /** The limit a file's text can pass first, which bounds how much of a file is read. */
  private readonly fileLimit: SizeLimit;
  private needed: ConfigNode | undefined;
  private readonly budget: SizeBudget;

  constructor(private readonly source: ResolverSource) {
    this.budget = new SizeBudget(source.maxValueBytes, source.maxTotalBytes);
    this.fileLimit =
      source.maxValueBytes <= source.maxTotalBytes ? 'maxValueBytes' : 'maxTotalBytes';
    this.files = new FileTexts(source.baseDir, source[this.fileLimit]);
  }

  /** Resolves a node (and whatever it refers to). */
  resolve(node: ConfigNode): Resolved {
    const done = this.finished(node);
    if (done) return done;
    this.push(node);
    while (this.frames.length > 0) {
      const frame = this.frames[this.frames.length - 1]!;
      this.needed = undefined;
      const result = this.evaluate(frame);
      if (result) {
        this.memo.set(frame.node, result);
        this.active.delete(frame.node);
        this.frames.pop();
        continue;
      }
      const needed = this.needed as ConfigNode | undefined;
      if (!needed) throw new Error('internal error: resolution stalled');
      if (this.active.has(needed)) throw circularReference(this.source, this.frames, needed);
      this.push(needed);
    }
    return this.memo.get(node)!;
  }

  private push(node: ConfigNode): void {
    const partial = node.kind === 'list' ? [] : node.kind === 'map' ? {} : undefined;
    const entries = node.kind === 'map' ? [...node.entries] : undefined;
    this.frames.push({
      node,
      progress: 0,
      partial,
      entries,
      coercible: [],
      secrets: [],
      expression: undefined,
      evaluated: new Map(),
    });
    this.active.add(node);
  }

  /** The value of a node when it is done or needs no work; otherwise records it as needed. */
  private finished(node: ConfigNode): Resolved | undefined {
    const done = this.memo.get(node);
    if (done) return done;
    if (node.kind === 'scalar' && (typeof node.value !== 'string' || !mayInterpolate(node.value))) {
      return { value: node.value, coercible: NONE, secrets: NO_SECRETS };
    }
    return undefined;
  }

  private need(node: ConfigNode, frame: Frame, expression?: Expression): undefined {
    this.needed = node;
    frame.expression = expression;
    return undefined;
  }

  private evaluate(frame: Frame): Resolved | undefined {
    const { node } = frame;
    if (node.kind === 'scalar') return this.scalar(node, frame);
    if (node.kind === 'list') {
      const values = frame.partial as JsonValue[];
      for (; frame.progress < node.items.length; frame.progress++) {
        const item = node.items[frame.progress]!;
        const resolved = this.finished(item);
        if (!resolved) return this.need(item, frame);
        values.push(resolved.value);
        for (const path of resolved.coercible) frame.coercible.push([frame.progress, ...path]);
        for (const { path, sources } of resolved.secrets) {
          frame.secrets.push({ path: [frame.progress, ...path], sources });
        }
      }
      return { value: values, coercible: frame.coercible, secrets: frame.secrets };
    }
    const object = frame.partial as JsonObject;
    const entries = frame.entries!;
    for (; frame.progress < entries.length; frame.progress++) {
      const [key, child] = entries[frame.progress]!;
      const resolved = this.finished(child);
      if (!resolved) return this.need(child, frame);
      setOwn(object, key, resolved.value);
      for (const path of resolved.coercible) frame.coercible.push([key, ...path]);
      for (const { path, sources } of resolved.secrets) {
        frame.secrets.push({ path: [key, ...path], sources });
      }
    }
    return { value: object, coercible: frame.coercible, secrets: frame.secrets };
  }

  private scalar(node: ScalarNode, frame: Frame): Resolved | undefined {
    const template = templateOf(this.source, node);
    const whole = wholeExpression(template);
    if (whole) return this.expression(whole, node, frame);
    return this.text(template, node, frame, node.value as string, NONE);
  }

  /**
   * Mixed text: every expression's value converted to text and joined. `written` is the text
   * as written, which a too-large message names.
   */
  private text(
    template: Template,
    node: ScalarNode,
    frame: Frame,
    written: string,
    coercible: Resolved['coercible'],
  ): Resolved | undefined {
    const limit = this.source.maxValueBytes;
    let text = '';
    const secrets: Secret[] = [];
    for (const part of template.parts) {
      if (typeof part === 'string') {
        text += part;
      } else {
        const resolved = this.expression(part, node, frame);
        if (!resolved) return undefined;
        const { value } = resolved;
        text += typeof value === 'string' ? value : jsonText(this.source, value, node, part);
        for (const secret of resolved.secrets) secrets.push(secret);
      }
      // UTF-16 length never exceeds UTF-8 length, so this catches doubling before it grows.
      if (text.length > limit) throw tooLarge(this.source, node, written, 'maxValueBytes');
    }
    this.checkSize(text, node, written);
    const sources = sourcesOf(secrets);
    return {
      value: text,
      coercible,
      secrets: sources.length === 0 ? NO_SECRETS : [{ path: ROOT, sources }],
    };
  }

  /** Counts a value an interpolation produced, before it is copied; throws past a limit. */
  private checkSize(value: JsonValue, node: ScalarNode, written: string): void {
    const over = this.budget.spend(value);
    if (over) throw tooLarge(this.source, node, written, over);
  }

  /** An expression's value, evaluated once per frame; `undefined` when it waits for a node. */
  private expression(expression: Expression, node: ScalarNode, frame: Frame): Resolved | undefined {
    const earlier = frame.evaluated.get(expression);
    if (earlier) return earlier;
    const resolved = this.evaluateExpression(expression, node, frame);
    if (resolved) frame.evaluated.set(expression, resolved);
    return resolved;
  }

  private evaluateExpression(
    expression: Expression,
    node: ScalarNode,
    frame: Frame,
  ): Resolved | undefined {
    if (expression.kind === 'env') {
      // Only the variables themselves: `${env:constructor}` must not find Object.prototype's.
      const { env } = this.source;
      const value = Object.hasOwn(env, expression.name) ? env[expression.name] : undefined;
      if (typeof value === 'string') {
        this.checkSize(value, node, expression.source);
        const secrets = [{ path: ROOT, sources: [`env:${expression.name}`] }];
        return { value, coercible: WHOLE, secrets };
      }
      return this.fallback(expression, node, frame, () => {
        const name = expression.name;
        return `environment variable ${JSON.stringify(name)} not found (set it, or add a default: \${env:${name},default=...})`;
      });
    }
    if (expression.kind === 'file') {
      const file = this.files.read(expression.path);
      if (file.kind === 'text') {
        this.checkSize(file.text, node, expression.source);
        const secrets = [{ path: ROOT, sources: [`file:${expression.path}`] }];
        return { value: file.text, coercible: WHOLE, secrets };
      }
      if (file.kind === 'too-large')
        throw tooLarge(this.source, node, expression.source, this.fileLimit);
      if (file.kind === 'unreadable') {
        throw new ConfigNotFoundError(file.reason, context(this.source, node, expression));
      }
      if (file.kind === 'not-text') {
        throw new ConfigMalformedError(file.reason, context(this.source, node, expression));
      }
      return this.fallback(
        expression,
        node,
        frame,
        () => `file ${JSON.stringify(file.path)} not found`,
      );
    }
    const found = this.reference(expression, node, frame);
    if (!(found instanceof Missing)) return found;
    return this.fallback(
      expression,
      node,
      frame,
      () => `path ${JSON.stringify(found.path)} not found`,
    );
  }

  /** The default when there is one, else a not-found error with the given reason. */
  private fallback(
    expression: Expression,
    node: ScalarNode,
    frame: Frame,
    reason: () => string,
  ): Resolved | undefined {
    const template = expression.fallback;
    if (!template) throw new ConfigNotFoundError(reason(), context(this.source, node, expression));
    const whole = wholeExpression(template);
    if (whole) return this.expression(whole, node, frame);
    return this.text(template, node, frame, expression.source, WHOLE);
  }

  /** Follows a reference; `undefined` when it waits for another node. */
  private reference(
    expression: ReferenceExpression,
    node: ScalarNode,
    frame: Frame,
  ): Resolved | Missing | undefined {
    const base = referenceBase(this.source.root, expression, node);
    if (!base) {
      throw aboveRoot(this.source, node, expression);
    }
    const { segments } = expression;
    const wanted = () => formatPath([...nodeSegments(base), ...segments]);
    let current: ConfigNode = base;
    let index = 0;
    for (; index < segments.length && current.kind !== 'scalar'; index++) {
      const child = childNode(current, segments[index]!);
      if (!child) return new Missing(wanted());
      current = child;
    }
    if (index < segments.length && current.kind === 'scalar') {
      const through = throughReferences(
        this.source.root,
        current,
        segments.slice(index),
        (scalar) => templateOf(this.source, scalar),
      );
      if (through) {
        current = through;
        index = segments.length;
      }
    }
    const resolved = this.finished(current);
    if (!resolved) return this.need(current, frame, expression);
    if (index === segments.length) {
      this.checkSize(resolved.value, node, expression.source);
      return {
        value: cloneJson(resolved.value),
        coercible: resolved.coercible,
        secrets: resolved.secrets,
      };
    }
    // The path continues inside a value that itself came from a reference.
    let value: JsonValue | undefined = resolved.value;
    const rest = segments.slice(index);
    for (const segment of rest) value = step(value, segment);
    if (value === undefined) return new Missing(wanted());
    const inside = (path: readonly PathSegment[]) =>
      path.length >= rest.length &&
      rest.every((segment, position) => String(path[position]) === String(segment));
    const coercible = resolved.coercible.filter(inside).map((path) => path.slice(rest.length));
    const secrets = resolved.secrets
      .filter(({ path }) => inside(path))
      .map(({ path, sources }) => ({ path: path.slice(rest.length), sources }));
    this.checkSize(value, node, expression.source);
    return { value: cloneJson(value), coercible, secrets };
  }
}
