/**
 * An operation's request body (OpenAPI 3.1 §4.8.13): its media types and schemas from the body
 * names and validators the route reaches, uploads included, and whether a request may leave it
 * out.
 */
import { FORM_MEDIA_TYPE, JSON_MEDIA_TYPE } from '../app/inject/body-parsers.js';
import type { StandardSchemaV1, ValidationSource } from '../app/inject/validation.js';
import type { ScopedRoute } from '../app/routing/routing-table.js';
import { MULTIPART_MEDIA_TYPE } from '../app/uploads/limits.js';
import type { NamedSchema, OperationContext } from './operation-context.js';
import type { JsonSchema } from './types.js';

/**
 * Whether a request may leave the body out: the route reads JSON only through validators that
 * each accept `undefined`, which is what they are given for a request without content
 * (docs/application.md, "Request bodies"). Any other way of reading a body refuses its absence.
 */
export function bodyOptional(
  content: Record<string, unknown>,
  reached: ReadonlySet<string>,
  schemas: ReadonlyMap<ValidationSource, readonly NamedSchema[]>,
): boolean {
  const validators = schemas.get('jsonBody') ?? [];
  const types = Object.keys(content);
  return (
    validators.length > 0 &&
    !reached.has('jsonBody') &&
    types.length === 1 &&
    types[0] === JSON_MEDIA_TYPE &&
    validators.every(({ schema }) => acceptsNothing(schema))
  );
}

/**
 * Whether `schema` accepts `undefined`. Only an answer given at once counts: the document is
 * built synchronously, so an asynchronous validator (or one that throws) leaves the body required.
 */
function acceptsNothing(schema: StandardSchemaV1): boolean {
  try {
    const result = schema['~standard'].validate(undefined);
    if (result instanceof Promise) {
      result.catch(() => undefined);
      return false;
    }
    return result.issues === undefined;
  } catch {
    return false;
  }
}

/** Names that read the request's content (docs/application.md, "Request bodies"; uploads). */
const BODY_NAMES = ['jsonBody', 'formBody', 'body', 'parsedBody', 'files', 'parts'];

/** Whether the route reads its request's content: what `requestBody()` would document. */
export function readsBody(
  scoped: ScopedRoute,
  reached: ReadonlySet<string>,
  schemas: ReadonlyMap<ValidationSource, readonly NamedSchema[]>,
): boolean {
  return (
    schemas.has('jsonBody') ||
    schemas.has('formBody') ||
    scoped.compiled.uploads !== undefined ||
    BODY_NAMES.some((name) => reached.has(name))
  );
}

/** The request body's media types, from the body names and validators the route reaches. */
export function requestBody(
  scoped: ScopedRoute,
  reached: ReadonlySet<string>,
  schemas: ReadonlyMap<ValidationSource, readonly NamedSchema[]>,
  context: OperationContext,
  where: string,
): Record<string, { schema: JsonSchema }> | undefined {
  const content: Record<string, { schema: JsonSchema }> = {};
  for (const [source, mediaType] of [
    ['jsonBody', JSON_MEDIA_TYPE],
    ['formBody', FORM_MEDIA_TYPE],
  ] as const) {
    const named = (schemas.get(source) ?? []).map(({ name, schema }) =>
      context.schemas.named(schema, name, `${where} ${name}`),
    );
    // A body that several validators check must satisfy each of them.
    if (named.length > 1) content[mediaType] = { schema: { allOf: named } };
    else if (named[0] !== undefined) content[mediaType] = { schema: named[0] };
    else if (reached.has(source)) content[mediaType] = { schema: {} };
  }
  if (scoped.compiled.uploads !== undefined) {
    const fields = content[FORM_MEDIA_TYPE];
    // A route that receives the whole form takes an urlencoded one too, its `files` empty; one
    // reading `parts` takes multipart only (docs/uploads.md).
    if (!reached.has('parts')) content[FORM_MEDIA_TYPE] ??= { schema: {} };
    content[MULTIPART_MEDIA_TYPE] = { schema: uploadSchema(fields, reached, context) };
  }
  if (reached.has('parsedBody')) {
    for (const mediaType of scoped.compiled.accept.split(', ')) {
      content[mediaType] ??= { schema: {} };
    }
  }
  if (reached.has('body')) content['*/*'] ??= { schema: {} };
  return Object.keys(content).length === 0 ? undefined : content;
}

const FILE: JsonSchema = { type: 'string', contentMediaType: 'application/octet-stream' };

/**
 * A `multipart/form-data` body (docs/uploads.md): the text fields `formBody`'s validator names,
 * and for a route that reads `files` or `parts`, any other field may be a file (OpenAPI 3.1
 * describes binary content with `contentMediaType`).
 */
function uploadSchema(
  fields: { schema: JsonSchema } | undefined,
  reached: ReadonlySet<string>,
  context: OperationContext,
): JsonSchema {
  const text = fields?.schema ?? { type: 'object' };
  if (!reached.has('files') && !reached.has('parts')) return text;
  const files: JsonSchema = { type: 'object', additionalProperties: FILE };
  if (fields === undefined) return files;
  // A validator sees the text fields only, files never: one that forbids other fields still
  // lets files through. As its component forbids every field it does not name, files
  // included, its fields are written out here, with files as the other properties.
  const members = (text.allOf as JsonSchema[] | undefined) ?? [text];
  const resolved = members.map((member) => context.schemas.resolve(member));
  const closed = resolved.filter((member) => member.additionalProperties === false);
  if (closed.length === 0) return { allOf: [text, files] };
  const open = members.filter((_, i) => resolved[i]?.additionalProperties !== false);
  return open.length === 0 ? closedFields(closed) : { allOf: [...open, closedFields(closed)] };
}

/**
 * The text fields validators that forbid any other field allow together (the fields each of them
 * names, checked by each), beside which any other field is a file.
 */
function closedFields(closed: JsonSchema[]): JsonSchema {
  const propertiesOf = (member: JsonSchema) =>
    (member.properties ?? {}) as Record<string, JsonSchema>;
  const keys = Object.keys(propertiesOf(closed[0] as JsonSchema)).filter((key) =>
    closed.every((member) => Object.hasOwn(propertiesOf(member), key)),
  );
  // fromEntries: a field named `__proto__` is a property like any other.
  const properties = Object.fromEntries(
    keys.map((key) => {
      const each = closed.map((member) => propertiesOf(member)[key]);
      return [key, each.length === 1 ? each[0] : { allOf: each }];
    }),
  );
  const required = [...new Set(closed.flatMap((member) => (member.required ?? []) as string[]))];
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: FILE,
  };
}
