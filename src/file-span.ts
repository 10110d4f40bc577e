/**
 * What every adapter sends of a file body: exactly the bytes its Content-Length declared
 * (docs/static-files.md). The file may have changed since the pipeline looked it up; one that
 * grew is cut at its looked-up size, one that shrank fails the body.
 */
import { releasingSource } from './http/bytes.js';
import type { FileBody } from './response.js';

/** The inclusive byte span of a file body, as in Content-Range, and its length. */
export interface FileSpan {
  start: number;
  end: number | undefined;
  length: number | undefined;
}

/**
 * The bytes a file body sends: `start`..`end`, else the file as long as it was when its
 * Content-Length was decided (`size`). `length` is undefined only for a body whose size was
 * never looked up: there is no declared length to keep to.
 */
export function fileSpan(body: FileBody): FileSpan {
  const start = body.start ?? 0;
  const end = body.end ?? (body.size === undefined ? undefined : body.size - 1);
  return { start, end, length: end === undefined ? undefined : Math.max(0, end - start + 1) };
}

/**
 * The chunks of `stream`, failing when the file ends before `length` bytes (it shrank since it
 * was looked up). The head promised that many (RFC 9112 §6.2): a short body that ended normally
 * would pass for a whole one, or leave a client on a kept-alive connection waiting for bytes
 * that never come. The failure makes the adapter cut the response instead, which tells the
 * client the body is incomplete (RFC 9112 §6.3), and the log says why.
 */
export function exactly<Chunk extends Uint8Array>(
  stream: AsyncIterable<Chunk>,
  length: number,
  path: string,
): AsyncIterableIterator<Chunk> {
  return releasingSource(exactChunks(stream, length, path), stream);
}

async function* exactChunks<Chunk extends Uint8Array>(
  stream: AsyncIterable<Chunk>,
  length: number,
  path: string,
): AsyncGenerator<Chunk> {
  let sent = 0;
  for await (const chunk of stream) {
    sent += chunk.length;
    yield chunk;
  }
  if (sent < length) {
    throw new Error(
      `File ${path} ended after ${sent} of the ${length} bytes its response declared: it changed while being sent`,
    );
  }
}
