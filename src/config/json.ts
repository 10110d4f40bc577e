/** JSON values and the small JSON utilities the configuration code shares. */

/** Any JSON value: what a resolved configuration is made of. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

export function isJsonObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Sets an own property. A key named `__proto__` from a YAML or JSON document must become a data
 * property, never the object's prototype.
 */
export function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}

/**
 * Deep copy of a JSON value (so two places in a result never share one object). A loop over the
 * containers left to copy, not recursion: references can build a value nested thousands deep.
 */
export function cloneJson<T extends JsonValue>(value: T): T {
  const copyOf = (item: JsonValue): JsonValue => {
    if (typeof item !== 'object' || item === null) return item;
    const copy = Array.isArray(item) ? [] : {};
    pending.push([item, copy]);
    return copy;
  };
  const pending: Array<[JsonValue[] | JsonObject, JsonValue[] | JsonObject]> = [];
  const root = copyOf(value);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [source, copy] = next;
    if (Array.isArray(source)) {
      for (const item of source) (copy as JsonValue[]).push(copyOf(item));
    } else {
      for (const key of Object.keys(source)) {
        setOwn(copy as JsonObject, key, copyOf(source[key] as JsonValue));
      }
    }
  }
  return root as T;
}

/** Position of the first syntax error in JSON text, and why. */
export interface JsonSyntaxError {
  readonly offset: number;
  readonly reason: string;
}

/**
 * Finds where JSON text stops being valid. `JSON.parse` on Node 20 does not always say where
 * (its messages quote the text instead of giving a position), and an error without a line and
 * column is of little use in a long schema file, so this small scanner finds the place. It runs
 * only after `JSON.parse` has failed.
 */
export function locateJsonSyntaxError(text: string): JsonSyntaxError {
  let index = 0;
  const fail = (reason: string): JsonSyntaxError => ({ offset: index, reason });
  const skipWhitespace = () => {
    while (index < text.length && ' \t\n\r'.includes(text[index]!)) index++;
  };
  const describeHere = () =>
    index >= text.length ? 'unexpected end of input' : `unexpected ${JSON.stringify(text[index])}`;

  // An explicit stack keeps deeply nested input from overflowing the call stack.
  const stack: Array<'array' | 'object'> = [];
  let expectValue = true;
  skipWhitespace();
  for (;;) {
    if (expectValue) {
      const char = text[index];
      if (char === '{') {
        index++;
        skipWhitespace();
        if (text[index] === '}') {
          index++;
          expectValue = false;
        } else {
          stack.push('object');
          if (text[index] !== '"') return fail(`${describeHere()}, expected a property name`);
          const error = scanString();
          if (error) return error;
          skipWhitespace();
          if (text[index] !== ':') return fail(`${describeHere()}, expected ':'`);
          index++;
          skipWhitespace();
          continue;
        }
      } else if (char === '[') {
        index++;
        skipWhitespace();
        if (text[index] === ']') {
          index++;
          expectValue = false;
        } else {
          stack.push('array');
          continue;
        }
      } else if (char === '"') {
        const error = scanString();
        if (error) return error;
        expectValue = false;
      } else if (char !== undefined && /[-0-9]/.test(char)) {
        const match = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(
          text.slice(index),
        );
        if (!match) return fail(`${describeHere()}, expected a number`);
        index += match[0].length;
        expectValue = false;
      } else {
        const literal = ['true', 'false', 'null'].find((word) => text.startsWith(word, index));
        if (!literal) return fail(`${describeHere()}, expected a value`);
        index += literal.length;
        expectValue = false;
      }
    }
    skipWhitespace();
    const container = stack[stack.length - 1];
    if (container === undefined) {
      if (index < text.length) return fail(`${describeHere()} after the end of the value`);
      // The scanner accepted everything: report the end, which is where JSON.parse gave up.
      return fail('unexpected end of input');
    }
    const char = text[index];
    if (char === ',') {
      index++;
      skipWhitespace();
      if (container === 'object') {
        if (text[index] !== '"') return fail(`${describeHere()}, expected a property name`);
        const error = scanString();
        if (error) return error;
        skipWhitespace();
        if (text[index] !== ':') return fail(`${describeHere()}, expected ':'`);
        index++;
        skipWhitespace();
      }
      expectValue = true;
    } else if (
      (char === '}' && container === 'object') ||
      (char === ']' && container === 'array')
    ) {
      index++;
      stack.pop();
      expectValue = false;
    } else {
      return fail(`${describeHere()}, expected ',' or '${container === 'object' ? '}' : ']'}'`);
    }
  }

  function scanString(): JsonSyntaxError | undefined {
    index++;
    while (index < text.length) {
      const char = text[index]!;
      if (char === '"') {
        index++;
        return undefined;
      }
      if (char === '\\') {
        const escaped = text[index + 1];
        if (escaped === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(index + 2, index + 6))) {
            return fail('invalid unicode escape in string');
          }
          index += 6;
          continue;
        }
        if (escaped === undefined || !'"\\/bfnrt'.includes(escaped)) {
          return fail('invalid escape in string');
        }
        index += 2;
        continue;
      }
      if (char.charCodeAt(0) < 0x20) return fail('control character in string');
      index++;
    }
    return fail('unexpected end of input in string');
  }
}

/** 1-based line and column of an offset in text. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
