/**
 * One route as an OpenAPI Operation Object (OpenAPI 3.1 §4.8.10): parameters and request body
 * from the validators it reaches, responses from `returns()` and from the pipeline steps it
 * goes through (docs/http-semantics.md).
 */
import { type AuthorizationHook, hooksFor } from '../app/features/authorization.js';
import type { Binding } from '../app/inject/bindings.js';
import { FORM_MEDIA_TYPE, JSON_MEDIA_TYPE } from '../app/inject/body-parsers.js';
import type { Injectable } from '../app/inject/handler-parameters.js';
import type { StandardSchemaV1, ValidationSource } from '../app/inject/validation.js';
import {
  DOCS_SETTING,
  type DocumentedResponse,
  type RouteDescription,
} from '../app/routing/route-docs.js';
import type { ScopedRoute } from '../app/routing/routing-table.js';
import { MULTIPART_MEDIA_TYPE } from '../app/uploads/limits.js';
import { SetupError } from '../errors.js';
import { parseMediaType } from '../http/media-type.js';
import { reasonPhrase } from '../http/status.js';
import { conditionalParameters } from './conditional-parameters.js';
import { objectProperties, type Property } from './properties.js';
import type { PipelineStatus } from './responses.js';
import type { SchemaConverter } from './schemas.js';
import type { JsonSchema, OpenApiOperation, OpenApiParameter, OpenApiResponse } from './types.js';

/** What the operation needs from the document being built. */
export interface OperationContext {
  schemas: SchemaConverter;
  /** Records a pipeline response as used; gives its reference. */
  pipelineResponse(status: PipelineStatus): OpenApiResponse;
  /** The security scheme name documenting `hook` (registered on first use). */
  securityScheme(hook: AuthorizationHook): string;
  /** Whether the application registers renderers of its own. */
  appRenderers: boolean;
  autoEtag: boolean;
  /** Logs `message` once per `subject` (a route, a validator) for the life of the process. */
  warnOnce(subject: object, message: string): void;
}

/**
 * OpenAPI 3.1, Parameter Object, field `name`: header parameters named Accept, Content-Type or Authorization are
 * ignored; the document says the same through content types and security schemes.
 */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

/** The binding names `roots` reach through the providers that inject them. */
function reach(bindings: ReadonlyMap<string, Binding>, roots: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    const name = stack.pop() as string;
    if (seen.has(name)) continue;
    seen.add(name);
    const binding = bindings.get(name);
    if (binding !== undefined && 'injectable' in binding) stack.push(...binding.injectable.names);
  }
  return seen;
}

/** A validator and the name it was registered under. */
interface NamedSchema {
  name: string;
  schema: StandardSchemaV1;
}

