/**
 * The interpolation language of configuration values (docs/configuration.md, "Interpolation"):
 *
 * ```text
 * ${env:NAME}                 environment variable
 * ${env:NAME,default=text}    ... with a default, itself a template (it may nest ${...})
 * ${file:path}                text of a file, relative to the configuration's folder
 * ${a.b} ${list[0].c}         absolute reference to another value
 * ${.sibling} ${..parent.x}   relative reference: one dot is the containing object, each more
 *                             dot one level up
 * ${m["any key"]}            a quoted key, as src/config/path.ts reads it: any character
 * \${                         a literal "${"
 * ```
 *
 * Any expression may carry `,default=...`; the default is used when the variable, file or path
 * is not found. The default ends at the first `}` that closes no `{` of its own, so braces that
 * pair up inside it are part of it (`default={"k":1}` is the text `{"k":1}`).
 *
 * Backslashes matter only right before `${` (and, inside a default, before `{` or `}`): there a
 * run of n backslashes stands for n/2 of them (rounded down), and an odd run makes the `${` (or
 * `{`, `}`) literal text that neither opens nor closes anything. So `\${x}` is the text `${x}`,
 * `C:\\${env:DIR}` is a backslash followed by the variable, and `default=a\}b` is `a}b`.
 * A backslash anywhere else is itself.
 */

import { ConfigMalformedError } from '../errors.js';
import { type PathSegment, PathSyntaxError, parsePath } from '../path.js';

/** A parsed value: literal text and expressions, in order. */
export interface Template {
  readonly parts: readonly TemplatePart[];
}

export type TemplatePart = string | Expression;

interface ExpressionBase {
  /** The expression as written, `${...}` included. */
  readonly source: string;
  /** 1-based column of the `$` inside the value's text. */
  readonly column: number;
  /** The default, used when the variable, file or path does not exist. */
  readonly fallback: Template | undefined;
}

export interface EnvExpression extends ExpressionBase {
  readonly kind: 'env';
  readonly name: string;
}

export interface FileExpression extends ExpressionBase {
  readonly kind: 'file';
  readonly path: string;
}

export interface ReferenceExpression extends ExpressionBase {
  readonly kind: 'reference';
  /** 0 for an absolute path; otherwise the number of leading dots. */
  readonly dots: number;
  readonly segments: readonly PathSegment[];
}

export type Expression = EnvExpression | FileExpression | ReferenceExpression;

/** Defaults nest; past this depth the text is rejected rather than risking the stack. */
const MAX_NESTING = 32;

const LITERAL: Template = Object.freeze({ parts: Object.freeze([]) });

/** True when the text contains anything the parser would interpret. */
export function mayInterpolate(text: string): boolean {
  return text.includes('${');
}

/**
 * Parses a value's text. Throws {@link ConfigMalformedError} (and nothing else) for malformed
 * input, with `offset` set to the 1-based position of the problem in `text`.
 */
export function parseTemplate(text: string): Template {
  if (!mayInterpolate(text)) return text === '' ? LITERAL : { parts: [text] };
  const parser = new TemplateParser(text);
  const template = parser.template(0);
  return template;
}

/** The expression when the template is exactly one expression and nothing else. */
export function wholeExpression(template: Template): Expression | undefined {
  const [only] = template.parts;
  return template.parts.length === 1 && typeof only === 'object' ? only : undefined;
}

