/**
 * What registering a name or a handler checks, the same on a Router and on the application:
 * the name itself, clashes with built-in names and with the registrar's own names, scopes and
 * error handler statuses. Clashes with outer routers or the application are found when the
 * routing table is built (routing/scope.ts), since a router may be mounted after it registers.
 */
import { SetupError } from '../../errors.js';
import type { Binding, Scope } from '../inject/bindings.js';
import { BUILTIN_NAMES } from '../inject/builtins.js';
import type { ValidationSource } from '../inject/validation.js';
import { knownOptions } from '../options.js';

/** Options of `dependency()` and `resourceExists()`. */
export interface DependencyOptions {
  /** `'request'` (default): once per request; `'session'`: once for the application's life. */
  scope?: Scope;
}
export const DEPENDENCY_OPTIONS: readonly string[] = Object.keys({
  scope: true,
} satisfies Record<keyof DependencyOptions, true>);

/** Options of `validates(name, validator, options)`. */
export interface ValidatesOptions<Source extends ValidationSource = ValidationSource> {
  /** What a Standard Schema validates (default `jsonBody`); a function validator takes none. */
  source?: Source;
  /** `'request'` (default) or `'session'`, as for a dependency. */
  scope?: Scope;
}
export const VALIDATES_OPTIONS: readonly string[] = Object.keys({
  source: true,
  scope: true,
} satisfies Record<keyof ValidatesOptions, true>);

/**
 * The scope `options` (given to `what`) ask for, after refusing a name `allowed` does not list:
 * a misspelt `scope` would leave a session value computed on every request.
 */
export function registeredScope(
  what: string,
  options: { scope?: Scope } | undefined,
  allowed: readonly string[],
): Scope {
  knownOptions(what, options, allowed);
  return checkScope(options?.scope);
}

// A JavaScript identifier, as a handler's parameter names are (Unicode letters included).
const NAME = /^[\p{ID_Start}_$][\p{ID_Continue}$\u200C\u200D]*$/u;

/** Adds `binding` to `bindings`, refusing invalid, built-in and already registered names. */
export function addBinding(bindings: Map<string, Binding>, binding: Binding): void {
  const name = binding.name;
  if (name === '') {
    throw new SetupError(
      'NAME_CLASH',
      'A dependency needs a name: pass one (`dependency("db", () => ...)`) or register a named function (`dependency(function db() {...})`)',
    );
  }
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new SetupError('NAME_CLASH', `Invalid dependency name ${JSON.stringify(name)}`);
  }
  // Set on an injection object, `__proto__` would replace its prototype instead of adding a
  // name: the handler would get `{}` (docs/application.md, "Requests from untrusted clients").
  if (name === '__proto__') {
    throw new SetupError(
      'NAME_CLASH',
      '"__proto__" cannot be registered: it is not a name an object can hold',
    );
  }
  // The injection object is handed on as a step's result, and a step's result with a `then`
  // method is awaited as a promise (thenable.ts): a function registered as `then` would be
  // called in the handler's place, and the handler would get whatever it resolved to.
  if (name === 'then') {
    throw new SetupError(
      'NAME_CLASH',
      '"then" cannot be registered: an injection object holding it would be taken for a promise',
    );
  }
  if (BUILTIN_NAMES.has(name)) {
    throw new SetupError('NAME_CLASH', `"${name}" is a built-in name and cannot be registered`);
  }
  if (bindings.has(name)) {
    throw new SetupError('NAME_CLASH', `"${name}" is already registered`);
  }
  bindings.set(name, binding);
}

/** `'request'` unless `scope` says `'session'`; anything else is a registration error. */
export function checkScope(scope: Scope | undefined): Scope {
  if (scope === undefined) return 'request';
  if (scope !== 'request' && scope !== 'session') {
    throw new SetupError(
      'INVALID_OPTION',
      `Scope must be "request" or "session", got ${JSON.stringify(scope)}`,
    );
  }
  return scope;
}

/** The status an error handler is for (`'default'` for every error), checked. */
export function errorHandlerStatus(status: number | 'default'): number | 'default' {
  if (status !== 'default' && (!Number.isInteger(status) || status < 400 || status > 599)) {
    throw new SetupError('INVALID_OPTION', `Error handler status must be 400-599, got ${status}`);
  }
  return status;
}