export function buildOperation(scoped: ScopedRoute, context: OperationContext): OpenApiOperation {
  const { compiled, bindings } = scoped;
  const { route, template, paramNames } = compiled;
  const where = `${route.method} ${template}`;
  const description = (route.settings[DOCS_SETTING.describe] ?? {}) as RouteDescription;
  const etag = route.settings.etag as Injectable | undefined;
  const lastModified = route.settings.lastModified as Injectable | undefined;
  const providers = [...(etag?.names ?? []), ...(lastModified?.names ?? [])];
  // Everything the route runs: what its handler, providers and renderers inject, and the global
  // hooks (a router's guard everything it holds), each with what it injects in turn: a hook's
  // own validators and `resourceExists` answer for the route as the handler's do.
  const reached = reach(bindings, [
    ...route.handler.names,
    ...providers,
    ...compiled.renderers.flatMap((renderer) => renderer.names),
    ...scoped.authorizationHooks.filter((hook) => hook.global).map((hook) => hook.name),
  ]);
  // Every validator of each source: several that read one part must all pass.
  const schemas = new Map<ValidationSource, NamedSchema[]>();
  let validated = false;
  let exists = false;
  // In the order the names were registered: a part's validators are listed as they were added.
  for (const [name, binding] of bindings) {
    if (!reached.has(name)) continue;
    if (binding.kind === 'schema') {
      validated = true;
      const list = schemas.get(binding.source) ?? [];
      list.push({ name, schema: binding.schema });
      schemas.set(binding.source, list);
    } else if (binding.kind === 'validator') {
      validated = true;
      context.warnOnce(
        binding.injectable,
        `${where}: the validator "${name}" is a function, with no JSON Schema; what it checks is not described (a body it reads is documented as {})`,
      );
    } else if (binding.kind === 'exists') exists = true;
  }

  const operation: OpenApiOperation = { responses: {} };
  if (description.summary !== undefined) operation.summary = description.summary;
  if (description.description !== undefined) operation.description = description.description;
  if (description.tags !== undefined) operation.tags = [...description.tags];
  if (description.operationId !== undefined) {
    // OpenAPI 3.1 §4.8.10: an operationId names the operation for tools; an empty one names none.
    if (description.operationId === '') {
      throw new SetupError('INVALID_OPTION', `describe() of ${where}: operationId is empty`);
    }
    operation.operationId = description.operationId;
  }
  if (description.deprecated !== undefined) operation.deprecated = description.deprecated;

  const parameters = pathParameters(paramNames, schemas.get('pathParams'), context, where);
  for (const [source, location] of [
    ['queryParams', 'query'],
    ['headers', 'header'],
  ] as const) {
    for (const [name, property, required] of sourceProperties(
      schemas.get(source),
      context,
      where,
    )) {
      if (location === 'header' && IGNORED_HEADERS.has(name.toLowerCase())) continue;
      parameters.push({ name, in: location, required, schema: property });
    }
  }
  const declared = new Set(parameters.map((p) => `${p.in}:${p.name.toLowerCase()}`));
  const read = route.method === 'GET' || route.method === 'HEAD';
  // With `etag: 'auto'`, GET and HEAD answers get an ETag after the handler (docs/http-semantics.md).
  const tagged = etag !== undefined || (context.autoEtag && read);
  for (const parameter of conditionalParameters(route.method, tagged, !!lastModified)) {
    // OpenAPI 3.1 §4.8.10: a parameter is unique by name and location.
    if (!declared.has(`header:${parameter.name.toLowerCase()}`)) parameters.push(parameter);
  }
  if (parameters.length > 0) operation.parameters = parameters;

  // RFC 9110 §9.3.1: content in a GET request has no defined semantics, and fetch (so browsers,
  // Swagger UI and the typed client) cannot send one: a body such a route reads is left out.
  const body = read ? undefined : requestBody(scoped, reached, schemas, context, where);
  if (read && readsBody(scoped, reached, schemas)) {
    context.warnOnce(
      route,
      `${where} reads a request body, which a ${route.method} request has no defined use for (RFC 9110 §9.3.1) and fetch cannot send; none is documented: read the input from the query instead`,
    );
  }
  if (body !== undefined) {
    operation.requestBody = { required: !bodyOptional(body, reached, schemas), content: body };
  }

  const statuses: PipelineStatus[] = [];
  const hooks = hooksFor(scoped.authorizationHooks, reached);
  const authorized = hooks.filter((hook) => hook.kind === 'authorized');
  if (authorized.length > 0) {
    statuses.push(401);
    // Every hook must pass: one requirement naming them all (OpenAPI 3.1 §4.8.30).
    operation.security = [
      Object.fromEntries(authorized.map((hook) => [context.securityScheme(hook), []])),
    ];
  }
  if (hooks.some((hook) => hook.kind === 'forbidden')) statuses.push(403);
  if (exists) statuses.push(404);
  // A route without negotiation (a static router's files) sends what it has, never a 406.
  const negotiates = route.settings.negotiation !== false;
  if (negotiates && (route.renderers.size > 0 || context.appRenderers)) statuses.push(406);
  if (tagged || lastModified !== undefined) {
    // RFC 9110 §13.1: 304 answers only GET and HEAD; 412 any method with If-Match or
    // If-Unmodified-Since.
    if (read) statuses.push(304);
    statuses.push(412);
  }
  // A 400 answers a malformed body (JSON, charset, a body cut short) and a malformed
  // percent-encoding in a path parameter's value.
  if (body !== undefined || paramNames.length > 0) statuses.push(400);
  if (body !== undefined) statuses.push(413, 415);
  if (validated) statuses.push(422);

  const returned = route.settings[DOCS_SETTING.returns] as
    | ReadonlyMap<number, DocumentedResponse>
    | undefined;
  // What `provides()` renders or declares (the route's, its routers' and the application's) is
  // sent for a declared success too, to a client that asks for it: its types join the declared one.
  const provided = compiled.renderers
    .filter((renderer) => renderer.builtin === undefined)
    .map((renderer) => renderer.contentType);
  for (const declaration of returned?.values() ?? []) {
    const response = declaredResponse(declaration, context, where);
    if (response.content !== undefined && declaration.status < 300) {
      for (const type of provided) response.content[type] ??= {};
    }
    operation.responses[String(declaration.status)] = response;
  }
  if (returned === undefined || ![...returned.keys()].some((status) => status < 400)) {
    // OpenAPI 3.1 §4.8.16: at least one response; the handler's own is undeclared.
    operation.responses['200'] ??= { description: reasonPhrase(200) };
  }
  for (const status of statuses.sort((a, b) => a - b)) {
    operation.responses[String(status)] ??= context.pipelineResponse(status);
  }
  return operation;
}

