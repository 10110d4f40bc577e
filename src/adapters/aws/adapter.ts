/**
 * CloudGatewayAdapter: runs a RestApplication on AWS Lambda behind API Gateway (REST and HTTP
 * APIs), Function URLs and Application Load Balancers.
 */
import type { FileHandle } from 'node:fs/promises';
import type { RestApplication } from '../../app/application.js';
import { adaptLogger, dispatch, isPending } from '../../app/kernel.js';
import type { Logger } from '../../app/logger.js';
import { HttpError } from '../../errors.js';
import type { Request } from '../../request.js';
import type { Response } from '../../response.js';
import { decodeEventBody, encodeResponseBody } from './body.js';
import { processorFor } from './detect.js';
import { newEventRequest } from './event-request.js';
import type {
  ALBEvent,
  ALBResult,
  APIGatewayProxyEvent,
  APIGatewayProxyEventV2,
  APIGatewayProxyResult,
  APIGatewayProxyStructuredResultV2,
  LambdaContext as Context,
  GatewayEvent,
  GatewayResult,
} from './events.js';
import {
  answerBodyFailure,
  answerOversizedResult,
  eventMethod,
  reportStartupFailure,
} from './invocation-failures.js';
import type { MetricsPublisher } from './metrics/entry.js';
import { type MetricsLine, publishInvocation } from './metrics/invocation.js';
import { InvocationMetrics } from './metrics/recorder.js';
import {
  type CloudGatewayAdapterOptions,
  type GatewayHandler,
  metricsSettings,
} from './options.js';
import { normalizeBasePath } from './path.js';
import type { EventProcessor, ProcessorSettings } from './processor.js';
import { forbidsContent } from './result-headers.js';
import { oversizedResult } from './result-size.js';
import {
  type LambdaResponseStream,
  lambdaRuntime,
  openFileBody,
  type StreamingHandler,
  watchClientGone,
  writeStreamedResponse,
} from './stream-response.js';

/**
 * Runs an application on AWS Lambda.
 *
 * Startup handlers start in the constructor (during the cold start) and every event waits for
 * them; when they fail, every invocation rejects with that error.
 *
 * @example
 * import { RestApplication } from 'restmachine';
 * import { CloudGatewayAdapter } from 'restmachine/aws';
 *
 * const app = new RestApplication();
 * app.get('/users/{id}', ({ id }) => ({ id }));
 * export const handler = new CloudGatewayAdapter(app, { serviceName: 'users' }).handler;
 */
export class CloudGatewayAdapter {
  readonly app: RestApplication<never>;
  /** `handleEvent`, bound: `export const handler = adapter.handler`. */
  readonly handler: GatewayHandler;

  readonly #logger: Logger;
  readonly #settings: ProcessorSettings;
  readonly #publisher: MetricsPublisher | undefined;
  readonly #metricsLine: MetricsLine;
  #ready: Promise<void>;
  /** The startup attempt whose failure an event has reported. */
  #reported: Promise<void> | undefined;
  #started = false;
  #warnedCookies = false;
  #streamHandler: StreamingHandler | undefined;

