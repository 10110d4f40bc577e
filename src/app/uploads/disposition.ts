/**
 * A part's field name and filename, read from its `Content-Disposition` here rather than taken
 * from the parser, which reads backslash escapes and never reverses percent-escapes.
 *
 * The encoding read is the one the HTML standard's multipart/form-data encoder writes, which
 * every browser, `fetch()`'s FormData and curl (7.81 and later) send: a quoted value ends at the
 * first `"` (a backslash is a character like any other), and `"`, CR and LF in a name are sent
 * as `%22`, `%0D` and `%0A`, the only escapes the encoder makes, so only those are decoded (as
 * the Fetch standard's own parser, `Request.formData()`, does). A `name*` or `filename*`
 * ext-value (RFC 8187 §3.2) wins over `name` or `filename`. The bytes of a name are UTF-8
 * (RFC 7578 §5.1): others are refused, never read as U+FFFD, where two names could become one.
 *
 * A parameter given twice, or a second Content-Disposition, is refused (RFC 6266 §4.1): readers
 * disagree on which one counts, so `filename="cat.jpg"; filename="shell.php"` would be one file
 * to a filter in front and another here.
 */
import { HttpError } from '../../errors.js';
import { charsetDecoder } from '../../http/charset.js';
import { malformed, nameNotUtf8 } from './multipart-checks.js';
import { notFormData } from './parse-errors.js';

/** What a part's disposition names. */
export interface PartNames {
  readonly field: string;
  readonly filename: string | undefined;
}

// RFC 9110 §5.6.2 token; an ext-value (charset'language'pct-encoded) is made of token characters.
const TOKEN = /[!#$%&'*+\-.^_`|~0-9A-Za-z]+/y;
const SPACES = /[ \t]*/y;
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

function repeated(parameter: string): HttpError {
  return new HttpError(
    400,
    `A multipart part's Content-Disposition gives the ${parameter} parameter more than once`,
  );
}

function unreadable(text: string): HttpError {
  return malformed(
    new Error(`a part's Content-Disposition cannot be read: ${JSON.stringify(text)}`),
  );
}

/** `header` from `at`, matched by a sticky `pattern`: the text and where it ends. */
function match(pattern: RegExp, header: string, at: number): [string, number] {
  pattern.lastIndex = at;
  const text = pattern.exec(header)?.[0] ?? '';
  return [text, at + text.length];
}

/**
 * The parameters after the disposition type, by lower-case name, as sent (the header's bytes as
 * latin1 text); `undefined` when the header does not follow the grammar.
 */
function parameters(header: string, from: number): Map<string, string> | undefined {
  const found = new Map<string, string>();
  let at = match(SPACES, header, from)[1];
  while (at < header.length) {
    if (header[at] !== ';') return undefined;
    at = match(SPACES, header, at + 1)[1];
    if (at === header.length) break;
    const [name, afterName] = match(TOKEN, header, at);
    at = match(SPACES, header, afterName)[1];
    if (name === '' || header[at] !== '=') return undefined;
    at = match(SPACES, header, at + 1)[1];
    let value: string;
    if (header[at] === '"') {
      // The encoder escapes no quote with a backslash: the first `"` closes the value.
      const close = header.indexOf('"', at + 1);
      if (close === -1) return undefined;
      value = header.slice(at + 1, close);
      at = close + 1;
    } else {
      [value, at] = match(TOKEN, header, at);
      if (value === '') return undefined;
    }
    const key = name.toLowerCase();
    if (found.has(key)) throw repeated(key);
    found.set(key, value);
    at = match(SPACES, header, at)[1];
  }
  return found;
}

/** A quoted or token value: UTF-8 bytes with the encoder's three escapes. */
function plainValue(value: string): string {
  let text: string;
  try {
    text = STRICT_UTF8.decode(Buffer.from(value, 'latin1'));
  } catch {
    throw nameNotUtf8();
  }
  return text.replace(/%0A/gi, '\n').replace(/%0D/gi, '\r').replace(/%22/g, '"');
}

/** An RFC 8187 §3.2 ext-value, `charset'language'pct-encoded`, in its charset. */
function extendedValue(value: string): string {
  const parts = /^([^']*)'[^']*'(.*)$/.exec(value);
  if (parts === null) throw unreadable(value);
  const bytes = Buffer.from(
    (parts[2] as string).replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    ),
    'latin1',
  );
  // The charset labels a body's Content-Type may declare (http/charset.ts).
  const decoder = charsetDecoder(`text/plain; charset=${parts[1]}`);
  if (decoder === null) throw unreadable(value);
  try {
    return (decoder ?? STRICT_UTF8).decode(bytes);
  } catch {
    throw nameNotUtf8();
  }
}

/** The last path segment: a filename carries no directory (RFC 7578 §4.2), nor `.` or `..`. */
function basename(filename: string): string {
  const name = filename.slice(Math.max(filename.lastIndexOf('/'), filename.lastIndexOf('\\')) + 1);
  return name === '.' || name === '..' ? '' : name;
}

/**
 * The field name and filename the `Content-Disposition` lines of a part give (as the parser
 * read them: each line's bytes as latin1 text), or the 400 that refuses the part.
 */
export function readDisposition(lines: readonly string[] | undefined): PartNames {
  if (lines === undefined || lines.length === 0) throw notFormData();
  if (lines.length > 1) {
    throw new HttpError(400, 'A multipart part has more than one Content-Disposition');
  }
  const header = lines[0] as string;
  const [type, afterType] = match(TOKEN, header, 0);
  if (type.toLowerCase() !== 'form-data') throw notFormData();
  const found = parameters(header, afterType);
  if (found === undefined) throw unreadable(header);
  const value = (name: string): string | undefined => {
    const extended = found.get(`${name}*`);
    if (extended !== undefined) return extendedValue(extended);
    const plain = found.get(name);
    return plain === undefined ? undefined : plainValue(plain);
  };
  const field = value('name');
  if (field === undefined) throw notFormData();
  const filename = value('filename');
  return { field, filename: filename === undefined ? undefined : basename(filename) };
}
