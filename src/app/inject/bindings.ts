/**
 * What a registered name is bound to: a provider, a guard, a `resourceExists` check, a validator
 * or a startup value, and the scope its value lives in. Registration builds these; the routing
 * table compiles them into getters (getters.ts).
 */
import { SetupError } from '../../errors.js';
import { describeInjectable, type Injectable } from './handler-parameters.js';
import { isStandardSchema, type StandardSchemaV1, type ValidationSource } from './validation.js';

/**
 * A guard's check as its binding runs it: given how to make the check's injection object, which
 * may fail (or be pending) on the values the check injects.
 */
export type GuardedFunction = (contextOf: () => object | Promise<object>) => unknown;

export type Scope = 'request' | 'session';

/** A registered name and how to produce its value. */
export type Binding =
  | {
      kind: 'provider';
      name: string;
      scope: Scope;
      injectable: Injectable;
      /**
       * Set for `authorized()` / `forbidden()`: the value decides 401 / 403. `wrap` gives the
       * function that does, with the application's `WWW-Authenticate` challenge.
       */
      guard?: {
        kind: 'authorized' | 'forbidden';
        wrap: (challenge: string | undefined) => GuardedFunction;
      };
    }
  | { kind: 'exists'; name: string; scope: Scope; injectable: Injectable }
  | { kind: 'validator'; name: string; scope: Scope; injectable: Injectable }
  | {
      kind: 'schema';
      name: string;
      scope: Scope;
      schema: StandardSchemaV1;
      source: ValidationSource;
    }
  | { kind: 'startup'; name: string };

const SOURCES: readonly string[] = ['jsonBody', 'queryParams', 'pathParams', 'headers', 'formBody'];

/**
 * What `validates(name, validator, { source, scope })` registers: a Standard Schema applied to
 * `source` (the JSON body by default), or a function validator, which injects what it validates.
 * Throws a SetupError for a source it cannot read, or a session scope for a per-request model.
 */
export function validatorBinding(
  name: string,
  validator: StandardSchemaV1 | Function,
  source: string | undefined,
  scope: Scope,
): Binding {
  if (isStandardSchema(validator)) {
    const from = source ?? 'jsonBody';
    if (!SOURCES.includes(from)) {
      throw new SetupError('INVALID_OPTION', `Unknown validation source ${JSON.stringify(from)}`);
    }
    if (scope === 'session') {
      // The model is read from each request; one made once would be shared by all (docs/application.md).
      throw new SetupError(
        'SCOPE_MISMATCH',
        `Validator "${name}" checks each request's ${from}, so it cannot be session-scoped: the first request's model would be handed to every other`,
      );
    }
    return { kind: 'schema', name, scope, schema: validator, source: from as ValidationSource };
  }
  if (source !== undefined) {
    throw new SetupError(
      'INVALID_OPTION',
      `Validator "${name}" is a function, which injects what it validates (({ queryParams }) => ...); source applies to Standard Schema validators only`,
    );
  }
  return {
    kind: 'validator',
    name,
    scope,
    injectable: describeInjectable(validator, `Validator "${name}"`),
  };
}
