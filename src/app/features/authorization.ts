/**
 * Authorization hooks (docs/hooks-and-scope.md; step 2 of the pipeline): `app.authorized(name, fn)` answers 401 when `fn`
 * returns a falsy value and otherwise makes that value injectable under `name`;
 * `app.forbidden(name, fn)` answers 403 when `fn` returns a truthy value.
 *
 * An application's hook guards the routes that inject the name, directly or through any provider
 * they use (the same reach that decides which dependencies a route resolves), or every route when
 * registered with `{ global: true }`. A router's hook guards every route under it, whatever the
 * handler injects (docs/hooks-and-scope.md). Either way the hooks run before content negotiation,
 * so an anonymous client learns nothing about a route (not even its 406) before it is
 * authenticated.
 */
import { HttpError, SetupError } from '../../errors.js';
import type { Binding, GuardedFunction } from '../inject/bindings.js';
import { describeInjectable } from '../inject/handler-parameters.js';
import { booleanOption, knownOptions } from '../options.js';
import { isThenable } from '../thenable.js';

/** Options of `app.authorized()` and `app.forbidden()`. */
export interface AuthorizationOptions {
  /** Run the hook for every route, not only for the routes that inject `name`. */
  global?: boolean;
  /**
   * The request header the hook's answer depends on, added to `Vary` on the responses of the
   * routes it guards (RFC 9110 §12.5.5), so shared caches keep users apart. Default
   * `'Authorization'`; `false` adds nothing (for example when the hook reads a cookie and
   * responses are marked private anyway).
   */
  vary?: string | false;
  /** The `WWW-Authenticate` challenge of this hook's 401, instead of the application's. */
  wwwAuthenticate?: string;
  /**
   * The security scheme documenting an `authorized()` hook in the OpenAPI document (OpenAPI 3.1
   * §4.8.27, Security Scheme Object); default HTTP bearer.
   */
  openapi?: SecurityScheme;
}

/** An OpenAPI 3.1 Security Scheme Object (https://spec.openapis.org/oas/v3.1.1#security-scheme-object). */
export interface SecurityScheme {
  type: 'apiKey' | 'http' | 'mutualTLS' | 'oauth2' | 'openIdConnect';
  description?: string;
  name?: string;
  in?: 'query' | 'header' | 'cookie';
  scheme?: string;
  bearerFormat?: string;
  flows?: Record<string, unknown>;
  openIdConnectUrl?: string;
}

