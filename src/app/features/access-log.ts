/**
 * The access log (`new RestApplication({ accessLog: true })`, docs/hooks-and-scope.md): one
 * `info` line per request through the application's logger. It is the outermost `onResponse`
 * hook, so it runs last and logs the response exactly as it goes out.
 */
import type { Request } from '../../request.js';
import type { Response } from '../../response.js';
import type { RequestState } from '../inject/request-state.js';
import type { Logger } from '../logger.js';
import type { CompiledHook } from './hooks.js';

/** The bytes of content sent: 0 without a body, `null` for a stream of unknown length. */
function contentBytes(response: Response): number | null {
  if (response.body === undefined || response.body === null) return 0;
  const declared = response.headers.get('content-length');
  return declared === undefined ? null : Number(declared);
}

/** Writes the access log's line for `response`, the answer to `request`. */
export function writeAccessLine(
  logger: Logger,
  request: Request,
  response: Response,
  elapsedMs: number,
): void {
  logger.info(`${request.method} ${request.path} ${response.statusCode}`, {
    method: request.method,
    path: request.path,
    route: request.routeTemplate ?? null,
    status: response.statusCode,
    bytes: contentBytes(response),
    durationMs: Math.round(elapsedMs * 1000) / 1000,
    requestId: request.requestId,
  });
}

/** The access log as an `onResponse` hook writing to `logger`. */
export function accessLogHook(logger: Logger): CompiledHook {
  const log = (context: { request: Request; response: Response; elapsedMs: number }) =>
    writeAccessLine(logger, context.request, context.response, context.elapsedMs);
  return {
    fn: log,
    names: ['request', 'response', 'elapsedMs'],
    getters: [
      (state: RequestState) => state.request,
      (state: RequestState) => state.extra?.response,
      (state: RequestState) => state.extra?.elapsedMs,
    ],
  };
}
