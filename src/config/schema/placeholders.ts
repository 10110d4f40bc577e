/**
 * The schema `validateRaw` uses. Before resolution a placeholder's value is unknown, so a value
 * that is wholly an interpolation (`port: ${env:PORT}`) must pass whatever schema applies where
 * it stands, while structure (`required`, `additionalProperties`, ...) and literal values are
 * still checked.
 *
 * Placeholders are replaced in the instance by sentinel strings, and every subschema `S` becomes
 *
 * ```json
 * { <S's identifiers and definitions>, "if": { "x-restmachine-placeholder": true },
 *   "then": true, "else": { <the rest of S> } }
 * ```
 *
 * so a whole placeholder short-circuits every check at its place, wherever `S` was reached from
 * (`properties`, `items`, `$ref` targets, combinators). Text that mixes interpolations with
 * literal text (`http://${env:HOST}/`) is certainly a string whose text is not known yet: it
 * goes through the rest of `S` like any value, so `type`, `const` and `enum` are checked
 * however they are reached (inline, through `$ref`, `allOf`, ...), while the keywords that
 * read a string's text (`minLength`, `maxLength`, `pattern`, `format`) pass it: they are
 * renamed to keywords of ours that skip mixed text and otherwise check as the original would.
 * Identifiers (`$id`, `$anchor`),
 * `definitions`/`$defs` and unknown keywords stay where they were, and JSON-pointer `$ref`s are
 * rewritten to follow the moved keywords, so references keep working.
 *
 * `const` and `enum` treat a placeholder inside an object or list as equal to anything, and
 * mixed text as equal to any string.
 *
 * Known limits: a placeholder passes every subschema, so a `oneOf` whose branches differ only in
 * the placeholder's value matches more than one branch, and a `not` around it fails; Ajv's
 * built-in meta-schemas are not rewritten, so a placeholder checked against one (a
 * configuration that holds a schema) is not accepted.
 */

import type { Ajv, ErrorObject, SchemaValidateFunction } from 'ajv';
import { isKnownKeyword, pointerStateAfter, rewriteSchema } from './walk.js';

export const PLACEHOLDER_KEYWORD = 'x-restmachine-placeholder';

/** Prefix of the sentinel standing for a value that is wholly one interpolation. */
export const WHOLE_PLACEHOLDER = '\u0000restmachine:placeholder:';
/** Prefix of the sentinel standing for text that mixes interpolations and literal text. */
export const TEXT_PLACEHOLDER = '\u0000restmachine:text:';

/** Keywords that identify or hold a schema rather than check the instance: they stay in place. */
const STAYS = new Set([
  '$id',
  '$schema',
  '$anchor',
  '$dynamicAnchor',
  '$recursiveAnchor',
  '$vocabulary',
  '$comment',
  'definitions',
  '$defs',
  'title',
  'description',
  'default',
  'examples',
]);
const REFERENCES = new Set(['$ref', '$recursiveRef', '$dynamicRef']);

/**
 * `const` and `enum` become these, which compare with placeholders as wildcards: an object
 * holding a placeholder may equal the constant once resolved.
 */
const CONST_KEYWORD = 'x-restmachine-const';
const ENUM_KEYWORD = 'x-restmachine-enum';
/** Keywords that read a string's text, which mixed text does not have before resolution. */
const TEXT_KEYWORDS = ['minLength', 'maxLength', 'pattern', 'format'] as const;
const textKeyword = (keyword: string): string => `x-restmachine-text-${keyword}`;
const RENAMED: Readonly<Record<string, string>> = {
  const: CONST_KEYWORD,
  enum: ENUM_KEYWORD,
  ...Object.fromEntries(TEXT_KEYWORDS.map((keyword) => [keyword, textKeyword(keyword)])),
};

const isMixedText = (data: unknown): boolean =>
  typeof data === 'string' && data.startsWith(TEXT_PLACEHOLDER);

/** Deep equality in which a placeholder equals anything it could resolve to. */
function mayEqual(expected: unknown, data: unknown): boolean {
  if (typeof data === 'string') {
    if (data.startsWith(WHOLE_PLACEHOLDER)) return true;
    if (isMixedText(data)) return typeof expected === 'string';
  }
  if (Array.isArray(expected)) {
    return (
      Array.isArray(data) &&
      data.length === expected.length &&
      expected.every((item, index) => mayEqual(item, data[index]))
    );
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return false;
    const keys = Object.keys(expected);
    return (
      keys.length === Object.keys(data).length &&
      keys.every(
        (key) =>
          Object.hasOwn(data, key) &&
          mayEqual(
            (expected as Record<string, unknown>)[key],
            (data as Record<string, unknown>)[key],
          ),
      )
    );
  }
  return expected === data;
}

