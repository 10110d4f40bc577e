/**
 * restmachine `Response` → Node `ServerResponse`: the status and every header in one
 * `writeHead` call, then the body. Text and bytes go out with `end()`; streams and files are
 * written with backpressure and torn down when the client goes away, and a body that fails
 * midway cuts the connection (on HTTP/2, its stream) once what was written before the failure
 * has been flushed. A file is opened before its head is written and sends exactly the length the
 * head declared.
 */
import type { ReadStream } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { unfinished } from '../../app/kernel.js';
import type { Logger } from '../../app/logger.js';
import { exactly, fileSpan } from '../../file-span.js';
import { discardBody } from '../../http/bytes.js';
import { obsTextAccepted } from '../../http/header-fields.js';
import { MultiValueHeaders } from '../../http/headers.js';
import { reasonPhrase } from '../../http/status.js';
import { FileBody, isStream, type Response, streamChunks } from '../../response.js';
import { closeHttp2AfterResponse, markClosing, unreadBodyCloses } from './connection.js';
import { abandonResponse, cutResponse } from './cut-connection.js';
import { type Http2HeadContext, http2HeadFields } from './http2-response.js';
import { http2Stream, isGone } from './transport.js';
import { EMPTY, writeChunks } from './write-chunks.js';

/**
 * What writing a response needs from its adapter: the logger, the count of requests still being
 * worked on (`NodeAdapter.inFlight`), which a streamed or file body is part of until it is sent or
 * torn down, and what shaping an HTTP/2 head needs (http2-response.ts).
 */
export interface WriteContext extends Http2HeadContext {
  readonly logger: Logger;
  inFlight: number;
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
  if (isGone(res) || res.writableEnded) {
    discardBody(body);
    return;
  }
  let close = false;
  // On HTTP/2 a response has no connection of its own to close: its stream ends instead.
  if (message.httpVersionMajor >= 2) closeHttp2AfterResponse(message, res, closeConnection);
  else close = closeConnection || unreadBodyCloses(message, res);
  if (close) markClosing(message.socket);
  if (body instanceof FileBody) {
    sendFile(res, response, body, close, context);
    return;
  }
  // Each kind of body writes the head itself: a stream starts its iteration first (sendStream).
  if (body === undefined || body === null) {
    if (writeHead(res, response, close, context)) res.end();
  } else if (typeof body === 'string') {
    if (writeHead(res, response, close, context)) {
      res.end(obsTextAccepted ? textBody(body, response) : body);
    }
  } else if (body instanceof Uint8Array) {
    if (writeHead(res, response, close, context)) res.end(body);
  } else if (isStream(body)) sendStream(res, body, response, close, context);
  else if (writeHead(res, response, close, context)) res.end();
}

// A character of obs-text (RFC 9110 §5.5): one octet above 0x7F.
const OBS_TEXT = /[\x80-\xff]/;

/**
 * Whether a header value of `response` holds obs-text. A field value is octets, one per character
 * (RFC 9110 §5.5), and Node writes a head that way before a bytes body or none; but a head it
 * writes together with a text body, or flushes on its own (`flushHeaders()`), goes out in UTF-8,
 * an `é` as two octets. Asked only once the process has accepted such a value.
 */
function headHasObsText(response: Response): boolean {
  for (const [, value] of response.headers) if (OBS_TEXT.test(value)) return true;
  return false;
}

/** What `end()` gets for a text body: its UTF-8 bytes after a head with obs-text. */
function textBody(body: string, response: Response): string | Uint8Array {
  return headHasObsText(response) ? Buffer.from(body, 'utf8') : body;
}

/**
 * Writes the status and every header in one call. Returns false when Node refused them; the
 * client then got a plain 500 and the body must not follow.
 */
function writeHead(
  res: ServerResponse,
  response: Response,
  close: boolean,
  context: WriteContext,
): boolean {
  // `writeHead` takes a flat [name, value, name, value, ...] list, which keeps repeated headers
  // (every Set-Cookie on its own line, RFC 6265 §3) without building an object per response.
  // The connection closes after this response whatever a handler wrote in Connection
  // (keep-alive would invite a request into a closing connection): the field says so.
  // Node closes too after a request that asked it to (`Connection: close`, an HTTP/1.0 client
  // without keep-alive): a handler's `keep-alive` would then say what does not happen, and Node
  // writes its own `close` where no Connection field is given (RFC 9112 §9.6). Only an
  // Http2ServerResponse has no `shouldKeepAlive`: HTTP/2 forbids some fields HTTP/1 sends, and
  // Node refuses a head with one (see http2HeadFields); HTTP/1 pays nothing more than the read.
  const keepAlive: boolean | undefined = res.shouldKeepAlive;
  let flat: string[];
  if (keepAlive === undefined) flat = http2HeadFields(response, context);
  else {
    if (close || !keepAlive) {
      response.headers.delete('connection');
      response.headers.delete('keep-alive');
    }
    flat = MultiValueHeaders.flattenInto(response.headers, []);
    if (close) flat.push('Connection', 'close');
  }
  try {
    res.writeHead(response.statusCode, flat);
    return true;
  } catch (error) {
    // Node refuses some values the core lets through (characters above U+00FF); the client gets
    // a plain 500 instead of a broken response, and the log says why.
    const requestId = response.request?.requestId;
    context.logger.error('Response headers could not be written', { requestId, error });
    writeFallback(res, 500, requestId, close);
    return false;
  }
}