/**
 * Whether a request may leave the body out: the route reads JSON only through validators that
 * each accept `undefined`, which is what they are given for a request without content
 * (docs/application.md, "Request bodies"). Any other way of reading a body refuses its absence.
 */
function bodyOptional(
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

/**
 * The properties the validators of one source name, each once (the first validator's schema),
 * required when any of them requires it. A validator whose schema names no properties (a
 * record, say) documents none, and the log says so once.
 */
function sourceProperties(
  validators: readonly NamedSchema[] | undefined,
  context: OperationContext,
  where: string,
): Property[] {
  const properties = new Map<string, Property>();
  const resolve = (schema: JsonSchema) => context.schemas.resolve(schema);
  for (const { name: validator, schema } of validators ?? []) {
    const converted = context.schemas.convert(schema, 'input', `${where} ${validator}`);
    const found = objectProperties(converted, resolve);
    // `{}` is a schema the converter could not give, and has been warned about already.
    if (found === undefined && Object.keys(resolve(converted)).length > 0) {
      context.warnOnce(
        schema,
        `${where} ${validator}: its schema names no properties, so no parameters are documented for it`,
      );
    }
    for (const [name, property, required] of found ?? []) {
      const known = properties.get(name);
      properties.set(name, [name, known?.[1] ?? property, (known?.[2] ?? false) || required]);
    }
  }
  return [...properties.values()];
}

function pathParameters(
  names: readonly string[],
  validators: readonly NamedSchema[] | undefined,
  context: OperationContext,
  where: string,
): OpenApiParameter[] {
  const properties = new Map<string, JsonSchema>();
  for (const [name, property] of sourceProperties(validators, context, where)) {
    properties.set(name, property);
  }
  // OpenAPI 3.1, Parameter Object, field `required`: true for every path parameter.
  return names.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: properties.get(name) ?? { type: 'string' },
  }));
}

/** Names that read the request's content (docs/application.md, "Request bodies"; uploads). */
const BODY_NAMES = ['jsonBody', 'formBody', 'body', 'parsedBody', 'files', 'parts'];

/** Whether the route reads its request's content: what `requestBody()` would document. */
function readsBody(
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
function requestBody(
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
    content[MULTIPART_MEDIA_TYPE] = { schema: uploadSchema(fields, reached) };
  }
  if (reached.has('parsedBody')) {
    for (const mediaType of scoped.compiled.accept.split(', ')) {
      content[mediaType] ??= { schema: {} };
    }
  }
  if (reached.has('body')) content['*/*'] ??= { schema: {} };
  return Object.keys(content).length === 0 ? undefined : content;
}

/**
 * A `multipart/form-data` body (docs/uploads.md): the text fields `formBody`'s validator names,
 * and for a route that reads `files` or `parts`, any other field may be a file (OpenAPI 3.1
 * describes binary content with `contentMediaType`).
 */
function uploadSchema(
  fields: { schema: JsonSchema } | undefined,
  reached: ReadonlySet<string>,
): JsonSchema {
  const text = fields?.schema ?? { type: 'object' };
  if (!reached.has('files') && !reached.has('parts')) return text;
  const files: JsonSchema = {
    type: 'object',
    additionalProperties: { type: 'string', contentMediaType: 'application/octet-stream' },
  };
  return fields === undefined ? files : { allOf: [text, files] };
}

function declaredResponse(
  declaration: DocumentedResponse,
  context: OperationContext,
  where: string,
): Exclude<OpenApiResponse, { $ref: string }> {
  // OpenAPI 3.1 §4.8.14: the keys of `content` are media types or media ranges.
  if (parseMediaType(declaration.mediaType) === undefined) {
    throw new SetupError(
      'INVALID_OPTION',
      `returns(${declaration.status}) of ${where}: mediaType ${JSON.stringify(declaration.mediaType)} is not a media type (type/subtype)`,
    );
  }
  const description = declaration.description ?? reasonPhrase(declaration.status);
  if (declaration.schema === undefined) return { description };
  const schema = context.schemas.convert(
    declaration.schema,
    'output',
    `${where} returns(${declaration.status})`,
  );
  return { description, content: { [declaration.mediaType]: { schema } } };
}