  // biome-ignore lint/suspicious/noExplicitAny: any application, whatever names it registered.
  constructor(app: RestApplication<any>, options: CloudGatewayAdapterOptions = {}) {
    this.app = app as RestApplication<never>;
    this.#logger = options.logger === undefined ? app.logger : adaptLogger(options.logger);
    const metrics = metricsSettings(options);
    this.#publisher = metrics.publisher;
    this.#metricsLine = metrics.line;
    const basePath = normalizeBasePath(options.basePath);
    this.#settings = {
      basePath,
      droppedCookies: (count, requestId) => this.#warnDroppedCookies(count, requestId),
    };
    // Cold start: startup begins now, while Lambda initialises, not on the first event.
    this.#ready = this.#start();
    // handleEvent with its overloads, so `handler` is typed as each event kind's handler.
    this.handler = this.handleEvent.bind(this);
  }

  #warnDroppedCookies(count: number, requestId: string | undefined): void {
    if (this.#warnedCookies) return;
    this.#warnedCookies = true;
    this.#logger.warn(
      `An ALB target group in single-value mode can carry one Set-Cookie header; ${count} were set and only the first was sent. Enable multi-value headers on the target group to send them all.`,
      { requestId },
    );
  }

  /** Starts the application's startup, or resumes one that failed from the handler that failed. */
  #start(): Promise<void> {
    const ready = this.app.startup().then(() => {
      this.#started = true;
    });
    // The failure is reported by each invocation; this only keeps it from being unhandled.
    ready.catch(() => undefined);
    return ready;
  }

  async #awaitStartup(
    event: GatewayEvent,
    context: Context | undefined,
    start: number,
  ): Promise<void> {
    // An attempt whose failure an event already reported (a database not reachable yet) is
    // tried again by the next event, so an instance started during an outage recovers after
    // it. The first event to see a failure reports that one, the cold start's included.
    if (this.#ready === this.#reported) this.#ready = this.#start();
    const attempt = this.#ready;
    try {
      await attempt;
    } catch (error) {
      this.#reported = attempt;
      const publishing = reportStartupFailure(
        event,
        context,
        start,
        error,
        this.#logger,
        this.#publisher,
        this.#metricsLine,
      );
      if (publishing !== undefined) await publishing;
      throw error;
    }
  }

  /**
   * Handles one event: converts it, executes it, converts the response back and publishes the
   * invocation's metrics. Rejects for an event of an unknown shape and when startup failed.
   */
  handleEvent(event: APIGatewayProxyEvent, context?: Context): Promise<APIGatewayProxyResult>;
  handleEvent(
    event: APIGatewayProxyEventV2,
    context?: Context,
  ): Promise<APIGatewayProxyStructuredResultV2>;
  handleEvent(event: ALBEvent, context?: Context): Promise<ALBResult>;
  handleEvent(event: GatewayEvent, context?: Context): Promise<GatewayResult>;
  async handleEvent(event: GatewayEvent, context?: Context): Promise<GatewayResult> {
    const start = this.#publisher === undefined ? 0 : performance.now();
    if (!this.#started) await this.#awaitStartup(event, context, start);
    const { processor, request, metrics, response: settled } = this.#dispatch(event, context);
    let response = isPending(settled) ? await settled : settled;
    const head = request.method === 'HEAD';
    let result = this.#toResult(processor, response, head);
    // Only files and streams are read here, and reading them can fail. No status has been sent
    // yet, so the failure is answered like any error a handler throws (docs/aws-lambda.md).
    if (result instanceof Promise) {
      try {
        result = await result;
      } catch (error) {
        response = await answerBodyFailure(this.app, this.#logger, request, error);
        result = await this.#toResult(processor, response, head);
      }
    }
    const oversized = oversizedResult(result);
    if (oversized !== undefined) {
      response = await answerOversizedResult(this.app, this.#logger, request, oversized);
      result = await this.#toResult(processor, response, head);
    }
    // Awaited only when there is a metrics line to publish: an idle await costs a microtask.
    if (metrics !== undefined) {
      await this.#publish(metrics, request, response, start, context);
    }
    return result;
  }

  /**
   * The handler for Lambda response streaming (Function URLs with invoke mode
   * `RESPONSE_STREAM`): the status, headers and cookies go out first, then the body as it is
   * produced, at the pace the stream takes it; event streams work here. Built on the runtime's
   * `awslambda.streamifyResponse`, read on first use.
   *
   * @example
   * export const handler = new CloudGatewayAdapter(app).streamHandler;
   */
  get streamHandler(): StreamingHandler {
    if (this.#streamHandler === undefined) {
      const runtime = lambdaRuntime();
      this.#streamHandler = runtime.streamifyResponse(
        (event: GatewayEvent, stream: LambdaResponseStream, context?: Context) =>
          this.#stream(runtime, event, stream, context),
      );
    }
    return this.#streamHandler;
  }

  async #stream(
    runtime: ReturnType<typeof lambdaRuntime>,
    event: GatewayEvent,
    stream: LambdaResponseStream,
    context: Context | undefined,
  ): Promise<void> {
    const start = this.#publisher === undefined ? 0 : performance.now();
    if (!this.#started) await this.#awaitStartup(event, context, start);
    const { request, metrics, response: settled } = this.#dispatch(event, context, stream);
    let response = isPending(settled) ? await settled : settled;
    const head = request.method === 'HEAD';
    let file: FileHandle | undefined;
    try {
      file = await openFileBody(response, head);
    } catch (error) {
      // Nothing is sent yet: answered as the buffered handler answers a body that fails.
      response = await answerBodyFailure(this.app, this.#logger, request, error);
    }
    // The status went out with the prelude: a body that fails after it still gets its line,
    // with that status, before the failure reaches the runtime.
    try {
      await writeStreamedResponse(runtime, stream, response, head, this.#logger, file);
    } finally {
      if (metrics !== undefined) {
        await this.#publish(metrics, request, response, start, context);
      }
    }
  }

  /**
   * Converts the event and runs it through the application. `stream` is the response stream of
   * a streaming invocation, whose closing reports the client gone.
   */
  /** Publishes the invocation's metrics line. */
  #publish(
    metrics: InvocationMetrics,
    request: Request,
    response: Response,
    start: number,
    context: Context | undefined,
  ): Promise<void> {
    return publishInvocation(
      this.#publisher as MetricsPublisher,
      this.#metricsLine,
      this.#logger,
      metrics,
      request,
      response,
      start,
      context,
    );
  }

  #dispatch(event: GatewayEvent, context: Context | undefined, stream?: LambdaResponseStream) {
    const processor = processorFor(event);
    const parts = processor.requestParts(event, this.#settings);
    const metrics = this.#publisher === undefined ? undefined : new InvocationMetrics();
    const raw = event as { body?: string | null; isBase64Encoded?: boolean };
    let body: string | Uint8Array | undefined;
    let bodyError: HttpError | undefined;
    try {
      body = decodeEventBody(raw.body, raw.isBase64Encoded);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      bodyError = error;
    }
    const request = newEventRequest(parts, body, event, context, metrics);
    if (stream !== undefined) {
      request.context.onClientGone = (_request, listener) => watchClientGone(stream, listener);
    } else {
      // The buffered handler holds the whole body: the pipeline refuses an event stream for it.
      request.context.buffered = true;
    }
    // An unreadable body is answered through the application's error path, unrouted, so no
    // handler runs. The response itself when the pipeline finished synchronously.
    return { processor, request, metrics, response: dispatch(this.app, request, bodyError) };
  }

  #toResult(
    processor: EventProcessor,
    response: Response,
    head: boolean,
  ): GatewayResult | Promise<GatewayResult> {
    const body = encodeResponseBody(response, head || forbidsContent(response.statusCode));
    if (body instanceof Promise) {
      return body.then(
        (read) => processor.result(response, read, head, this.#settings) as GatewayResult,
      );
    }
    return processor.result(response, body, head, this.#settings) as GatewayResult;
  }

  /**
   * Converts an event into a Request, as `handleEvent` does (without a metrics recorder).
   * Throws `GatewayEventError` for an unknown event and an `HttpError` (400) for a body marked
   * base64 that is not. The request is marked for a buffered result, as `convertFromResponse`
   * makes: the pipeline answers an event stream with the application's 500, as `handleEvent`
   * does, instead of handing `convertFromResponse` a stream it would read forever.
   *
   * @example
   * const request = adapter.convertToRequest(event, context);
   * const response = await app.execute(request);
   */
  convertToRequest(event: GatewayEvent, context?: Context): Request {
    const processor = processorFor(event);
    const parts = processor.requestParts(event, this.#settings);
    const raw = event as { body?: string | null; isBase64Encoded?: boolean };
    const request = newEventRequest(
      parts,
      decodeEventBody(raw.body, raw.isBase64Encoded),
      event,
      context,
      undefined,
    );
    request.context.buffered = true;
    return request;
  }

  /**
   * Converts a Response into the result the event's integration expects.
   *
   * @example
   * return adapter.convertFromResponse(await app.execute(request), event, context);
   */
  convertFromResponse(
    response: Response,
    event: APIGatewayProxyEvent,
    context?: Context,
  ): Promise<APIGatewayProxyResult>;
  convertFromResponse(
    response: Response,
    event: APIGatewayProxyEventV2,
    context?: Context,
  ): Promise<APIGatewayProxyStructuredResultV2>;
  convertFromResponse(response: Response, event: ALBEvent, context?: Context): Promise<ALBResult>;
  convertFromResponse(
    response: Response,
    event: GatewayEvent,
    context?: Context,
  ): Promise<GatewayResult>;
  convertFromResponse(
    response: Response,
    event: GatewayEvent,
    _context?: Context,
  ): Promise<GatewayResult> {
    const processor = processorFor(event);
    const method = response.request?.method ?? eventMethod(event);
    return Promise.resolve(this.#toResult(processor, response, method === 'HEAD'));
  }
}

/** The same adapter under the name AWS users look for. */
export const AwsApiGatewayAdapter = CloudGatewayAdapter;
/** The same adapter under the name AWS users look for. */
export type AwsApiGatewayAdapter = CloudGatewayAdapter;