/** Escapes text so that {@link parseTemplate} reads it back as exactly that literal text. */
export function escapeTemplate(text: string): string {
  return text.replace(/(\\*)\$\{/g, (_match, run: string) => `${run}${run}\\\${`);
}

/**
 * Where the `:` after a resolver's name (`env:`, `file:`) is, or -1 for a reference: a `:` that
 * comes after a path's punctuation (`.`, `[`, `]`, `"`) is part of a key (`m.http://x`,
 * `m["a:b"]`).
 */
function resolverColon(head: string): number {
  const end = head.search(/[:.[\]"]/);
  return end >= 0 && head[end] === ':' ? end : -1;
}

const RESOLVER_OR_PATH = ':.[]"';

class TemplateParser {
  private index = 0;

  constructor(private readonly text: string) {}

  /**
   * Reads a template up to the end of the text (depth 0) or up to the `}` that closes the
   * expression whose default this is (depth > 0), leaving that `}` unread.
   */
  template(depth: number): Template {
    const { text } = this;
    const parts: TemplatePart[] = [];
    let literal = '';
    /** In a default: the `{` written in it and not closed yet. */
    let openBraces = 0;
    while (this.index < text.length) {
      const char = text[this.index];
      if (char === '\\') {
        let end = this.index;
        while (text[end] === '\\') end++;
        const run = end - this.index;
        const before = text.startsWith('${', end)
          ? '${'
          : depth > 0 && (text[end] === '{' || text[end] === '}')
            ? text[end]!
            : '';
        if (before === '') {
          literal += text.slice(this.index, end);
          this.index = end;
          continue;
        }
        literal += '\\'.repeat(Math.floor(run / 2));
        this.index = end;
        if (run % 2 === 1) {
          literal += before;
          this.index += before.length;
        }
      } else if (char === '$' && text[this.index + 1] === '{') {
        if (literal !== '') parts.push(literal);
        literal = '';
        parts.push(this.expression(depth));
      } else if (char === '}' && depth > 0 && openBraces === 0) {
        break;
      } else {
        if (depth > 0 && char === '{') openBraces++;
        if (depth > 0 && char === '}') openBraces--;
        literal += char;
        this.index++;
      }
    }
    if (literal !== '') parts.push(literal);
    return { parts };
  }

  private expression(depth: number): Expression {
    const { text } = this;
    const start = this.index;
    const column = start + 1;
    if (depth >= MAX_NESTING) this.fail('interpolations nested too deeply', column);
    this.index += 2;
    const headStart = this.index;
    /** Whether the head names a resolver, once its first `:` or path punctuation is seen. */
    let resolver: boolean | undefined;
    while (this.index < text.length && text[this.index] !== '}' && text[this.index] !== ',') {
      const char = text[this.index]!;
      if (char === '$' && text[this.index + 1] === '{') {
        this.fail('unexpected "${" inside an interpolation', this.index + 1);
      }
      if (resolver === undefined && RESOLVER_OR_PATH.includes(char)) resolver = char === ':';
      // A reference's quoted key (`m["http://x"]`, src/config/path.ts) may hold any character:
      // it is read whole, up to its closing quote, as the path parser reads it.
      if (char === '"' && !resolver && text[this.index - 1] === '[') {
        this.index++;
        while (this.index < text.length && text[this.index] !== '"') {
          this.index += text[this.index] === '\\' ? 2 : 1;
        }
      }
      this.index++;
    }
    if (this.index > text.length) this.index = text.length;
    if (this.index >= text.length) this.fail('unexpected end of input', text.length + 1);
    const head = text.slice(headStart, this.index);
    if (head === '') {
      this.fail(
        text[this.index] === '}' ? 'empty interpolation' : 'expected a name before ","',
        text[this.index] === '}' ? column : this.index + 1,
      );
    }
    let fallback: Template | undefined;
    if (text[this.index] === ',') {
      this.index++;
      if (!text.startsWith('default=', this.index)) {
        const optionEnd = text.slice(this.index).search(/[=,}]/);
        const option = text.slice(this.index, optionEnd < 0 ? undefined : this.index + optionEnd);
        this.fail(
          option === ''
            ? 'expected "default=" after ","'
            : `unknown option ${JSON.stringify(option)} (only "default=" is supported)`,
          this.index + 1,
        );
      }
      this.index += 'default='.length;
      fallback = this.template(depth + 1);
      if (this.index >= text.length) this.fail('unexpected end of input', text.length + 1);
    }
    // this.index is at the closing "}".
    this.index++;
    const source = text.slice(start, this.index);
    return this.classify(head, headStart, { source, column, fallback });
  }

  private classify(head: string, headStart: number, base: ExpressionBase): Expression {
    const colon = resolverColon(head);
    if (colon >= 0) {
      const resolver = head.slice(0, colon);
      const argument = head.slice(colon + 1);
      if (resolver === 'env') {
        if (argument === '') this.fail('empty variable name', headStart + colon + 2);
        return { kind: 'env', name: argument, ...base };
      }
      if (resolver === 'file') {
        if (argument === '') this.fail('empty file path', headStart + colon + 2);
        return { kind: 'file', path: argument, ...base };
      }
      this.fail(
        `unknown resolver ${JSON.stringify(resolver)} (expected "env" or "file")`,
        headStart + 1,
      );
    }
    let dots = 0;
    while (head[dots] === '.') dots++;
    if (dots === head.length) this.fail('expected a key after "."', headStart + head.length + 1);
    try {
      const segments = parsePath(head, dots);
      return { kind: 'reference', dots, segments, ...base };
    } catch (error) {
      if (error instanceof PathSyntaxError) {
        this.fail(`invalid reference: ${error.reason}`, headStart + error.offset + 1);
      }
      throw error;
    }
  }

  /**
   * The position is within the value as the loader sees it, after YAML has decoded escapes and
   * joined the lines of a block: it is not a column of the file (the message's `line:column`
   * prefix is where the value starts), so the message says so.
   */
  private fail(reason: string, column: number): never {
    throw new ConfigMalformedError(`${reason} at character ${column} of the value`, {}, column);
  }
}
