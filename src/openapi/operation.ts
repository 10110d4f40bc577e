/**
 * One route as an OpenAPI Operation Object (OpenAPI 3.1 §4.8.10): parameters and request body
 * from the validators it reaches, responses from `returns()` and from the pipeline steps it
 * goes through (docs/http-semantics.md).
 */
import { hooksFor } from '../app/features/authorization.js';
import type { Binding } from '../app/inject/bindings.js';
import type { Injectable } from '../app/inject/handler-parameters.js';
import type { ValidationSource } from '../app/inject/validation.js';
import {
  DOCS_SETTING,
  type DocumentedResponse,
  type RouteDescription,
} from '../app/routing/route-docs.js';
import type { ScopedRoute } from '../app/routing/routing-table.js';
import { SetupError } from '../errors.js';
import { parseMediaType } from '../http/media-type.js';
import { reasonPhrase } from '../http/status.js';
import { conditionalParameters } from './conditional-parameters.js';
import type { NamedSchema, OperationContext } from './operation-context.js';
import { objectProperties, type Property } from './properties.js';
import { bodyOptional, readsBody, requestBody } from './request-body.js';
import type { PipelineStatus } from './responses.js';
import type { JsonSchema, OpenApiOperation, OpenApiParameter, OpenApiResponse } from './types.js';

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
