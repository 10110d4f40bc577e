/**
 * Dotted paths (`database.port`, `servers[0].host`, `''` for the root): the one notation used by
 * `config.get()`, by references inside interpolations and by every error message.
 */

/** One step of a path: an object key or an array index. */
export type PathSegment = string | number;

/** Why a path could not be read, and the 0-based offset where reading stopped. */
export class PathSyntaxError extends Error {
  override name = 'PathSyntaxError';
  constructor(
    readonly reason: string,
    readonly offset: number,
  ) {
    super(`${reason} at column ${offset + 1}`);
  }
}

/** A key that needs no quoting: anything but the path's own punctuation. */
const PLAIN_KEY = /^[^.[\]"]+$/;

/** Formats segments as a dotted path; keys that contain path punctuation are quoted (`a["b.c"]`). */
export function formatPath(segments: readonly PathSegment[]): string {
  let path = '';
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else if (PLAIN_KEY.test(segment)) path += path === '' ? segment : `.${segment}`;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}

/**
 * Parses a dotted path. `''` is the root. Keys are separated by `.`; `[n]` indexes an array;
 * `["any key"]` (a JSON string) names a key that contains `.`, `[`, `]` or `"`.
 */
export function parsePath(text: string, start = 0): PathSegment[] {
  const segments: PathSegment[] = [];
  let index = start;
  if (index >= text.length) return segments;
  let expectKey = text[index] !== '[';
  for (;;) {
    if (expectKey) {
      let end = index;
      while (end < text.length && !'.[]"'.includes(text[end]!)) end++;
      if (end === index) {
        throw new PathSyntaxError(
          end >= text.length
            ? 'expected a key after "."'
            : `unexpected ${JSON.stringify(text[end])}`,
          end,
        );
      }
      segments.push(text.slice(index, end));
      index = end;
    }
    if (index >= text.length) return segments;
    const char = text[index];
    if (char === '.') {
      index++;
      expectKey = true;
    } else if (char === '[') {
      index = readBracket(text, index, segments);
      expectKey = false;
    } else {
      throw new PathSyntaxError(`unexpected ${JSON.stringify(char)}`, index);
    }
  }
}

function readBracket(text: string, open: number, segments: PathSegment[]): number {
  let index = open + 1;
  if (text[index] === '"') {
    let end = index + 1;
    while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
    if (end >= text.length) throw new PathSyntaxError('unterminated quoted key', text.length);
    let key: unknown;
    try {
      key = JSON.parse(text.slice(index, end + 1));
    } catch {
      throw new PathSyntaxError('invalid quoted key', index);
    }
    segments.push(key as string);
    index = end + 1;
  } else {
    const match = /^(0|[1-9][0-9]*)/.exec(text.slice(index));
    if (!match) throw new PathSyntaxError('expected an array index', index);
    const position = Number(match[1]);
    if (!Number.isSafeInteger(position)) throw new PathSyntaxError('array index too large', index);
    segments.push(position);
    index += match[1]!.length;
  }
  if (text[index] !== ']') {
    throw new PathSyntaxError(
      index >= text.length ? 'expected "]"' : `unexpected ${JSON.stringify(text[index])}`,
      index,
    );
  }
  return index + 1;
}

/** Decodes a JSON Pointer (`/servers/0/host`) into segments, reading indices from `value`. */
export function pointerToSegments(pointer: string, value: unknown): PathSegment[] {
  if (pointer === '') return [];
  const segments: PathSegment[] = [];
  let current = value;
  for (const token of pointer.slice(1).split('/')) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current) && /^(0|[1-9][0-9]*)$/.test(key)) {
      const position = Number(key);
      segments.push(position);
      current = current[position];
    } else {
      segments.push(key);
      current =
        typeof current === 'object' && current !== null && Object.hasOwn(current, key)
          ? (current as Record<string, unknown>)[key]
          : undefined;
    }
  }
  return segments;
}

/** The value at `segments` inside `value`, or `undefined` when there is none. */
export function valueAt(value: unknown, segments: readonly PathSegment[]): unknown {
  let current = value;
  for (const segment of segments) {
    if (typeof segment === 'number') {
      if (!Array.isArray(current)) return undefined;
      current = current[segment];
    } else {
      if (typeof current !== 'object' || current === null || Array.isArray(current))
        return undefined;
      if (!Object.hasOwn(current, segment)) return undefined;
      current = (current as Record<string, unknown>)[segment];
    }
  }
  return current;
}
