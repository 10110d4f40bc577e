/**
 * The invocations that fail outside the application's handlers: a startup that failed (logged,
 * and counted on the metrics line, before the invocation rejects), and a response body that fails
 * while it is read whole or makes a result too large to return (answered through the
 * application's error path).
 */
import type { RestApplication } from '../../app/application.js';
import { dispatch } from '../../app/kernel.js';
import type { Logger } from '../../app/logger.js';
import { HttpError, libraryAnswer } from '../../errors.js';
import type { Request } from '../../request.js';
import type { Response } from '../../response.js';
import type { LambdaContext as Context, GatewayEvent } from './events.js';
import type { MetricsPublisher } from './metrics/entry.js';
import { invocationEntry, type MetricsLine, publishEntry } from './metrics/invocation.js';
import { InvocationMetrics } from './metrics/recorder.js';
import { optionalObject } from './request-parts.js';
import { MAX_RESULT_BYTES } from './result-size.js';

/** The event's method, upper-cased: `httpMethod` (REST, ALB) or `requestContext.http.method`. */
export function eventMethod(event: GatewayEvent): string | undefined {
  const fields = event as {
    httpMethod?: unknown;
    requestContext?: { http?: { method?: unknown } };
  };
  const method = fields.httpMethod ?? fields.requestContext?.http?.method;
  return typeof method === 'string' ? method.toUpperCase() : undefined;
}

/**
 * Logs a failed startup for the invocation it rejects, with the id its request would have had,
 * and writes the invocation's metrics line; the publishing, when there is a line to write.
 */
export function reportStartupFailure(
  event: GatewayEvent,
  context: Context | undefined,
  start: number,
  error: unknown,
  logger: Logger,
  publisher: MetricsPublisher | undefined,
  metricsLine: MetricsLine,
): Promise<void> | undefined {
  // The id the request would have had (the gateway's, else the invocation's), as on every
  // line written for a request.
  const gatewayId = optionalObject(
    (event as { requestContext?: unknown }).requestContext,
  )?.requestId;
  const requestId = typeof gatewayId === 'string' ? gatewayId : context?.awsRequestId;
  logger.error('Application startup failed; the invocation is rejected', {
    requestId,
    awsRequestId: context?.awsRequestId,
    error,
  });
  // Every invocation writes its line, a rejected one too, so Count and 5XXError count it.
  if (publisher !== undefined) {
    const { path, rawPath } = event as { path?: unknown; rawPath?: unknown };
    const rawTarget = rawPath ?? path;
    const request = {
      method: eventMethod(event) ?? '',
      path: typeof rawTarget === 'string' ? rawTarget : '',
      requestId,
      // Not a template: the `route` value of an invocation no route could see.
      routeTemplate: 'STARTUP_FAILED',
    };
    const entry = invocationEntry(metricsLine, new InvocationMetrics(), {
      request,
      status: 500,
      latency: performance.now() - start,
      context,
    });
    return publishEntry(publisher, entry, logger);
  }
  return undefined;
}

/**
 * A body that failed while it was read whole, before anything was sent: logged with the
 * request id, and answered with a 500 through the application's error path (its error
 * handlers, default headers and CORS), as a thrown error would be. The failure is the error's
 * `cause`, for error handlers that look. A file removed since its lookup is the 404 instead,
 * unlogged, as on the other adapters; a stream `requestTimeout` stopped is the timeout's 503.
 */
export function answerBodyFailure(
  app: RestApplication<never>,
  logger: Logger,
  request: Request,
  error: unknown,
): Promise<Response> {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return Promise.resolve(dispatch(app, request, new HttpError(404), true));
  }
  // `requestTimeout` ran out while the body was still being produced: as for an answer not
  // ready in time, the client gets the 503, since nothing was sent yet.
  if (error instanceof DOMException && error.name === 'TimeoutError') {
    logger.warn('Request timed out: the response body was not produced in time; answering 503', {
      requestId: request.requestId,
      method: request.method,
      path: request.path,
    });
    return Promise.resolve(
      dispatch(app, request, libraryAnswer(new HttpError(503, error.message)), true),
    );
  }
  logger.error('Response body failed while it was read; answering 500', {
    requestId: request.requestId,
    method: request.method,
    path: request.path,
    error,
  });
  const refusal = libraryAnswer(new HttpError(500));
  refusal.cause = error;
  return Promise.resolve(dispatch(app, request, refusal, true));
}

/** A buffered result over the payload limit: logged, and answered with the application's 500. */
export function answerOversizedResult(
  app: RestApplication<never>,
  logger: Logger,
  request: Request,
  oversized: number,
): Response | Promise<Response> {
  logger.error(
    `Response of ${oversized} bytes is over the ${MAX_RESULT_BYTES} a buffered Lambda response may hold; answering 500 (serve it with streamHandler)`,
    { requestId: request.requestId, method: request.method, path: request.path },
  );
  return dispatch(app, request, libraryAnswer(new HttpError(500)), true);
}
