/**
 * Ajv's errors turned into violations worded like the JSON Schema reference implementation
 * (Python's `jsonschema`): `70000 is greater than the maximum of 65535`, `"name" is a required
 * property`, `Additional properties are not allowed ('x' was unexpected)`. Runs only when
 * validation has failed.
 */

import type { ErrorObject, ValidateFunction } from 'ajv';
import { formatPath, type PathSegment, pointerToSegments, valueAt } from '../path.js';
import { Redacted } from '../redaction.js';
import { branchReach, branchRunStart } from './branches.js';

/**
 * Prints a value for a message: JSON, with a space after commas and colons so that lists read
 * like the reference wording (`["a", "b"]`). Non-JSON numbers print as JavaScript does; a
 * {@link Redacted} secret prints as `<from env:NAME>`, unquoted, so it cannot pass for text.
 * A message is read by a person: a long value is cut short with `...`, and containers nested
 * deeper than {@link MAX_SHOWN_DEPTH} print as `[...]` (printed whole, a value nested thousands
 * deep would overflow the stack, and a long list repeated in every line made messages megabytes).
 */
export function formatValue(value: unknown): string {
  return printValue(value, 0, { left: MAX_SHOWN_LENGTH });
}

/** How many levels of a value a message prints. */
const MAX_SHOWN_DEPTH = 16;

/** About how many characters of a value a message prints. */
const MAX_SHOWN_LENGTH = 200;

function printValue(value: unknown, depth: number, budget: { left: number }): string {
  if (Array.isArray(value)) {
    if (depth >= MAX_SHOWN_DEPTH) return '[...]';
    return `[${printMembers(value, (item) => printValue(item, depth + 1, budget), budget)}]`;
  }
  if (typeof value === 'object' && value !== null && !(value instanceof Redacted)) {
    if (depth >= MAX_SHOWN_DEPTH) return '{...}';
    const record = value as Record<string, unknown>;
    const entry = (key: string) =>
      `${printScalar(key, budget)}: ${printValue(record[key], depth + 1, budget)}`;
    return `{${printMembers(Object.keys(record), entry, budget)}}`;
  }
  return printScalar(value, budget);
}

/** The members printed until the budget runs out, then `...` for the rest. */
function printMembers<T>(
  members: readonly T[],
  print: (member: T) => string,
  budget: { left: number },
): string {
  const printed: string[] = [];
  for (const member of members) {
    if (budget.left <= 0) {
      printed.push('...');
      break;
    }
    printed.push(print(member));
    budget.left -= 2;
  }
  return printed.join(', ');
}

function printScalar(value: unknown, budget: { left: number }): string {
  let printed: string;
  if (value === undefined) printed = 'undefined';
  else if (value instanceof Redacted) printed = value.toString();
  else if (typeof value === 'number')
    printed = Number.isFinite(value) ? JSON.stringify(value) : String(value);
  else if (typeof value === 'bigint') printed = value.toString();
  else if (typeof value === 'string' && value.length > Math.max(budget.left, 0) + 16) {
    // Cut before quoting: a megabyte of text is not copied to print its start.
    printed = `${JSON.stringify(value.slice(0, Math.max(budget.left, 16)))}...`;
  } else printed = JSON.stringify(value) ?? String(value);
  budget.left -= printed.length;
  return printed;
}

/** A violation before it is given a source position. */
export interface LocatedViolation {
  readonly segments: readonly PathSegment[];
  readonly path: string;
  readonly message: string;
  readonly keyword: string;
  readonly value: unknown;
  /** For `additionalProperties`/`unevaluatedProperties`: the unexpected key. */
  readonly property: string | undefined;
}

export interface MessageOptions {
  /** The value messages print (validation may have run on a stand-in, see validateRaw). */
  readonly display?: unknown;
  /** Maps a schema object Ajv reports back to the schema as the user wrote it. */
  readonly original?: (schema: unknown) => unknown;
  /** The validator that reported the errors: its resolved `$ref`s say what a branch reaches. */
  readonly validate?: ValidateFunction;
}

/** Keywords whose failure is explained by errors Ajv reports for the subschemas they apply. */
const EXPLAINED_ELSEWHERE = new Set(['if', 'propertyNames']);

/**
 * Keywords that report their own error after errors from the subschemas they tried; like the
 * reference implementation, only the keyword's own error is kept.
 */
const SUMMARISING = new Set(['anyOf', 'oneOf', 'contains']);

