/**
 * `onRequest` and `onResponse` hooks (docs/hooks-and-scope.md). Hooks are compiled per route
 * when the routing table is built, into one list per direction: a route that uses none has
 * `undefined` there and the pipeline skips them with one comparison.
 *
 * Hooks inject request-level names only. `onRequest` runs before authorization and before the
 * body is read, so a body, a validator, a `resourceExists` provider or an authorization hook's
 * name would either read the body early or make the hook run unauthenticated code: each is a
 * `SetupError` rather than a surprise at run time. A body name in the hook's own parameters is
 * refused at registration (`describeHook`); the rest depend on what names are bound to, so they
 * are refused when the routing table is built (`compileHook`), which makes `startup()` reject.
 */
import { SetupError } from '../../errors.js';
import type { MultiValueHeaders } from '../../http/headers.js';
import { Response, type ResponseBody } from '../../response.js';
import {
  buildContext,
  type Getter,
  type GetterCompiler,
  type PathParamPositions,
} from '../inject/getters.js';
import { describeInjectable, type Injectable } from '../inject/handler-parameters.js';
import type { RequestState } from '../inject/request-state.js';
import { stopIfAborted } from '../inject/signal.js';
import type { Logger } from '../logger.js';
import { isTuple, tupleFault } from '../representable.js';
import { isPending, isThenable } from '../thenable.js';

/** A hook ready to run. */
export interface CompiledHook {
  fn: Function;
  names: readonly string[];
  getters: readonly Getter[];
}

/** The hooks of one route, app-level ones included; `undefined` where there are none. */
export interface RouteHooks {
  /** The routers' then the route's own (the application's run before routing answers). */
  onRequest: readonly CompiledHook[] | undefined;
  /** The route's, then its routers' from the inside out, then the application's. */
  onResponse: readonly CompiledHook[] | undefined;
}

/** Where routers and routes keep their hooks. */
export interface HookLists {
  readonly onRequest: readonly Injectable[];
  readonly onResponse: readonly Injectable[];
}

const BODY_NAMES: ReadonlySet<string> = new Set([
  'body',
  'jsonBody',
  'formBody',
  'parsedBody',
  'files',
  'parts',
]);
const RESPONSE_EXTRAS: ReadonlySet<string> = new Set(['response', 'elapsedMs']);
const NONE: ReadonlySet<string> = new Set();

/** Reads a hook's names at registration; one that injects a body is refused at once. */
export function describeHook(fn: Function, what: string): Injectable {
  const injectable = describeInjectable(fn, what);
  for (const name of injectable.names) {
    if (BODY_NAMES.has(name)) throw notRequestLevel(what, name, 'the request body');
  }
  return injectable;
}

function notRequestLevel(label: string, name: string, what: string): SetupError {
  return new SetupError(
    'INVALID_HOOK',
    `${label} injects "${name}" (${what}); hooks inject request-level names only ` +
      '(request, headers, queryParams, cookies, requestId, log, path parameters and ' +
      'dependencies built from these)',
  );
}

/** Compiles one hook for a scope, refusing what it reaches that is not request-level. */
function compileHook(
  compiler: GetterCompiler,
  injectable: Injectable,
  label: string,
  params: PathParamPositions,
  extras: ReadonlySet<string>,
): CompiledHook {
  const getters = compiler.compile(injectable.names, label, { params, extras });
  for (const name of compiler.reach(injectable.names)) {
    if (BODY_NAMES.has(name)) throw notRequestLevel(label, name, 'the request body');
    const binding = compiler.bindings.get(name);
    if (binding === undefined) continue;
    if (binding.kind === 'validator' || binding.kind === 'schema') {
      throw notRequestLevel(label, name, 'a validator');
    }
    if (binding.kind === 'exists') throw notRequestLevel(label, name, 'a resourceExists provider');
    if (binding.kind === 'provider' && binding.guard !== undefined) {
      const hook = binding.guard.kind === 'authorized' ? 'an authorized()' : 'a forbidden()';
      throw notRequestLevel(label, name, `${hook} hook`);
    }
  }
  return { fn: injectable.fn, names: injectable.names, getters };
}

/** Compiles a list of `onRequest` hooks, or `onResponse` ones with their extras. */
export function compileHooks(
  compiler: GetterCompiler,
  hooks: readonly Injectable[],
  label: string,
  params: PathParamPositions,
  kind: 'onRequest' | 'onResponse',
): CompiledHook[] {
  const extras = kind === 'onResponse' ? RESPONSE_EXTRAS : NONE;
  return hooks.map((hook, index) =>
    compileHook(compiler, hook, `${label} ${kind} hook #${index + 1}`, params, extras),
  );
}

/** `list` or `undefined` when it is empty, so the pipeline tests one value. */
export function orNothing<T>(list: readonly T[]): readonly T[] | undefined {
  return list.length === 0 ? undefined : list;
}

function call(hook: CompiledHook, state: RequestState): unknown {
  const context = buildContext(hook.names, hook.getters, state);
  return isPending(context)
    ? context.then((resolved) => (hook.fn as (c: object) => unknown)(resolved))
    : (hook.fn as (c: object) => unknown)(context);
}

