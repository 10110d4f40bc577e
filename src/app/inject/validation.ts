/**
 * Validators: a function that returns the model (throwing `ValidationError` on bad input), or
 * any Standard Schema object (zod, valibot, arktype, ...).
 */
import { ValidationError, type ValidationIssue } from '../../errors.js';
import { DataRecord } from '../../http/data-record.js';
import { MultiValueHeaders } from '../../http/headers.js';
import type { Request } from '../../request.js';
import { isThenable } from '../thenable.js';

/** The Standard Schema v1 interface (https://standardschema.dev), copied as its authors advise. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1.Props<Input, Output>;
}

export declare namespace StandardSchemaV1 {
  export interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => Result<Output> | Promise<Result<Output>>;
    readonly types?: Types<Input, Output> | undefined;
  }
  export type Result<Output> = SuccessResult<Output> | FailureResult;
  export interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  export interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  export interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  export interface PathSegment {
    readonly key: PropertyKey;
  }
  export interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
  export type InferInput<Schema extends StandardSchemaV1> = NonNullable<
    Schema['~standard']['types']
  >['input'];
  export type InferOutput<Schema extends StandardSchemaV1> = NonNullable<
    Schema['~standard']['types']
  >['output'];
}

/** What a Standard Schema validator validates. */
export type ValidationSource = 'jsonBody' | 'queryParams' | 'pathParams' | 'headers' | 'formBody';

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as Partial<StandardSchemaV1>)['~standard'] === 'object'
  );
}

/** A key that needs no quoting: anything but a path's own punctuation, and not empty. */
const PLAIN_KEY = /^[^.[\]"]+$/;

/**
 * Formats a Standard Schema path as a dotted path (`items[0].name`, `''` for the root); a key
 * with `.`, `[`, `]` or `"` in it, or an empty one, is quoted (`a["b.c"]`, `[""]`). Only a
 * number is an index: validators give array indexes as numbers, so a record's key `"1"` is
 * `by.1`, as configuration errors write it (src/config/path.ts).
 */
export function dottedPath(
  path: ReadonlyArray<PropertyKey | StandardSchemaV1.PathSegment> | undefined,
): string {
  if (path === undefined) return '';
  let out = '';
  for (const part of path) {
    const key = typeof part === 'object' && part !== null ? part.key : part;
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key !== 'string') out += out === '' ? String(key) : `.${String(key)}`;
    else if (PLAIN_KEY.test(key)) out += out === '' ? key : `.${key}`;
    // Quoted as configuration errors quote it, so `a.b` the key is not `a` then `b`.
    else out += `[${JSON.stringify(key)}]`;
  }
  return out;
}

function toValidationError(issues: ReadonlyArray<StandardSchemaV1.Issue>): ValidationError {
  const list: ValidationIssue[] = issues.map((issue) => ({
    path: dottedPath(issue.path),
    message: issue.message,
  }));
  return new ValidationError(list);
}

/**
 * A validator that ran out of stack on the input (a recursive schema given JSON nested a hundred
 * thousand deep, well within the body limit): the input is refused as invalid, a 422, rather
 * than a 500 and an error line any client could cause at will.
 */
function tooDeep(error: unknown): never {
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    throw new ValidationError([
      { path: '', message: 'The input is nested too deeply to validate' },
    ]);
  }
  throw error;
}

/**
 * A function validator that refuses input nested too deeply for it as a Standard Schema's is
 * refused: a hand-written recursive walk runs out of stack as a recursive schema does. Only the
 * validator's own throw counts; the values it injects fail as they would anywhere else.
 */
export function refusingTooDeep(validator: Function): (context: unknown) => unknown {
  return (context) => {
    let result: unknown;
    try {
      result = validator(context);
    } catch (error) {
      tooDeep(error);
    }
    return isThenable(result) ? Promise.resolve(result).then(undefined, tooDeep) : result;
  };
}

/** Runs a Standard Schema validator; resolves to the output or throws `ValidationError`. */
export function runStandardSchema(schema: StandardSchemaV1, value: unknown): unknown {
  let result: ReturnType<StandardSchemaV1['~standard']['validate']>;
  try {
    result = schema['~standard'].validate(value);
  } catch (error) {
    tooDeep(error);
  }
  if (result instanceof Promise) {
    return result.then((settled) => {
      if (settled.issues) throw toValidationError(settled.issues);
      return settled.value;
    }, tooDeep);
  }
  if (result.issues) throw toValidationError(result.issues);
  return result.value;
}

/**
 * What a `queryParams` validator validates: each key's first value, except for the properties
 * its input schema lets take a list, which get every value of their key in order (`?tag=a&tag=b`
 * is `{ tag: ['a', 'b'] }`, `?tag=a` is `{ tag: ['a'] }`). The OpenAPI document describes such a
 * property as a repeated key, and the typed client sends it so.
 */
export function queryInput(request: Request, schema: StandardSchemaV1): Record<string, unknown> {
  const lists = listProperties(schema);
  const first = request.queryParams;
  if (lists.size === 0) return first;
  const all = request.queryParamsAll;
  const out = new DataRecord<string | string[]>();
  for (const key of Object.keys(first)) {
    out[key] = lists.has(key) ? (all[key] as string[]) : (first[key] as string);
  }
  return out;
}