/** Every violation, in Ajv's order, without duplicates. */
export function violationsFrom(
  errors: readonly ErrorObject[],
  data: unknown,
  options: MessageOptions = {},
): LocatedViolation[] {
  // Where each summarising keyword's branch errors begin; those errors are not violations.
  const runStarts = new Map<number, number>();
  const reachOf = branchReach(options.validate);
  errors.forEach((error, index) => {
    if (SUMMARISING.has(error.keyword)) {
      runStarts.set(index, branchRunStart(errors, index, runStarts, reachOf));
    }
  });
  const dropped = new Set<number>();
  for (let index = errors.length - 1; index >= 0; index--) {
    if (EXPLAINED_ELSEWHERE.has(errors[index]!.keyword)) dropped.add(index);
    const start = runStarts.get(index);
    if (start === undefined) continue;
    for (let branch = start; branch < index; branch++) dropped.add(branch);
    index = start;
  }

  const display = 'display' in options ? options.display : data;
  const seen = new Set<string>();
  const violations: LocatedViolation[] = [];
  for (const [index, error] of errors.entries()) {
    if (dropped.has(index)) continue;
    const segments = pointerToSegments(error.instancePath, data);
    const value = valueAt(display, segments);
    const subject = error.propertyName === undefined ? value : error.propertyName;
    const message = describe(error, subject, options.original ?? ((schema) => schema));
    const property = extraProperty(error);
    const path = formatPath(segments);
    const identity = `${path}\u0000${error.keyword}\u0000${message}`;
    if (seen.has(identity)) continue;
    seen.add(identity);
    violations.push({ segments, path, message, keyword: error.keyword, value, property });
  }
  return violations;
}

function extraProperty(error: ErrorObject): string | undefined {
  const params = error.params as Record<string, unknown>;
  const key = params.additionalProperty ?? params.unevaluatedProperty;
  return typeof key === 'string' ? key : undefined;
}

function plural(count: unknown, word: string, words = `${word}s`): string {
  return `${String(count)} ${count === 1 ? word : words}`;
}

/** The message for one error, without the path. */
function describe(
  error: ErrorObject,
  value: unknown,
  original: (schema: unknown) => unknown,
): string {
  const params = error.params as Record<string, unknown>;
  const shown = formatValue(value);
  switch (error.keyword) {
    case 'type': {
      const types = Array.isArray(params.type) ? params.type : String(params.type).split(',');
      return `${shown} is not of type ${types.map((type) => JSON.stringify(type)).join(', ')}`;
    }
    case 'minimum':
      return `${shown} is less than the minimum of ${formatValue(params.limit)}`;
    case 'maximum':
      return `${shown} is greater than the maximum of ${formatValue(params.limit)}`;
    case 'exclusiveMinimum':
      return `${shown} is less than or equal to the minimum of ${formatValue(params.limit)}`;
    case 'exclusiveMaximum':
      return `${shown} is greater than or equal to the maximum of ${formatValue(params.limit)}`;
    case 'multipleOf':
      return `${shown} is not a multiple of ${formatValue(params.multipleOf)}`;
    case 'minLength':
      return `${shown} is shorter than ${plural(params.limit, 'character')}`;
    case 'maxLength':
      return `${shown} is longer than ${plural(params.limit, 'character')}`;
    case 'minItems':
      return `${shown} has fewer than ${plural(params.limit, 'item')}`;
    case 'maxItems':
      return `${shown} has more than ${plural(params.limit, 'item')}`;
    case 'minProperties':
      return `${shown} has fewer than ${plural(params.limit, 'property', 'properties')}`;
    case 'maxProperties':
      return `${shown} has more than ${plural(params.limit, 'property', 'properties')}`;
    case 'pattern':
      return `${shown} does not match ${JSON.stringify(params.pattern)}`;
    case 'format':
      return `${shown} is not a ${JSON.stringify(params.format)}`;
    case 'enum':
      return `${shown} is not one of ${formatValue(params.allowedValues)}`;
    case 'const':
      return `${formatValue(params.allowedValue)} was expected`;
    case 'required':
      return `${JSON.stringify(params.missingProperty)} is a required property`;
    case 'dependencies':
    case 'dependentRequired':
      return `${JSON.stringify(params.missingProperty)} is a dependency of ${JSON.stringify(params.property)}`;
    case 'additionalProperties':
      return `Additional properties are not allowed ('${String(params.additionalProperty)}' was unexpected)`;
    case 'unevaluatedProperties':
      return `Unevaluated properties are not allowed ('${String(params.unevaluatedProperty)}' was unexpected)`;
    case 'additionalItems':
    case 'items':
    case 'unevaluatedItems': {
      const kind = error.keyword === 'unevaluatedItems' ? 'Unevaluated' : 'Additional';
      const extra = Array.isArray(value) ? value.slice(Number(params.limit)) : [];
      const listed = extra.map((item) => formatValue(item)).join(', ');
      return `${kind} items are not allowed (${listed} ${extra.length === 1 ? 'was' : 'were'} unexpected)`;
    }
    case 'uniqueItems':
      return `${shown} has non-unique elements`;
    case 'contains': {
      const least = typeof params.minContains === 'number' ? params.minContains : 1;
      const most = params.maxContains;
      if (typeof most === 'number') {
        return `${shown} must contain between ${least} and ${plural(most, 'item')} matching the given schema`;
      }
      return least === 1
        ? `${shown} does not contain items matching the given schema`
        : `${shown} does not contain at least ${plural(least, 'item')} matching the given schema`;
    }
    case 'anyOf':
      return `${shown} is not valid under any of the given schemas`;
    case 'oneOf':
      return params.passingSchemas === null
        ? `${shown} is not valid under any of the given schemas`
        : `${shown} is valid under more than one of the given schemas`;
    case 'not':
      return `${shown} should not be valid under ${formatValue(original(error.schema))}`;
    case 'false schema':
      return `False schema does not allow ${shown}`;
    default:
      return `${shown} ${error.message ?? 'is invalid'}`;
  }
}
