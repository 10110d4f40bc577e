/**
 * Validators: a function that returns the model (throwing `ValidationError` on bad input), or
 * any Standard Schema object (zod, valibot, arktype, ...).
 */
import { ValidationError, type ValidationIssue } from '../../errors.js';

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

/** Formats a Standard Schema path as a dotted path (`items[0].name`, `''` for the root). */
export function dottedPath(
  path: ReadonlyArray<PropertyKey | StandardSchemaV1.PathSegment> | undefined,
): string {
  if (path === undefined) return '';
  let out = '';
  for (const part of path) {
    const key = typeof part === 'object' && part !== null ? part.key : part;
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^\d+$/.test(key) && out !== '') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
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

/** Runs a Standard Schema validator; resolves to the output or throws `ValidationError`. */
export function runStandardSchema(schema: StandardSchemaV1, value: unknown): unknown {
  const result = schema['~standard'].validate(value);
  if (result instanceof Promise) {
    return result.then((settled) => {
      if (settled.issues) throw toValidationError(settled.issues);
      return settled.value;
    });
  }
  if (result.issues) throw toValidationError(result.issues);
  return result.value;
}
