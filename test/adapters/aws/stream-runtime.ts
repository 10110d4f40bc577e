/**
 * A stand-in for the AWS Lambda Node.js runtime's response streaming, shaped as AWS documents it
 * ("Writing response streaming-enabled Lambda functions"; the runtime interface client's
 * `HttpResponseStream`): `awslambda.streamifyResponse(handler)` marks the handler, the runtime
 * calls it with `(event, responseStream, context)`, and `HttpResponseStream.from(stream,
 * prelude)` sets the content type `application/vnd.awslambda.http-integration-response` and,
 * before the first write, writes the prelude as JSON followed by 8 NUL bytes. A handler that
 * rejects has its stream ended as failed. The stream records every chunk and when it came.
 */
import { finished, Writable } from 'node:stream';
import type {
  AwsLambdaGlobal,
  GatewayEvent,
  HttpResponsePrelude,
  LambdaResponseStream,
  StreamingHandler,
} from '../../../src/adapters/aws/index.js';
import { lambdaContext } from './fixtures.js';

export const PRELUDE_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';
const DELIMITER = new Uint8Array(8);
const STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');

/** One chunk the stream received, with the time it arrived (`performance.now()`). */
export interface RecordedChunk {
  bytes: Buffer;
  at: number;
}

export interface RecordingOptions {
  /** The stream's buffer size in bytes (Node's default 16 KiB). */
  highWaterMark?: number;
  /** Milliseconds each write takes, to make the consumer slower than the producer. */
  writeDelay?: number;
  /** Keep only the first `keep` chunks' bytes (the rest are counted), for large bodies. */
  keep?: number;
}

/** The runtime's response stream: a Node `Writable` that records what it was given. */
export class RecordingStream extends Writable implements LambdaResponseStream {
  readonly chunks: RecordedChunk[] = [];
  contentType: string | undefined;
  bytesWritten = 0;
  writes = 0;
  _onBeforeFirstWrite: ((write: (chunk: Uint8Array | string) => boolean) => void) | undefined;
  #wrote = false;
  readonly #delay: number;
  readonly #keep: number;

  constructor(options: RecordingOptions = {}) {
    super({ highWaterMark: options.highWaterMark ?? 16 * 1024 });
    this.#delay = options.writeDelay ?? 0;
    this.#keep = options.keep ?? Number.POSITIVE_INFINITY;
  }

  setContentType(type: string): void {
    if (this.#wrote) throw new Error('Cannot set content-type, too late.');
    this.contentType = type;
  }

  override write(chunk: Uint8Array | string): boolean {
    if (!this.#wrote && typeof this._onBeforeFirstWrite === 'function') {
      this._onBeforeFirstWrite((part) => super.write(part));
    }
    this.#wrote = true;
    return super.write(chunk);
  }

  override _write(chunk: Buffer, _encoding: string, done: (error?: Error | null) => void): void {
    this.writes++;
    this.bytesWritten += chunk.length;
    if (this.chunks.length < this.#keep) this.chunks.push({ bytes: chunk, at: performance.now() });
    if (this.#delay > 0) setTimeout(done, this.#delay);
    else setImmediate(done);
  }

  /** What the runtime sends on: the prelude and the body, split at the 8 NUL bytes. */
  parsed(): { prelude: HttpResponsePrelude; body: Buffer } {
    const all = Buffer.concat(this.chunks.map((chunk) => chunk.bytes));
    const end = all.indexOf(Buffer.from(DELIMITER));
    if (end === -1) throw new Error('no prelude delimiter in the stream');
    return {
      prelude: JSON.parse(all.subarray(0, end).toString()) as HttpResponsePrelude,
      body: all.subarray(end + DELIMITER.length),
    };
  }
}

/** The `awslambda` global, as the runtime defines it before user code loads. */
export function standInRuntime(): AwsLambdaGlobal {
  return {
    streamifyResponse(handler: StreamingHandler): StreamingHandler {
      (handler as unknown as Record<symbol, string>)[STREAMING] = 'response';
      return handler;
    },
    HttpResponseStream: {
      from(stream, prelude) {
        const recording = stream as RecordingStream;
        recording.setContentType(PRELUDE_CONTENT_TYPE);
        // The runtime's check: JSON.stringify never yields a NUL byte, which ends the prelude.
        const json = JSON.stringify(prelude);
        recording._onBeforeFirstWrite = (write) => {
          write(json);
          write(DELIMITER);
        };
        return stream;
      },
    },
  };
}

/** Installs the stand-in as `globalThis.awslambda`; returns a function that removes it. */
export function installRuntime(): () => void {
  const holder = globalThis as unknown as { awslambda?: AwsLambdaGlobal };
  const previous = holder.awslambda;
  holder.awslambda = standInRuntime();
  return () => {
    if (previous === undefined) delete holder.awslambda;
    else holder.awslambda = previous;
  };
}

/** One invocation as the runtime runs it: the handler's outcome and the stream it wrote. */
export interface Invocation {
  stream: RecordingStream;
  /** Settles when the handler's promise does; a rejection is kept as `error`. */
  done: Promise<{ error: unknown }>;
}

/** Invokes a streaming handler the way the runtime does; a rejection ends the stream as failed. */
export function invoke(
  handler: StreamingHandler,
  event: GatewayEvent,
  options?: RecordingOptions,
): Invocation {
  if ((handler as unknown as Record<symbol, unknown>)[STREAMING] !== 'response') {
    throw new Error('the handler was not made by awslambda.streamifyResponse');
  }
  const stream = new RecordingStream(options);
  // Whatever the handler's outcome, the invocation is over once the stream is.
  const over = (outcome: { error: unknown }) =>
    new Promise<{ error: unknown }>((resolve) => {
      if (!stream.writableEnded && !stream.destroyed) stream.end();
      finished(stream, () => resolve(outcome));
    });
  const done = handler(event, stream, lambdaContext()).then(
    () => over({ error: undefined }),
    (error: unknown) => over({ error }),
  );
  return { stream, done };
}
