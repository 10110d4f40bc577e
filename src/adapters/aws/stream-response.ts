/**
 * Lambda response streaming for Function URLs (docs/aws-lambda.md, "Response streaming"): the
 * runtime's `awslambda` global, and a Response written to its response stream: the HTTP prelude
 * (status, headers, cookies) through `awslambda.HttpResponseStream.from`, then the body as it is
 * produced, never faster than the stream takes it.
 */
import { createReadStream } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { settledWithin, unfinished } from '../../app/kernel.js';
import type { Logger } from '../../app/logger.js';
import { SetupError } from '../../errors.js';
import { exactly, fileSpan } from '../../file-span.js';
import { streamChunk } from '../../http/bytes.js';
import { DataRecord } from '../../http/data-record.js';
import { FileBody, isStream, type Response, streamChunks } from '../../response.js';
import type { GatewayEvent, LambdaContext } from './events.js';
import { forbidsContent } from './result-headers.js';

/**
 * The writable stream the runtime hands a streaming handler: a Node `Writable` as far as this
 * module is concerned.
 */
export interface LambdaResponseStream {
  write(chunk: Uint8Array | string): boolean;
  end(callback?: () => void): void;
  once(
    event: 'drain' | 'close' | 'error' | 'finish',
    listener: (...args: unknown[]) => void,
  ): unknown;
  off(
    event: 'drain' | 'close' | 'error' | 'finish',
    listener: (...args: unknown[]) => void,
  ): unknown;
  readonly destroyed?: boolean;
  readonly writableFinished?: boolean;
}

/** What `awslambda.HttpResponseStream.from` sends before the body (a JSON document). */
export interface HttpResponsePrelude {
  statusCode: number;
  headers: Record<string, string>;
  cookies: string[];
}

/** A response streaming handler, as `awslambda.streamifyResponse` returns it. */
export type StreamingHandler = (
  event: GatewayEvent,
  responseStream: LambdaResponseStream,
  context?: LambdaContext,
) => Promise<void>;

/** The parts of the runtime's `awslambda` global this adapter uses, as AWS documents them. */
export interface AwsLambdaGlobal {
  streamifyResponse(handler: StreamingHandler): StreamingHandler;
  HttpResponseStream: {
    from(stream: LambdaResponseStream, prelude: HttpResponsePrelude): LambdaResponseStream;
  };
}

/**
 * The runtime's `awslambda` global. The Node.js runtime defines it before user code loads; it is
 * read when `streamHandler` is first used, so a buffered handler never needs it.
 */
export function lambdaRuntime(): AwsLambdaGlobal {
  const runtime = (globalThis as unknown as { awslambda?: Partial<AwsLambdaGlobal> }).awslambda;
  if (
    typeof runtime?.streamifyResponse !== 'function' ||
    typeof runtime.HttpResponseStream?.from !== 'function'
  ) {
    throw new SetupError(
      'INVALID_OPTION',
      'streamHandler needs the AWS Lambda Node.js runtime (its awslambda global with ' +
        'streamifyResponse and HttpResponseStream); use handler outside it',
    );
  }
  return runtime as AwsLambdaGlobal;
}

/**
 * The prelude of `response`: headers as a Function URL takes them (repeated ones joined with
 * commas, RFC 9110 §5.3), every `Set-Cookie` in `cookies`, one each.
 */
export function preludeOf(response: Response): HttpResponsePrelude {
  const headers = new DataRecord<string>(); // `__proto__` is a name like any other
  const cookies: string[] = [];
  const noContent = forbidsContent(response.statusCode);
  response.headers.forEachName((values, name) => {
    const lower = name.toLowerCase();
    if (lower === 'set-cookie') cookies.push(...values);
    else if (!(noContent && lower === 'content-length')) headers[name] = values.join(', ');
  });
  return { statusCode: response.statusCode, headers, cookies };
}

type Chunks = AsyncIterable<Uint8Array | string>;

/**
 * Opens the file of a file body that will be sent, before the prelude goes out: a file removed
 * since the pipeline looked it up must still get a whole answer (the caller's 404), not a 200
 * cut short. Rejects as `open` does; `undefined` when no file will be read.
 */
export function openFileBody(response: Response, head: boolean): Promise<FileHandle | undefined> {
  const body = response.body;
  if (!(body instanceof FileBody) || head || forbidsContent(response.statusCode)) {
    return Promise.resolve(undefined);
  }
  return open(body.path, 'r');
}

function bodyChunks(
  response: Response,
  omit: boolean,
  file: FileHandle | undefined,
): Chunks | Uint8Array | string {
  const body = response.body;
  if (omit || body === undefined || body === null) return '';
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof FileBody) return fileChunks(body, file);
  if (isStream(body)) return streamChunks(body);
  return '';
}