/**
 * A minimal plain-text response for when the normal one cannot be written, echoing the request
 * id when there is one (the library made or checked it: always a safe value). `closeConnection`
 * keeps the request's own reason to close (see {@link writeResponse}). Never throws: a response
 * that cannot even be answered so is abandoned (see {@link abandonResponse}).
 */
export function writeFallback(
  res: ServerResponse,
  status: number,
  requestId?: string,
  closeConnection = false,
): void {
  if (res.headersSent) {
    abandonResponse(res);
    return;
  }
  const text = reasonPhrase(status);
  const headers = [
    'Content-Type',
    'text/plain; charset=utf-8',
    'Content-Length',
    String(text.length),
  ];
  if (requestId !== undefined) headers.push('X-Request-ID', requestId);
  if (closeConnection) headers.push('Connection', 'close');
  try {
    if (http2Stream(res) === undefined) {
      // The reason phrase is given: a writeHead that Node refused has already set the one of the
      // status it was asked for ("200 OK"), which Node would otherwise keep.
      res.writeHead(status, text, headers);
    } else {
      // HTTP/2 has no reason phrase (RFC 9113 §8.3.2). A head Node refused stays on an
      // Http2ServerResponse, and would be sent with this one, or refused with it again.
      for (const name of res.getHeaderNames()) res.removeHeader(name);
      res.sendDate = true;
      res.writeHead(status, headers);
    }
    res.end(text);
  } catch {
    abandonResponse(res);
  }
}

function sendStream(
  res: ServerResponse,
  body: Parameters<typeof streamChunks>[0],
  response: Response,
  close: boolean,
  context: WriteContext,
): void {
  // The iteration starts before the head is written: a source that cannot start (its
  // `[Symbol.asyncIterator]()` throws) is then answered with a whole 500, as on the Fetch
  // adapter, instead of a head and a connection closed with nothing after it.
  let source: ReturnType<typeof streamChunks>;
  try {
    source = streamChunks(body);
  } catch (error) {
    const requestId = response.request?.requestId;
    context.logger.error('Response could not be sent; answering 500', { requestId, error });
    writeFallback(res, 500, requestId, close);
    return;
  }
  if (!writeHead(res, response, close, context)) {
    void source.return?.();
    return;
  }
  // The status and headers go out now, not with the first chunk, which may be long in coming
  // (an event stream's first event): a browser's EventSource opens on them. An empty write sends
  // them too, one octet per character where `flushHeaders()` would write obs-text in UTF-8.
  if (obsTextAccepted && headHasObsText(response)) res.write(EMPTY);
  else res.flushHeaders();
  sendChunks(res, source, () => void source.return?.(), response, context);
}

/**
 * Writes every chunk of `source` on `res` at the pace the client reads, then ends the response;
 * the body counts in `inFlight` until then. A client that goes away has the source released at
 * once by `release` (a stream cancelled or destroyed even while a read waits; a generator's
 * `finally` runs at its next step). A failure of the
 * source is logged and cuts the response instead of ending it (see {@link cutResponse}).
 *
 * Not `stream.pipeline`: on a failure it destroys the response, and with it the chunks written
 * just before, which are still queued (docs/streams.md: what was produced reaches the client).
 */
function sendChunks(
  res: ServerResponse,
  source: AsyncIterable<Uint8Array | string>,
  release: () => void,
  response: Response,
  context: WriteContext,
): void {
  context.inFlight++;
  // A client gone while the source waits for its next chunk: the source (an upstream response,
  // a file, a stream) is released now, not when that chunk comes, which may be never.
  let finished = false;
  res.once('close', () => {
    if (!finished) release();
  });
  // A source stopped by the request's signal may still be cleaning up (a generator's `finally`).
  const settle = (): void => {
    const body = response.body;
    const cleanup = typeof body === 'object' && body !== null ? unfinished(body) : undefined;
    if (cleanup === undefined) context.inFlight--;
    else cleanup.then(() => context.inFlight--);
  };
  writeChunks(res, source).then(
    (complete) => {
      finished = true;
      settle();
      if (complete) res.end();
    },
    (error: unknown) => {
      finished = true;
      settle();
      // A source released because the client went away ends with an error of its own
      // (a premature close): nothing failed that anyone is waiting on.
      if (!isGone(res)) failBody(res, response, error, context);
    },
  );
}

