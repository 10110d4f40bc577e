/**
 * The `Vary` response header (RFC 9110 §12.5.5): the request headers a response depends on.
 */
import { MultiValueHeaders } from './headers.js';

/**
 * Adds `name` to `Vary` unless it is already listed (in any case, on any field line) or `Vary`
 * is `*`, which already says the response varies on everything. A single existing field line
 * is extended (`Vary: Accept, Origin`), which RFC 9110 §5.3 makes equivalent to two lines and
 * which Node writes and validates once. `name` is a header name (a token: every caller passes a
 * constant or a name checked at registration), so the line needs no validation again.
 *
 * @example
 * addVary(response.headers, 'Origin');
 */
export function addVary(headers: MultiValueHeaders, name: string): void {
  const lines = headers.getAll('vary');
  for (const line of lines) if (listsMember(line, name)) return;
  if (lines.length === 0) MultiValueHeaders.setTrusted(headers, 'Vary', 'vary', name);
  else if (lines.length === 1) {
    MultiValueHeaders.setTrusted(headers, 'Vary', 'vary', `${lines[0]}, ${name}`);
  } else headers.add('Vary', name);
}

/**
 * A fixed list of names to add to `Vary`, such as a route's (`Authorization` for its
 * authorization hooks, `Origin` for CORS), with what each `Vary` line already seen became: the
 * lines a route's responses carry are nearly always the same few (`Accept`, or none), so the
 * list is merged into each once instead of scanned on every response.
 */
export class VaryMembers {
  readonly names: readonly string[];
  readonly #line: string;
  readonly #merged = new Map<string, string>();

  constructor(names: readonly string[]) {
    // Each name once, as addVary would list it (the first casing kept).
    const seen = new Set<string>();
    const unique: string[] = [];
    for (const name of names) {
      const key = name.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      unique.push(name);
    }
    this.names = unique;
    this.#line = this.names.join(', ');
  }

  /** Adds every name to `Vary`, as `addVary` does for each. */
  addTo(headers: MultiValueHeaders): void {
    const lines = headers.getAll('vary');
    if (lines.length === 0) {
      MultiValueHeaders.setTrusted(headers, 'Vary', 'vary', this.#line);
    } else if (lines.length === 1) {
      const line = lines[0] as string;
      let merged = this.#merged.get(line);
      if (merged === undefined) {
        merged = line;
        for (const name of this.names) if (!listsMember(merged, name)) merged += `, ${name}`;
        // A handler may set lines of its own; only so many are remembered.
        if (this.#merged.size < 16) this.#merged.set(line, merged);
      }
      if (merged !== line) MultiValueHeaders.setTrusted(headers, 'Vary', 'vary', merged);
    } else {
      for (const name of this.names) addVary(headers, name);
    }
  }
}

function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/**
 * Whether the comma-separated `line` lists `name` (case-insensitively) or `*`. It scans the
 * line in place: this runs for every response of a route with CORS or negotiation.
 */
function listsMember(line: string, name: string): boolean {
  let start = 0;
  while (start <= line.length) {
    let end = line.indexOf(',', start);
    if (end === -1) end = line.length;
    let first = start;
    let last = end;
    while (first < last && isWhitespace(line.charCodeAt(first))) first++;
    while (last > first && isWhitespace(line.charCodeAt(last - 1))) last--;
    const length = last - first;
    if (length === 1 && line.charCodeAt(first) === 0x2a /* * */) return true;
    if (length === name.length && line.slice(first, last).toLowerCase() === name.toLowerCase()) {
      return true;
    }
    start = end + 1;
  }
  return false;
}
