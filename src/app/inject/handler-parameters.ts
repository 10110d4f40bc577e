/**
 * Discovers the names a function destructures from its one parameter, by reading its source
 * once at registration. Property keys in a destructuring pattern are part of the program's
 * meaning, so minifiers keep them (`({request:e})=>e`): the names survive bundling, unlike
 * parameter names, which minifiers rename.
 */
import { SetupError } from '../../errors.js';

/** A function whose injected names were read at registration. */
export interface Injectable {
  fn: Function;
  names: readonly string[];
}

/** Reads the names of `fn` once; `what` names it in errors. */
export function describeInjectable(fn: Function, what: string): Injectable {
  return { fn, names: injectedNames(fn, what) };
}

/** The names `fn` takes from its injection object, in source order. */
export function injectedNames(fn: Function, what: string): string[] {
  if (typeof fn !== 'function') {
    throw new SetupError('INVALID_HANDLER', `${what} must be a function, got ${typeof fn}`);
  }
  const source = Function.prototype.toString.call(fn);
  const scanner = new Scanner(source);
  const open = findParameterList(scanner);
  if (open === 'native') {
    throw new SetupError('INVALID_HANDLER', `${what} is a native or bound function`);
  }
  if (open === 'bare') {
    throw new SetupError(
      'INVALID_HANDLER',
      `${what} must destructure the names it needs, as in ({ request, user }) => ...; ` +
        'a plain parameter does not say which dependencies to inject',
    );
  }
  scanner.pos = open + 1;
  scanner.skipTrivia();
  const next = scanner.peek();
  if (next === ')') return [];
  if (next !== '{') {
    throw new SetupError(
      'INVALID_HANDLER',
      `${what} must destructure the names it needs, as in ({ request, user }) => ...`,
    );
  }
  return readPatternKeys(scanner, what);
}

class Scanner {
  pos = 0;
  constructor(readonly text: string) {}

  peek(): string {
    return this.text[this.pos] ?? '';
  }

  startsWith(token: string): boolean {
    return this.text.startsWith(token, this.pos);
  }

  skipTrivia(): void {
    const text = this.text;
    while (this.pos < text.length) {
      const c = text[this.pos] as string;
      if (c === ' ' || c === '\n' || c === '\t' || c === '\r') this.pos++;
      else if (this.startsWith('//')) {
        const end = text.indexOf('\n', this.pos);
        this.pos = end === -1 ? text.length : end + 1;
      } else if (this.startsWith('/*')) {
        const end = text.indexOf('*/', this.pos + 2);
        this.pos = end === -1 ? text.length : end + 2;
      } else break;
    }
  }

  /** Skips a string or template literal starting at the current quote. */
  skipString(): void {
    const text = this.text;
    const quote = text[this.pos];
    this.pos++;
    while (this.pos < text.length) {
      const c = text[this.pos];
      if (c === '\\') this.pos += 2;
      else if (c === quote) {
        this.pos++;
        return;
      } else if (quote === '`' && c === '$' && text[this.pos + 1] === '{') {
        this.pos += 2;
        this.skipBalanced('}');
      } else this.pos++;
    }
  }

  /**
   * Skips a regular expression literal starting at the current `/`: its commas, brackets and
   * braces (`/[},]/`) are not the pattern's.
   */
  skipRegExp(): void {
    const text = this.text;
    let inClass = false;
    this.pos++;
    while (this.pos < text.length) {
      const c = text[this.pos];
      if (c === '\\') {
        this.pos += 2;
        continue;
      }
      this.pos++;
      if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      else if (c === '/' && !inClass) return;
    }
  }

  /**
   * Skips one token of an expression: a string, a regular expression (a `/` where a value is
   * expected, after `previous`), or one character. Returns the last character it skipped.
   */
  skipToken(previous: string): string {
    const c = this.text[this.pos] as string;
    if (c === '"' || c === "'" || c === '`') this.skipString();
    else if (c === '/' && REGEXP_AFTER.includes(previous)) this.skipRegExp();
    else if ((c === '+' || c === '-') && this.text[this.pos + 1] === c) {
      // `a++ / 2`: a `/` after an increment or a decrement divides.
      this.pos += 2;
      return ')';
    } else if (WORD_START.test(c)) {
      // A whole word: after `typeof`, `in`, `return`... a value follows, so `/` begins a
      // regular expression (`typeof /}/`); after any other name it divides.
      return VALUE_KEYWORDS.has(this.readIdentifier()) ? '(' : 'a';
    } else this.pos++;
    return c;
  }

  /** Skips to just past the `close` that balances an opening already consumed. */
  skipBalanced(close: string): void {
    const stack = [close];
    const text = this.text;
    let previous = '(';
    while (this.pos < text.length && stack.length > 0) {
      this.skipTrivia();
      const c = text[this.pos];
      if (c === '(') stack.push(')');
      else if (c === '[') stack.push(']');
      else if (c === '{') stack.push('}');
      else if (c === stack[stack.length - 1]) stack.pop();
      previous = this.skipToken(previous);
    }
  }

  readIdentifier(): string {
    const match = IDENTIFIER_NAME.exec(this.text.slice(this.pos));
    if (match === null) return '';
    this.pos += match[0].length;
    // A name may be spelt with escapes, as a bundler writes every non-ASCII letter (esbuild
    // writes `prénom` as `pr\u00E9nom`): it is the name they spell.
    return match[0].replace(UNICODE_ESCAPE, (_escape, braced: string | undefined, four: string) =>
      String.fromCodePoint(Number.parseInt(braced ?? four, 16)),
    );
  }
}