/** What an `onRequest` result means: `undefined` to go on, else the answer. */
function answerOf(result: unknown): unknown {
  if (result === undefined || result === null) return undefined;
  if (result instanceof Response || isTuple(result)) return result;
  if (Array.isArray(result)) {
    throw new Error(
      `An onRequest hook returned an array that is no [body, status, headers?] tuple: ${tupleFault(result)}`,
    );
  }
  throw new Error(
    `An onRequest hook returned ${typeof result}; return nothing to go on, or a Response or a ` +
      '[body, status] tuple to answer the request',
  );
}

/**
 * Runs `hooks` in order from the `from`-th. `undefined` when every hook let the request go on
 * (synchronously), else the answer (a Response or tuple), or a promise of either.
 */
export function runOnRequest(
  hooks: readonly CompiledHook[],
  state: RequestState,
  from = 0,
): unknown {
  for (let i = from; i < hooks.length; i++) {
    const result = call(hooks[i] as CompiledHook, state);
    if (isThenable(result)) {
      return Promise.resolve(result).then((resolved) => {
        const answer = answerOf(resolved);
        if (answer !== undefined) return answer;
        // The wait may have outlasted requestTimeout, whose 503 has gone out: once the signal
        // fired, no later hook starts (docs/streams.md).
        stopIfAborted(state);
        return runOnRequest(hooks, state, i + 1);
      });
    }
    const answer = answerOf(result);
    if (answer !== undefined) return answer;
  }
  return undefined;
}

/** What an `onResponse` hook may not change: it sees the response once it is final. */
function restore(
  response: Response,
  status: number,
  body: ResponseBody,
  logger: Logger,
  id: unknown,
): void {
  if (response.statusCode === status && response.body === body) return;
  response.statusCode = status;
  response.body = body;
  logger.warn('An onResponse hook changed the status or body; only headers may change', {
    requestId: id,
  });
}

const FRAMING = ['content-length', 'transfer-encoding'] as const;

/**
 * Puts back the framing fields a hook changed: they describe the body the adapter sends (RFC
 * 9112 §6), and a wrong Content-Length would let the body spill into the next response on the
 * connection, or leave the client waiting for bytes that never come.
 */
function restoreFraming(
  headers: MultiValueHeaders,
  before: MultiValueHeaders,
  logger: Logger,
  id: unknown,
): void {
  let changed = false;
  for (const name of FRAMING) {
    const was = before.getAll(name);
    const now = headers.getAll(name);
    if (was.length === now.length && was.every((value, i) => value === now[i])) continue;
    changed = true;
    if (was.length === 0) headers.delete(name);
    else headers.set(name, was);
  }
  if (changed) {
    logger.warn(
      "An onResponse hook changed Content-Length or Transfer-Encoding; the framing is the server's, so they were put back",
      { requestId: id },
    );
  }
}

/**
 * Runs `hooks` in order on the final `response`; returns it, or a promise of it when a hook was
 * asynchronous. A hook that throws is logged and its changes undone: the response goes out as
 * it was before that hook. `started` is when the request reached the application (`now()`).
 */
export function runOnResponse(
  hooks: readonly CompiledHook[],
  state: RequestState,
  response: Response,
  started: number,
  logger: Logger,
  timeout: number | undefined,
  from = 0,
  deadline = timeout === undefined ? undefined : now() + timeout,
): Response | Promise<Response> {
  const id = state.request.requestId;
  for (let i = from; i < hooks.length; i++) {
    // Each hook reads the time taken so far, the hooks before it included (the access log, the
    // outermost, the whole of it).
    state.extra = { response, elapsedMs: now() - started };
    const { statusCode, body } = response;
    const headers = response.headers.clone();
    const failed = (error: unknown) => {
      response.headers = headers;
      logger.error('onResponse hook failed; the response goes out as it was', {
        requestId: id,
        error,
      });
    };
    let result: unknown;
    try {
      result = call(hooks[i] as CompiledHook, state);
    } catch (error) {
      failed(error);
    }
    if (isThenable(result)) {
      return settleBefore(result, deadline, timeout)
        .then(undefined, failed)
        .then(() => {
          restore(response, statusCode, body, logger, id);
          restoreFraming(response.headers, headers, logger, id);
          return runOnResponse(hooks, state, response, started, logger, timeout, i + 1, deadline);
        });
    }
    restore(response, statusCode, body, logger, id);
    restoreFraming(response.headers, headers, logger, id);
  }
  return response;
}

/**
 * `pending`, or a rejection once `deadline` passed: `requestTimeout` bounds the `onResponse`
 * hooks too (counted from their start), so a hook that never settles cannot keep the answer
 * from the client. It is then a failed hook; what it does later changes nothing that is sent.
 */
function settleBefore(
  pending: PromiseLike<unknown>,
  deadline: number | undefined,
  timeout: number | undefined,
): Promise<unknown> {
  if (deadline === undefined) return Promise.resolve(pending);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new Error(`The onResponse hook did not finish within requestTimeout (${timeout} ms)`),
        ),
      Math.max(0, deadline - now()),
    );
    pending.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** The request's start, for `elapsedMs`: taken only where some hook will read it. */
export function now(): number {
  return performance.now();
}