/**
 * What a `headers` validator validates: each header by its lower-case name, its lines joined
 * into one value with ", ", since repeated field lines are one comma-separated list (RFC 9110
 * §5.3). Every adapter then gives the same list: a Fetch runtime's `Headers` joins the lines
 * before we see them (and an HTTP API or a function URL with "," alone, the same list by §5.6.1),
 * Node and the REST API and ALB events keep them apart. `Cookie` lines are joined with "; " instead, as `cookies` reads them and as HTTP/2 says
 * they are rejoined (RFC 9113 §8.2.3). No request header is a list that cannot be joined
 * (`Set-Cookie` is a response header).
 */
export function headerInput(request: Request): Record<string, string> {
  const out = new DataRecord<string>();
  MultiValueHeaders.forEachField(request.headers, (_name, key, values) => {
    out[key] = values.join(key === 'cookie' ? '; ' : ', ');
  });
  return out;
}

/** The Standard JSON Schema converter (https://standardschema.dev/json-schema), as used here. */
interface InputSchemaConverter {
  input?: (options: ConversionOptions) => unknown;
}

export interface ConversionOptions {
  target: string;
  libraryOptions?: Record<string, unknown>;
}

/**
 * Asks zod to write a member JSON Schema cannot express (`z.coerce.date()`, `z.bigint()`,
 * `z.custom()`, `z.map()`) as `{}` rather than throw, so one such property does not cost every
 * other its list (a property that cannot be expressed is simply not a list). The options are
 * each vendor's own (Standard JSON Schema's `libraryOptions`); others ignore a key they do not
 * know. The OpenAPI document converts with them too (openapi/schemas.ts), so it documents the
 * lists this reads.
 */
export const CONVERSION: ConversionOptions = {
  target: 'draft-2020-12',
  libraryOptions: { unrepresentable: 'any' },
};

const NO_LISTS: ReadonlySet<string> = new Set();
// Once per validator: converting a schema to JSON Schema takes tens of microseconds.
const listsOf = new WeakMap<object, ReadonlySet<string>>();

/**
 * The top-level properties of `schema`'s input (or of its union's members) that take an array, from its Standard JSON
 * Schema (zod 4 and arktype have one). A validator without one, or one it cannot express, has
 * none: each key gets its first value.
 */
function listProperties(schema: StandardSchemaV1): ReadonlySet<string> {
  let lists = listsOf.get(schema);
  if (lists === undefined) {
    lists = findListProperties(schema);
    listsOf.set(schema, lists);
  }
  return lists;
}

function findListProperties(schema: StandardSchemaV1): ReadonlySet<string> {
  const converter = (schema['~standard'] as { jsonSchema?: InputSchemaConverter }).jsonSchema;
  const root =
    convertInput(converter, CONVERSION) ?? convertInput(converter, { target: 'draft-2020-12' });
  if (!isRecord(root)) return NO_LISTS;
  const lists = new Set<string>();
  addListProperties(root, root, lists, 0);
  return lists.size === 0 ? NO_LISTS : lists;
}

// `undefined` when the converter throws: a vendor that refuses zod's option gets a second try
// without it.
function convertInput(
  converter: InputSchemaConverter | undefined,
  options: ConversionOptions,
): unknown {
  try {
    return converter?.input?.call(converter, options);
  } catch {
    return undefined;
  }
}

// Adds the properties of `object` that take an array, and those of its members when it is a
// union or an intersection (`anyOf`, `oneOf`, `allOf`, as z.union(), z.discriminatedUnion() and
// z.intersection() write them): a key gets every value when any member takes a list there, as
// the OpenAPI document describes the key (docs/application.md, "Validation").
function addListProperties(
  object: unknown,
  root: Record<string, unknown>,
  lists: Set<string>,
  depth: number,
): void {
  if (!isRecord(object) || depth > 8) return;
  // A schema with an id (zod's `.meta({ id })`) is a reference to its own definition.
  if (typeof object.$ref === 'string') {
    addListProperties(definition(object.$ref, root), root, lists, depth + 1);
  }
  const properties = object.properties;
  if (isRecord(properties)) {
    for (const key of Object.keys(properties)) {
      if (takesList(properties[key], root, 0)) lists.add(key);
    }
  }
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
    const members = object[keyword];
    if (!Array.isArray(members)) continue;
    for (const member of members) addListProperties(member, root, lists, depth + 1);
  }
}

/** The definition a local `$ref` names (`#/$defs/...`, `#/definitions/...`), if any. */
function definition(ref: string, root: Record<string, unknown>): unknown {
  const [, group, name] = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref) ?? [];
  const definitions = group === undefined ? undefined : root[group];
  if (!isRecord(definitions) || name === undefined || !Object.hasOwn(definitions, name)) {
    return undefined;
  }
  return definitions[name];
}

// Whether `property` accepts an array: by its type, one of its alternatives, or the definition
// it refers to (`#/$defs/...`, `#/definitions/...`).
function takesList(property: unknown, root: Record<string, unknown>, depth: number): boolean {
  if (!isRecord(property) || depth > 8) return false;
  const type = property.type;
  if (type === 'array' || (Array.isArray(type) && type.includes('array'))) return true;
  const ref = property.$ref;
  if (typeof ref === 'string') {
    const target = definition(ref, root);
    if (target !== undefined) return takesList(target, root, depth + 1);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const alternatives = property[key];
    if (Array.isArray(alternatives)) {
      if (alternatives.some((item) => takesList(item, root, depth + 1))) return true;
    }
  }
  return false;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
