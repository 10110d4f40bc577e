/**
 * The `signal` injectable (docs/streams.md): an `AbortSignal` that fires when the client goes
 * away or the application's `requestTimeout` expires. Its controller is made on first use, so a
 * route that never asks for it pays nothing; the adapter is asked to report a disconnect only
 * then.
 */
import type { RequestState } from './request-state.js';

/** The request's signal, made (and wired to the adapter's disconnect report) on first use. */
export function requestSignal(state: RequestState): AbortSignal {
  let controller = state.abort;
  if (controller === undefined) {
    const made = new AbortController();
    controller = made;
    state.abort = made;
    const request = state.request;
    request.context.onClientGone?.(request, () => {
      if (!made.signal.aborted) made.abort(new DOMException('The client went away', 'AbortError'));
    });
  }
  return controller.signal;
}

/**
 * The `signal` a handler, provider or hook injects. Asked for first once the client is gone (the
 * adapter says so at once), it throws its reason instead: nothing that asks for the signal
 * starts for a request nobody waits for (docs/streams.md).
 */
export function injectedSignal(state: RequestState): AbortSignal {
  const made = state.abort === undefined;
  const signal = requestSignal(state);
  if (made) signal.throwIfAborted();
  return signal;
}

/**
 * Throws the reason of the request's signal once it fired (its timeout answered, or the client
 * went away): the pipeline calls it after each wait, so no step starts for a stopped request.
 */
export function stopIfAborted(state: RequestState | undefined): void {
  state?.abort?.signal.throwIfAborted();
}

/** Fires the request's signal with `reason`, making it first if nothing asked for it yet. */
export function abortRequest(state: RequestState, reason: unknown): void {
  state.abort ??= new AbortController();
  if (!state.abort.signal.aborted) state.abort.abort(reason);
}