// An identifier as a function's source may spell it: letters, or escapes of them (ECMAScript
// §12.7, IdentifierName), such as `pr\u00E9nom` for `prénom`.
const NAME_START = String.raw`(?:[A-Za-z_$\u00a0-\uffff]|\\u[0-9A-Fa-f]{4}|\\u\{[0-9A-Fa-f]+\})`;
const NAME_PART = String.raw`(?:[\w$\u00a0-\uffff]|\\u[0-9A-Fa-f]{4}|\\u\{[0-9A-Fa-f]+\})`;
const IDENTIFIER_NAME = new RegExp(`^${NAME_START}${NAME_PART}*`);
const UNICODE_ESCAPE = /\\u\{([0-9A-Fa-f]+)\}|\\u([0-9A-Fa-f]{4})/g;
const IDENTIFIER = new RegExp(`^(?:async\\s*)?${NAME_START}${NAME_PART}*\\s*=>`);

// After these a `/` begins a regular expression; after a name, a number or a closing bracket
// it divides.
const REGEXP_AFTER = '(,=:[!&|?{}};+-*%<>~^';
const WORD_START = /[A-Za-z_$\u00a0-\uffff]/;
// Keywords after which an expression, not an operator, comes.
const VALUE_KEYWORDS = new Set([
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'return',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);
// What a native or bound function's source is: its body is `[native code]` and nothing else.
const NATIVE = /\{\s*\[native code\]\s*\}$/;

/** The index of the `(` that opens the parameter list, or what kind of function it is. */
function findParameterList(scanner: Scanner): number | 'bare' | 'native' {
  const text = scanner.text;
  if (NATIVE.test(text)) return 'native';
  scanner.skipTrivia();
  // `x => ...` and `async x => ...`: one plain parameter, nothing destructured.
  if (IDENTIFIER.test(text.slice(scanner.pos))) return 'bare';
  while (scanner.pos < text.length) {
    scanner.skipTrivia();
    const c = scanner.peek();
    if (c === '(') return scanner.pos;
    if (c === '"' || c === "'" || c === '`') scanner.skipString();
    else if (c === '[') {
      // A computed method name such as [Symbol.iterator](...).
      scanner.pos++;
      scanner.skipBalanced(']');
    } else scanner.pos++;
  }
  return 'bare';
}

/** Reads the top-level keys of the object pattern that starts at the scanner's `{`. */
function readPatternKeys(scanner: Scanner, what: string): string[] {
  const names: string[] = [];
  scanner.pos++;
  for (;;) {
    scanner.skipTrivia();
    const c = scanner.peek();
    if (c === '}' || c === '') break;
    if (c === ',') {
      scanner.pos++;
      continue;
    }
    if (scanner.startsWith('...')) {
      throw new SetupError(
        'INVALID_HANDLER',
        `${what} uses a rest element (...) in its parameter; name each value it needs instead`,
      );
    }
    let key: string;
    if (c === '"' || c === "'") {
      const start = scanner.pos;
      scanner.skipString();
      key = stringValue(scanner.text.slice(start + 1, scanner.pos - 1));
    } else if (c === '[') {
      throw new SetupError(
        'INVALID_HANDLER',
        `${what} uses a computed key in its parameter; injected names must be written out`,
      );
    } else {
      key = scanner.readIdentifier();
      if (key === '') {
        throw new SetupError('INVALID_HANDLER', `${what}: cannot read its parameter pattern`);
      }
    }
    names.push(key);
    // Skip whatever follows the key (a rename, a nested pattern, a default) up to the next
    // top-level comma or the closing brace.
    let previous = 'x';
    for (;;) {
      scanner.skipTrivia();
      const d = scanner.peek();
      if (d === ',' || d === '}' || d === '') break;
      if (d === '(' || d === '[' || d === '{') {
        scanner.pos++;
        scanner.skipBalanced(d === '(' ? ')' : d === '[' ? ']' : '}');
        previous = d === '(' ? ')' : d === '[' ? ']' : '}';
      } else previous = scanner.skipToken(previous);
    }
  }
  return names;
}

// The escapes of a JavaScript string literal (ECMAScript §12.9.4): a bundler writes a key it
// quotes with them (esbuild writes `𠮷` as `"\u{20BB7}"`, which JSON cannot read).
const STRING_ESCAPE =
  /\\(?:u\{([0-9A-Fa-f]+)\}|u([0-9A-Fa-f]{4})|x([0-9A-Fa-f]{2})|(\r\n|[\n\r\u2028\u2029])|(.))/gs;
const SINGLE_ESCAPES: Readonly<Record<string, string>> = {
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
  v: '\v',
  '0': '\0',
};

/** The value of a string literal's text between its quotes. */
function stringValue(inner: string): string {
  return inner.replace(
    STRING_ESCAPE,
    (_escape, braced?: string, four?: string, two?: string, newline?: string, other?: string) => {
      const hex = braced ?? four ?? two;
      if (hex !== undefined) return String.fromCodePoint(Number.parseInt(hex, 16));
      if (newline !== undefined) return ''; // a line continuation
      return SINGLE_ESCAPES[other as string] ?? (other as string);
    },
  );
}
