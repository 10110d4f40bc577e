/**
 * What a call sends as text: the path filled from its template and parameters, the query
 * string, and a form body. Every value is checked to arrive as the value given: one segment per
 * parameter, no dot segments, no lone surrogates, no `null` sent as "null".
 */
import { UNSAFE_IN_CATCH_ALL } from '../app/routing/path-matcher.js';
import { encodeStaticSegment } from '../http/percent.js';

/**
 * The path of `template` with its parameters: each percent-encoded as one segment, so a value
 * cannot add segments or a query (RFC 3986 §3.3); a catch-all `{rest*}` keeps its slashes. The
 * template's own segments are encoded too, where a segment may not hold them as written.
 * A value the URL would not keep as its own segment throws a TypeError: an empty one, or a dot
 * segment (`.`, `..`), which URL resolution removes along with the segment before it (RFC 3986
 * §5.2.4), so `/users/{id}/sessions/{sid}` with `sid: '..'` would reach `/users/{id}`. A
 * catch-all's value may be empty, but each of its segments is checked the same way, and more:
 * the router must give the value back as it was.
 */
export function fillTemplate(template: string, params: Readonly<Record<string, unknown>>): string {
  return template
    .split('/')
    .map((segment) => {
      const parameter = /^\{([^}*]+)(\*?)\}$/.exec(segment);
      if (parameter === null) return encodeLiteral(template, segment);
      const name = parameter[1] as string;
      if (!Object.hasOwn(params, name) || params[name] === undefined) {
        throw new TypeError(`${template}: the path parameter "${name}" is missing`);
      }
      const value = textOf(`${template}: the path parameter "${name}"`, params[name]);
      if (parameter[2] === '') {
        if (value === '') throw new TypeError(`${template}: the path parameter "${name}" is empty`);
        return encodeSegment(template, name, value);
      }
      // Empty, the catch-all matches the path that ends before it.
      if (value === '') return '';
      return value
        .split('/')
        .map((part) => encodeCatchAllSegment(template, name, part))
        .join('/');
    })
    .join('/');
}

/**
 * One segment of a catch-all's value, refused where the router would not give the value back:
 * it drops an empty segment (`a//b` arrives as `a/b`, `/a` and `a/` as `a`), and a catch-all
 * does not match a segment holding `\` or NUL (docs/application.md, "Registering routes").
 */
function encodeCatchAllSegment(template: string, name: string, segment: string): string {
  if (segment === '') {
    throw new TypeError(
      `${template}: the path parameter "${name}" has an empty segment (a leading, trailing or repeated "/"), which the server drops`,
    );
  }
  if (UNSAFE_IN_CATCH_ALL.test(segment)) {
    throw new TypeError(
      `${template}: the path parameter "${name}" has a segment with "\\" or NUL, which a catch-all does not match`,
    );
  }
  return encodeSegment(template, name, segment);
}

function encodeLiteral(template: string, segment: string): string {
  wellFormed(`${template}: the segment "${segment}"`, segment);
  return encodeStaticSegment(segment);
}

function encodeSegment(template: string, name: string, segment: string): string {
  if (segment === '.' || segment === '..') {
    throw new TypeError(
      `${template}: the path parameter "${name}" has the dot segment "${segment}", which a URL removes`,
    );
  }
  return encodeURIComponent(segment);
}

/**
 * Refuses text holding a lone surrogate (U+D800 to U+DFFF not in a pair), which is no character
 * and has no UTF-8 (RFC 3629 §3): encodeURIComponent throws a URIError for it, and URLSearchParams
 * sends U+FFFD in its place (WHATWG URL, "UTF-8 percent-encode"), another value than the one given.
 */
function wellFormed(what: string, text: string): void {
  if (/\p{Surrogate}/u.test(text)) {
    throw new TypeError(`${what} has a lone surrogate, which UTF-8 cannot encode`);
  }
}

/**
 * A form as `application/x-www-form-urlencoded`. A field set to `undefined` is left out, as in
 * `query`: the types let an optional field be `undefined`, and URLSearchParams would send the
 * text "undefined", which a string field accepts.
 */
/**
 * A value as the text a URL or a form carries it: a string as it is, a number, bigint or boolean
 * as `String()` writes it. Anything else would arrive as text it does not mean (`null` as
 * "null", which a nullable string field accepts; an object as "[object Object]"): a TypeError.
 */
function textOf(what: string, value: unknown): string {
  switch (typeof value) {
    case 'string':
      wellFormed(what, value);
      return value;
    case 'number':
    case 'bigint':
    case 'boolean':
      return String(value);
    default: {
      const kind =
        value === null || value === undefined
          ? String(value)
          : typeof value === 'object'
            ? 'an object'
            : `a ${typeof value}`;
      throw new TypeError(
        `${what} is ${kind}, which has no text to send: give a string or a number`,
      );
    }
  }
}

export function formText(call: string, form: Readonly<Record<string, unknown>>): string {
  const fields = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) {
    if (value === undefined) continue;
    wellFormed(`${call}: the form field name "${name}"`, name);
    fields.append(name, textOf(`${call}: the form field "${name}"`, value));
  }
  return fields.toString();
}

export function queryString(
  call: string,
  query: Readonly<Record<string, unknown>> | undefined,
): string {
  if (query === undefined) return '';
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    wellFormed(`${call}: the query parameter name "${name}"`, name);
    for (const item of Array.isArray(value) ? value : [value]) {
      search.append(name, textOf(`${call}: the query parameter "${name}"`, item));
    }
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}