/** Exactly the bytes a file body declared (docs/static-files.md), from `file` when it is open. */
function fileChunks(body: FileBody, file: FileHandle | undefined): Chunks | string {
  const { start, end, length } = fileSpan(body);
  if (length === 0) {
    file?.close().catch(() => undefined);
    return '';
  }
  let stream: AsyncIterable<Uint8Array>;
  try {
    // Never read past `end`: a file that grows is not sent beyond its declared length.
    stream =
      file === undefined
        ? createReadStream(body.path, { start, end })
        : file.createReadStream({ start, end });
  } catch (error) {
    // A `start`/`end` set by hand that Node refuses (negative, fractional).
    file?.close().catch(() => undefined);
    throw error;
  }
  return length === undefined ? stream : exactly(stream, length, body.path);
}

/** Resolves once `stream` can take more (`true`), or once it closed or failed (`false`). */
function writable(stream: LambdaResponseStream): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (result: boolean) => () => {
      stream.off('drain', drained);
      stream.off('close', closed);
      stream.off('error', closed);
      resolve(result);
    };
    const drained = done(true);
    const closed = done(false);
    stream.once('drain', drained);
    stream.once('close', closed);
    stream.once('error', closed);
  });
}

/** Ends `stream`; resolves once it finished, or at once when the client already went away. */
function ended(stream: LambdaResponseStream): Promise<void> {
  if (stream.destroyed === true) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('close', () => resolve());
    stream.end(() => resolve());
  });
}

/**
 * Writes `response` to the runtime's `stream`: the prelude first (written by the runtime
 * before the first body chunk, so an empty body still writes one, empty, chunk), then the
 * body chunk by chunk, waiting for `drain` whenever the stream's buffer is full. `head` sends
 * the headers only; `file` is a file body's file, opened by {@link openFileBody}. Resolves when the stream ended or the client went away; rejects when the
 * body fails after the prelude, so the runtime ends the response as failed rather than letting
 * a short body pass for a whole one.
 */
export async function writeStreamedResponse(
  runtime: AwsLambdaGlobal,
  raw: LambdaResponseStream,
  response: Response,
  head: boolean,
  logger: Logger,
  file?: FileHandle,
): Promise<void> {
  const stream = runtime.HttpResponseStream.from(raw, preludeOf(response));
  const body = bodyChunks(response, head || forbidsContent(response.statusCode), file);
  if (typeof body === 'string' || body instanceof Uint8Array) {
    stream.write(body);
    return ended(stream);
  }
  // The prelude goes out now, before the producer's first chunk is ready.
  stream.write('');
  const iterator = body[Symbol.asyncIterator]();
  // A client gone while the producer waits for its next chunk: the producer is let go now (a
  // stream cancelled or destroyed), not when that chunk comes, which may be never; and the loop
  // stops waiting for it, since a generator paused in an `await` cannot return before it.
  let released = false;
  // Ends the wait for the chunk asked for last (a promise per chunk: one kept for the whole
  // response would keep every chunk it was raced with).
  let stopWaiting: (() => void) | undefined;
  const release = () => {
    released = true;
    stopWaiting?.();
    Promise.resolve(iterator.return?.()).catch(() => undefined);
  };
  stream.once('close', release);
  stream.once('error', release);
  try {
    for (;;) {
      const step = await new Promise<Awaited<ReturnType<typeof iterator.next>>>(
        (resolve, reject) => {
          stopWaiting = () => resolve({ done: true, value: undefined });
          iterator.next().then(resolve, reject);
        },
      );
      stopWaiting = undefined;
      if (step.done) break;
      if (stream.destroyed === true) return;
      // Checked as every adapter checks a chunk (docs/streams.md): the runtime's stream would
      // take another typed array as it is, where Node's `ServerResponse` refuses it.
      if (!stream.write(streamChunk(step.value)) && !(await writable(stream))) return;
    }
  } catch (error) {
    // A producer released because the client went away may end with an error of its own (a
    // Node stream's premature close): nothing failed that anyone is waiting on.
    if (released) return;
    logger.error('Response body stream failed after the status was sent', {
      requestId: response.request?.requestId,
      error,
    });
    throw error;
  } finally {
    // A client that went away (or a failure) ends the producer's iteration: a generator's
    // `finally` runs, a Node stream is destroyed; the invocation ends after it, also when the
    // request's signal stopped the producer (the runtime may freeze what runs later), but no
    // later than PRODUCER_GRACE: a producer stuck in an `await` would hold it open for good.
    stream.off('close', release);
    stream.off('error', release);
    const produced = response.body;
    await settledWithin(
      Promise.resolve(iterator.return?.()).then(() =>
        typeof produced === 'object' && produced !== null ? unfinished(produced) : undefined,
      ),
      PRODUCER_GRACE,
    );
  }
  if (released) return;
  return ended(stream);
}

/** How long an invocation waits for a producer it let go to finish, in milliseconds. */
const PRODUCER_GRACE = 1_000;

/** Reports `listener` when the stream closes or fails before the whole response was written. */
export function watchClientGone(stream: LambdaResponseStream, listener: () => void): void {
  const gone = () => {
    if (stream.writableFinished !== true) listener();
  };
  stream.once('close', gone);
  stream.once('error', gone);
}
