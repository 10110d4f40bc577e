/**
 * The compile-time half of "results that cannot be represented" (docs/application.md, "Handler
 * results"): a handler whose result type TypeScript can see to be a Map, a Set, a function, a
 * symbol or a bigint does not compile, because JSON would send it as `{}`, nothing or an error.
 * The run-time half is pipeline/unrepresentable.ts.
 */
import { isWhatwgHeaders } from '../http/header-fields.js';
import { MultiValueHeaders } from '../http/headers.js';
import type { HandlerContext, Registry } from './types.js';

/** Values the built-in renderers cannot represent. */
export type Unrepresentable =
  | ReadonlyMap<unknown, unknown>
  | ReadonlySet<unknown>
  | WeakMap<object, unknown>
  | WeakSet<object>
  | ((...args: never[]) => unknown)
  | symbol
  | bigint;

type IsAny<T> = 0 extends 1 & T ? true : false;

// A result, and for an array or a `[body, status, headers?]` tuple its members too; `any`, as a
// result, an awaited value or a member, is left out (TypeScript cannot see what it holds).
type SeenMembers<T> =
  IsAny<T> extends true
    ? never
    : T extends readonly (infer Member)[]
      ? T | (IsAny<Member> extends true ? never : Member)
      : T;

type Found<R> = Extract<SeenMembers<Awaited<R>>, Unrepresentable>;

/**
 * `unknown` (no constraint) when a handler may return `R`; otherwise an object type whose one
 * property names the mistake, so the compiler error says what is wrong. `any` and `unknown`
 * pass, also awaited (`Promise<any>`) or as an array's members (`any[]`, as database drivers
 * return rows): TypeScript cannot see what they hold, and the run-time check answers for them.
 */
export type Representable<R> =
  IsAny<R> extends true
    ? unknown
    : [Found<R>] extends [never]
      ? unknown
      : {
          'A handler cannot return a Map, Set, function, symbol or bigint: JSON has no representation for it (docs/application.md, "Handler results")': Found<R>;
        };

/**
 * A route handler as registration takes it: its result type `R` is inferred and checked.
 *
 * @example
 * app.get('/tags', () => new Set(['a'])); // compile error: return [...set]
 */
export type CheckedHandler<Deps extends Registry, Path extends string, R> = (
  context: HandlerContext<Deps, Path>,
) => R & Representable<R>;

/** A `[body, status]` or `[body, status, headers]` tuple. */
export function isTuple(value: unknown): value is [unknown, number, unknown?] {
  if (!Array.isArray(value) || (value.length !== 2 && value.length !== 3)) return false;
  const status = value[1];
  if (!Number.isInteger(status) || status < 100 || status > 599) return false;
  return value.length === 2 || isHeaders(value[2]);
}

/**
 * What makes an array no tuple (`isTuple`), for code that needs one (an `onRequest` hook's
 * answer); the status range is the one a final answer may have (finalize.ts).
 */
export function tupleFault(value: readonly unknown[]): string {
  if (value.length !== 2 && value.length !== 3) {
    return `it has ${value.length} members, where a tuple has 2 or 3`;
  }
  const status = value[1];
  if (!Number.isInteger(status) || (status as number) < 100 || (status as number) > 599) {
    return `its status must be an integer from 200 to 599, got ${shown(status)}`;
  }
  return `its headers must be an object (plain, MultiValueHeaders or Headers), got ${shown(value[2])}`;
}

/** A value for a message, without calling its own conversion (which may throw). */
function shown(value: unknown): string {
  if (typeof value === 'string') return `"${value}" (a string)`;
  if (typeof value === 'object' && value !== null) {
    return `a ${Object.prototype.toString.call(value).slice(8, -1)} object`;
  }
  const kind = typeof value;
  return kind === 'symbol' || kind === 'function' ? `a ${kind}` : String(value);
}

/**
 * Headers a tuple may carry, as `HeadersInit` types them: a plain object (or a record without a
 * prototype chain, such as `toDict()` gives), `MultiValueHeaders`, or a WHATWG `Headers`. Any
 * other object (a Date, a class instance) makes the array data, whose fields must never become
 * response headers.
 */
function isHeaders(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return (
    prototype === Object.prototype ||
    prototype === null ||
    Object.getPrototypeOf(prototype) === null ||
    value instanceof MultiValueHeaders ||
    isWhatwgHeaders(value)
  );
}
