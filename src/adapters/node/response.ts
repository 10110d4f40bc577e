/**
 * restmachine `Response` → Node `ServerResponse`: the status and every header in one
 * `writeHead` call, then the body. Text and bytes go out with `end()`; streams and files are
 * piped with backpressure and torn down when the client goes away.
 */
import { createReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import type { Logger } from '../../app/logger.js';
import { discardBody } from '../../http/bytes.js';
import { MultiValueHeaders } from '../../http/headers.js';
import { FileBody, isStream, type Response, streamChunks } from '../../response.js';

/**
 * What writing a response needs from its adapter: the logger, and the count of requests still
 * being worked on (`NodeAdapter.inFlight`), which a streamed or file body is part of until it is
 * sent or torn down.
 */
export interface WriteContext {
  readonly logger: Logger;
  inFlight: number;
}

/** Errors that only mean the client stopped listening; nothing to report. */
function isClientGone(error: NodeJS.ErrnoException): boolean {
  return (
    error.code === 'ERR_STREAM_PREMATURE_CLOSE' ||
    error.code === 'ECONNRESET' ||
    error.code === 'EPIPE' ||
    error.code === 'ERR_STREAM_DESTROYED'
  );
}

/**
 * Sends `response` on `res`. `closeConnection` asks the client to close the connection after
 * this response (used while the server drains for shutdown).
 */
export function writeResponse(
  message: IncomingMessage,
  res: ServerResponse,
  response: Response,
  closeConnection: boolean,
  context: WriteContext,
): void {
  const body = response.body;
  if (res.destroyed || res.writableEnded) {
    discardBody(body);
    return;
  }
  // `writeHead` takes a flat [name, value, name, value, ...] list, which keeps repeated headers
  // (every Set-Cookie on its own line, RFC 6265 §3) without building an object per response.
  const flat = MultiValueHeaders.flattenInto(response.headers, []);
  // A request whose body was not read to the end (an early 413, a handler that ignored a large
  // upload) is answered and then the connection closes: draining an unread body could cost as
  // much as reading it, which is what the limit was for (RFC 9112 §9.6 lets a server close).
  if ((closeConnection || bodyLeftUnread(message)) && !response.headers.has('connection')) {
    flat.push('Connection', 'close');
  }
  try {
    res.writeHead(response.statusCode, flat);
  } catch (error) {
    // Node refuses some values the core lets through (characters above U+00FF); the client gets
    // a plain 500 instead of a broken response, and the log says why.
    const requestId = response.request?.requestId;
    context.logger.error('Response headers could not be written', { requestId, error });
    discardBody(body);
    writeFallback(res, 500, requestId);
    return;
  }
  if (body === undefined || body === null) res.end();
  else if (typeof body === 'string' || body instanceof Uint8Array) res.end(body);
  else if (body instanceof FileBody) sendFile(res, body, reporter(context, res, response));
  else if (isStream(body)) sendStream(res, body, reporter(context, res, response));
  else res.end();
}

/**
 * Whether the request's body is still (partly) unread. A request without a body is not
 * `complete` yet while its headers are being handled, which is when a synchronous answer is
 * written, so the framing headers decide.
 */
function bodyLeftUnread(message: IncomingMessage): boolean {
  if (message.complete) return false;
  const headers = message.headers;
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * A minimal response for when the normal one cannot be written, echoing the request id when
 * there is one (the library made or checked it: always a safe value).
 */
export function writeFallback(res: ServerResponse, status: number, requestId?: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = status === 500 ? 'Internal Server Error' : 'Bad Request';
  const headers = [
    'Content-Type',
    'text/plain; charset=utf-8',
    'Content-Length',
    String(text.length),
  ];
  if (requestId !== undefined) headers.push('X-Request-ID', requestId);
  res.writeHead(status, headers);
  res.end(text);
}

/**
 * What a body stream's end does: it leaves `inFlight`; a failure once the headers are out is
 * logged and cuts the connection. Node's `pipeline` calls it once the source is torn down (a
 * generator's `finally` has run).
 */
function reporter(
  context: WriteContext,
  res: ServerResponse,
  response: Response,
): (error: NodeJS.ErrnoException | null) => void {
  context.inFlight++;
  return (error) => {
    context.inFlight--;
    if (!error) return;
    if (!isClientGone(error)) {
      context.logger.error('Response body stream failed', {
        requestId: response.request?.requestId,
        error,
      });
    }
    // Headers are out, so the status cannot change; cutting the connection tells the client
    // the body is incomplete instead of letting it take a short body as whole.
    if (!res.destroyed) res.destroy();
  };
}

function sendStream(
  res: ServerResponse,
  body: AsyncIterable<Uint8Array | string> | Parameters<typeof streamChunks>[0],
  done: (error: NodeJS.ErrnoException | null) => void,
): void {
  const source = Symbol.asyncIterator in body ? body : streamChunks(body);
  // The status and headers go out now, not with the first chunk, which may be long in coming
  // (an event stream's first event): a browser's EventSource opens on them.
  res.flushHeaders();
  pipeline(source as AsyncIterable<Uint8Array | string>, res, done);
}

function sendFile(
  res: ServerResponse,
  body: FileBody,
  done: (error: NodeJS.ErrnoException | null) => void,
): void {
  // Read in chunks from `start` to `end` (inclusive, as in Content-Range): a range never reads
  // the rest of the file, and a large file never sits in memory.
  const stream =
    body.start === undefined && body.end === undefined
      ? createReadStream(body.path)
      : createReadStream(body.path, { start: body.start, end: body.end });
  pipeline(stream, res, done);
}