/**
 * The response to a pipelined request waits, without a connection, until those before it are
 * sent, and Node never closes it when the connection goes: nothing waiting on its `close` (its
 * stream's next chunk, the handler's `signal`, `inFlight`) would hear that the client left. It
 * is closed here with its connection, as Node closes a response that has one.
 */
export function closeWithConnection(req: IncomingMessage, res: ServerResponse): void {
  const connection = req.socket;
  // One listener per connection, however many responses queue on it: one each put Node's
  // MaxListenersExceededWarning in the log for any client pipelining eleven requests.
  let queued = QUEUED.get(connection);
  if (queued === undefined) {
    const responses = new Set<ServerResponse>();
    QUEUED.set(connection, responses);
    connection.once('close', () => {
      for (const waiting of responses) {
        if (waiting.socket !== null || waiting.destroyed) continue;
        waiting.destroy();
        waiting.emit('close');
      }
      responses.clear();
    });
    queued = responses;
  }
  const responses = queued;
  responses.add(res);
  res.once('socket', () => responses.delete(res));
}

/** The responses queued on each connection, waiting for those before them to be sent. */
const QUEUED = new WeakMap<IncomingMessage['socket'], Set<ServerResponse>>();

/** Logs a body that failed after its head was written, and cuts it (see {@link cutResponse}). */
function failBody(
  res: ServerResponse,
  response: Response,
  error: unknown,
  context: WriteContext,
): void {
  context.logger.error('Response body stream failed', {
    requestId: response.request?.requestId,
    error,
  });
  // The head went out as a flat list, which Node does not keep: `hasHeader` cannot tell.
  cutResponse(res, response.headers.has('content-length'));
}

/**
 * Sends a file body. The file is opened before the head is written: it may have gone since the
 * pipeline looked it up, and a client must then get a whole response, the 404 any missing file
 * gets (docs/static-files.md), or the generic 500 when it cannot be opened, rather than a head
 * followed by a cut connection.
 */
function sendFile(
  res: ServerResponse,
  response: Response,
  body: FileBody,
  close: boolean,
  context: WriteContext,
): void {
  // Opening is part of sending: shutdown waits for it as it waits for the body.
  context.inFlight++;
  open(body.path, 'r').then(
    (handle) => {
      context.inFlight--;
      streamFile(res, response, body, handle, close, context);
    },
    (error: NodeJS.ErrnoException) => {
      context.inFlight--;
      answerUnopenedFile(res, response, error, close, context);
    },
  );
}

function answerUnopenedFile(
  res: ServerResponse,
  response: Response,
  error: NodeJS.ErrnoException,
  close: boolean,
  context: WriteContext,
): void {
  if (isGone(res)) return;
  const requestId = response.request?.requestId;
  if (error.code === 'ENOENT' || error.code === 'ENOTDIR') {
    writeFallback(res, 404, requestId, close);
    return;
  }
  context.logger.error('File body could not be opened', { requestId, error });
  writeFallback(res, 500, requestId, close);
}

function streamFile(
  res: ServerResponse,
  response: Response,
  body: FileBody,
  handle: FileHandle,
  close: boolean,
  context: WriteContext,
): void {
  // The client may have left while the file was opened.
  if (isGone(res) || !writeHead(res, response, close, context)) {
    closeQuietly(handle);
    return;
  }
  const span = fileSpan(body);
  if (span.length === 0) {
    closeQuietly(handle);
    res.end();
    return;
  }
  let stream: ReadStream;
  try {
    // Read in chunks, never past `end`: a range never reads the rest of the file, a large file
    // never sits in memory, and a file that grows is not sent beyond its declared length.
    stream = handle.createReadStream({ start: span.start, end: span.end });
  } catch (error) {
    // A `start`/`end` set by hand that Node refuses (negative, fractional). This runs in a
    // promise callback: thrown on, it would be an unhandled rejection, not a logged failure.
    closeQuietly(handle);
    failBody(res, response, error, context);
    return;
  }
  const source = span.length === undefined ? stream : exactly(stream, span.length, body.path);
  sendChunks(res, source, () => stream.destroy(), response, context);
}

function closeQuietly(handle: FileHandle): void {
  // Nothing was read from it; a failure to close has nothing to tell the client or the log.
  handle.close().catch(() => undefined);
}