/** Registers the keywords that recognise sentinels. */
export function addPlaceholderKeywords(validator: InstanceType<typeof Ajv>): void {
  validator.addKeyword({
    keyword: PLACEHOLDER_KEYWORD,
    errors: false,
    validate: (_schema: unknown, data: unknown) =>
      typeof data === 'string' && data.startsWith(WHOLE_PLACEHOLDER),
  });
  // Each text keyword checks with the original keyword, compiled alone on the same validator
  // (same formats and options), unless the value is mixed text.
  for (const keyword of TEXT_KEYWORDS) {
    validator.addKeyword({
      keyword: textKeyword(keyword),
      errors: true,
      compile: (value: unknown, parentSchema, context) => {
        const original = context.self.compile({ [keyword]: value });
        const check: SchemaValidateFunction = (data: unknown) => {
          if (isMixedText(data) || original(data)) return true;
          check.errors = (original.errors ?? []).map(({ params, message }: ErrorObject) => ({
            keyword,
            params,
            message,
            parentSchema,
          }));
          return false;
        };
        return check;
      },
    });
  }
  // Failures are reported under the original keywords, so messages read as usual.
  const constant: SchemaValidateFunction = (expected, data, parentSchema) => {
    if (mayEqual(expected, data)) return true;
    constant.errors = [{ keyword: 'const', params: { allowedValue: expected }, parentSchema }];
    return false;
  };
  const enumeration: SchemaValidateFunction = (allowed: unknown[], data, parentSchema) => {
    if (allowed.some((value) => mayEqual(value, data))) return true;
    enumeration.errors = [{ keyword: 'enum', params: { allowedValues: allowed }, parentSchema }];
    return false;
  };
  validator.addKeyword({ keyword: CONST_KEYWORD, errors: true, validate: constant });
  validator.addKeyword({
    keyword: ENUM_KEYWORD,
    schemaType: 'array',
    errors: true,
    validate: enumeration,
  });
}

/**
 * Rewrites a schema for raw validation. `originals` learns, for each rewritten subschema, the
 * subschema as written (messages print it).
 */
export function withPlaceholders(schema: unknown, originals: WeakMap<object, unknown>): unknown {
  return rewriteSchema(schema, (copy, original) => {
    const kept: Record<string, unknown> = {};
    const moved: Record<string, unknown> = {};
    for (const [keyword, value] of Object.entries(copy)) {
      const rewritten =
        REFERENCES.has(keyword) && typeof value === 'string' ? rewriteReference(value) : value;
      // Unknown keywords check nothing; they stay where pointers expect them.
      if (STAYS.has(keyword) || !isKnownKeyword(keyword)) kept[keyword] = rewritten;
      else moved[RENAMED[keyword] ?? keyword] = rewritten;
    }
    const wrapper = {
      ...kept,
      if: { [PLACEHOLDER_KEYWORD]: true },
      // biome-ignore lint/suspicious/noThenProperty: "then" is the JSON Schema keyword here.
      then: true,
      else: moved,
    };
    originals.set(wrapper, original);
    return wrapper;
  });
}

/** Follows a JSON-pointer fragment through the rewritten layout (`/properties/a` → `/else/properties/a`). */
export function rewriteReference(reference: string): string {
  const hash = reference.indexOf('#');
  if (hash < 0 || reference[hash + 1] !== '/') return reference;
  const tokens = reference.slice(hash + 2).split('/');
  const rewritten: string[] = [];
  let state: ReturnType<typeof pointerStateAfter> = 'schema';
  for (const token of tokens) {
    if (state === 'verbatim') {
      rewritten.push(token);
    } else if (state === 'member') {
      rewritten.push(token);
      state = 'schema';
    } else if (state === 'items' && /^[0-9]+$/.test(token)) {
      // `items/0` is the list form; anything else is a keyword of the single-schema form.
      rewritten.push(token);
      state = 'schema';
    } else {
      if (!STAYS.has(token) && isKnownKeyword(token)) rewritten.push('else');
      rewritten.push(token);
      state = pointerStateAfter(token);
    }
  }
  return `${reference.slice(0, hash)}#/${rewritten.join('/')}`;
}
