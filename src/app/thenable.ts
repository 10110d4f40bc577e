/**
 * The pipeline's one asynchronous habit: a step that may finish now or later returns its value
 * or a promise of it, and the next step waits only when it has to. A route whose providers and
 * handler are synchronous therefore answers without allocating a promise.
 */

/** Whether `value` is a promise (or any object with a `then` method). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as PromiseLike<unknown>).then === 'function'
  );
}