/** A registered hook, as the routing table sees it. */
export interface AuthorizationHook {
  kind: 'authorized' | 'forbidden';
  name: string;
  global: boolean;
  vary: string | undefined;
  /** The hook's own `WWW-Authenticate` challenge, when it gives one. */
  challenge: string | undefined;
  /** The security scheme documenting the hook, when registered with one. */
  openapi: SecurityScheme | undefined;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const AUTHORIZATION_OPTION_NAMES: Record<keyof AuthorizationOptions, true> = {
  global: true,
  vary: true,
  wwwAuthenticate: true,
  openapi: true,
};
const AUTHORIZATION_OPTIONS = Object.keys(AUTHORIZATION_OPTION_NAMES);

/** Checks hook options at registration and gives the table's view of the hook. */
export function describeHook(
  kind: AuthorizationHook['kind'],
  name: string,
  options: AuthorizationOptions | undefined,
): AuthorizationHook {
  knownOptions(`${kind} "${name}"`, options, AUTHORIZATION_OPTIONS);
  const vary = options?.vary === undefined ? 'Authorization' : options.vary;
  if (vary !== false && (typeof vary !== 'string' || !TOKEN.test(vary))) {
    throw new SetupError(
      'INVALID_OPTION',
      `${kind} "${name}": vary must be a header name or false`,
    );
  }
  const challenge = checkChallenge(options?.wwwAuthenticate, `${kind} "${name}"`);
  return {
    kind,
    name,
    global: booleanOption(`${kind} "${name}": global`, options?.global),
    vary: vary === false ? undefined : vary,
    challenge,
    openapi: options?.openapi,
  };
}

/**
 * The function a hook's binding runs: its check, turned into a 401 or 403. `challenge` is the
 * application's, used when the hook has none of its own; without either, a hook documented as
 * HTTP bearer (the default) challenges `Bearer`, since every 401 carries a challenge (RFC 9110
 * §15.5.2, a MUST).
 */
export function guardedFunction(
  check: Function,
  hook: AuthorizationHook,
  challenge: string | undefined,
): GuardedFunction {
  return hook.kind === 'authorized'
    ? authorizedProvider(check, hook.challenge ?? challenge ?? defaultChallenge(hook.openapi))
    : forbiddenProvider(check);
}

/** `Bearer` (RFC 6750 §3) for a hook documented as HTTP bearer; none for other schemes. */
function defaultChallenge(scheme: SecurityScheme | undefined): string | undefined {
  if (scheme === undefined) return 'Bearer';
  return scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'bearer' ? 'Bearer' : undefined;
}

/** Checks a `WWW-Authenticate` challenge given as an option; returns it. */
export function checkChallenge(challenge: string | undefined, what: string): string | undefined {
  if (challenge !== undefined && (typeof challenge !== 'string' || /[\r\n\0]/.test(challenge))) {
    throw new SetupError('INVALID_OPTION', `${what}: wwwAuthenticate must be a single-line string`);
  }
  return challenge;
}

/** `fn` called with the object `contextOf` makes, once it is made. */
function callWith(fn: Function, contextOf: () => object | Promise<object>): unknown {
  const context = contextOf();
  return isThenable(context) ? Promise.resolve(context).then((made) => fn(made)) : fn(context);
}

/**
 * Wraps an `authorized` function: a falsy result becomes a 401 carrying the challenge, which
 * RFC 9110 §15.5.2 requires on every 401 (configure it with `wwwAuthenticate`). A 401 thrown
 * on the way (`token expired`), by the function or by a value it injects, gets the same
 * challenge when it brings none.
 */
export function authorizedProvider(fn: Function, challenge: string | undefined): GuardedFunction {
  const headers = challenge === undefined ? undefined : { 'WWW-Authenticate': challenge };
  const check = (value: unknown): unknown => {
    if (!value) throw new HttpError(401, 'Unauthorized', undefined, headers);
    return value;
  };
  const challenged = (error: unknown): never => {
    throw headers === undefined ? error : withChallenge(error, headers);
  };
  return (contextOf) => {
    let value: unknown;
    try {
      value = callWith(fn, contextOf);
    } catch (error) {
      return challenged(error);
    }
    return isThenable(value) ? Promise.resolve(value).then(check, challenged) : check(value);
  };
}

/** `error` as a 401 with the challenge, when it is a 401 that carries no `WWW-Authenticate`. */
function withChallenge(error: unknown, headers: Record<string, string>): unknown {
  if (!(error instanceof HttpError) || error.statusCode !== 401) return error;
  const own = error.headers ?? {};
  if (Object.keys(own).some((name) => name.toLowerCase() === 'www-authenticate')) return error;
  const challenged = new HttpError(401, error.message, error.details, { ...own, ...headers });
  if (error.cause !== undefined) challenged.cause = error.cause;
  challenged.stack = error.stack;
  return challenged;
}

/**
 * Wraps a `forbidden` function: a truthy result becomes a 403. Any truthy value counts, so a
 * check that returns something unexpected fails closed.
 */
export function forbiddenProvider(fn: Function): GuardedFunction {
  const check = (value: unknown): false => {
    if (value) throw new HttpError(403, 'Forbidden');
    return false;
  };
  return (contextOf) => {
    const value = callWith(fn, contextOf);
    return isThenable(value) ? Promise.resolve(value).then(check) : check(value);
  };
}

/**
 * The hooks a route runs, authorized ones first (401 before 403), each in registration order:
 * the global ones and those among the names the route reaches.
 */
export function hooksFor(
  hooks: readonly AuthorizationHook[],
  reached: ReadonlySet<string>,
): AuthorizationHook[] {
  const selected = hooks.filter((hook) => hook.global || reached.has(hook.name));
  return [
    ...selected.filter((hook) => hook.kind === 'authorized'),
    ...selected.filter((hook) => hook.kind === 'forbidden'),
  ];
}

/**
 * What registering `check` as an `authorized()` or `forbidden()` hook named `name` adds: the
 * binding that injects its value (and decides 401 / 403 by it) and the table's view of the hook.
 */
export function guardBinding(
  kind: AuthorizationHook['kind'],
  name: string,
  check: Function,
  options: AuthorizationOptions | undefined,
): { binding: Binding; hook: AuthorizationHook } {
  const hook = describeHook(kind, name, options);
  const { names } = describeInjectable(check, `${kind} "${name}"`);
  return {
    binding: {
      kind: 'provider',
      name,
      scope: 'request',
      injectable: { fn: check, names },
      guard: { kind, wrap: (challenge) => guardedFunction(check, hook, challenge) },
    },
    hook,
  };
}
