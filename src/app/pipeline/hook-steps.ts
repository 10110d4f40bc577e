/**
 * Where the pipeline hands over to the hooks (docs/hooks-and-scope.md): an `onRequest` hook's
 * answer becomes the response the way a handler's result does, and the final response, normal
 * or error, goes through the `onResponse` hooks exactly once.
 */
import { MultiValueHeaders } from '../../http/headers.js';
import { negotiate } from '../../http/media-type.js';
import type { Response } from '../../response.js';
import { runOnResponse } from '../features/hooks.js';
import type { CompiledRenderer } from '../features/renderers.js';
import { newRequestState } from '../inject/request-state.js';
import { stopIfAborted } from '../inject/signal.js';
import { isPending, isThenable } from '../thenable.js';
import type { Exchange } from './exchange.js';
import { type Representations, respond } from './respond.js';

/**
 * Goes on with `next` when the `onRequest` hooks let the request through, or answers with
 * what a hook returned (a Response or a tuple, rendered like a handler's result).
 */
export function afterOnRequest(
  exchange: Exchange,
  outcome: unknown,
  next: () => Response | Promise<Response>,
): Response | Promise<Response> {
  if (outcome === undefined) return next();
  if (isThenable(outcome)) {
    return Promise.resolve(outcome).then((answer) => {
      // The hooks took their time: no step starts once the request's signal fired.
      stopIfAborted(exchange.state);
      return answer === undefined ? next() : hookAnswer(exchange, answer);
    });
  }
  return hookAnswer(exchange, outcome);
}

function hookAnswer(exchange: Exchange, answer: unknown): Response | Promise<Response> {
  const representations: Representations = exchange.route ?? exchange.table;
  const renderers = representations.renderers;
  const accept = MultiValueHeaders.getList(exchange.request.headers, 'accept');
  const negotiated = negotiate(accept, renderers) ?? (renderers[0] as CompiledRenderer);
  return respond(exchange, answer, representations, negotiated);
}

/** The final response, normal or error, through the `onResponse` hooks exactly once. */
export function afterResponse(
  exchange: Exchange,
  response: Response | Promise<Response>,
): Response | Promise<Response> {
  const hooks = exchange.onResponse as NonNullable<Exchange['onResponse']>;
  const run = (final: Response) => {
    exchange.state ??= newRequestState(exchange.request);
    const { logger, requestTimeout } = exchange.host;
    return runOnResponse(hooks, exchange.state, final, exchange.started, logger, requestTimeout);
  };
  return isPending(response) ? response.then(run) : run(response);
}
