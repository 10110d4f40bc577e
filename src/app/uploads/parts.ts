/**
 * `parts`: the parts of a multipart request as they arrive, for handlers that stream uploads
 * somewhere else. Nothing is buffered: a part's content is read from the body while the
 * handler reads it, and the next part is parsed only when the handler asks for it.
 */
import { concatBytes } from '../../http/bytes.js';
import type { Request } from '../../request.js';
import { loadBusboy } from './busboy.js';
import { decodeField } from './collect.js';
import type { MultipartLimits } from './limits.js';
import { PartSource } from './parse.js';
import type { RawPart } from './raw-part.js';
import type { MultipartPart } from './types.js';

function skipped(field: string): Error {
  return new Error(
    `Part "${field}" was skipped: the loop moved to the next part before it was read`,
  );
}

class StreamedPart implements MultipartPart {
  readonly field: string;
  readonly filename: string | undefined;
  readonly contentType: string;
  readonly #source: PartSource;
  readonly #raw: RawPart;

  constructor(source: PartSource, raw: RawPart) {
    this.field = raw.field;
    this.filename = raw.filename;
    this.contentType = raw.contentType;
    this.#source = source;
    this.#raw = raw;
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    if (this.#raw.taken) {
      throw this.#raw.skipped
        ? skipped(this.field)
        : new Error(`The content of part "${this.field}" was already read`);
    }
    return this.#source.read(this.#raw);
  }

  async bytes(): Promise<Uint8Array> {
    const chunks: Uint8Array[] = [];
    for await (const chunk of this) chunks.push(chunk);
    return concatBytes(chunks);
  }

  async text(): Promise<string> {
    return decodeField(await this.bytes(), this.#raw);
  }

  stream(): ReadableStream<Uint8Array> {
    const iterator = this[Symbol.asyncIterator]();
    const raw = this.#raw;
    const field = this.field;
    return new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          try {
            const next = await iterator.next();
            if (!next.done) controller.enqueue(next.value);
            // Ended by the loop going on, not by the part's end: a store reading this later
            // must not take what it got for the whole content (docs/uploads.md, "Parts").
            else if (raw.skipped) controller.error(skipped(field));
            else controller.close();
          } catch (error) {
            controller.error(error);
          }
        },
        async cancel() {
          await iterator.return?.();
        },
      },
      { highWaterMark: 0 },
    );
  }
}

/** What `parts` gives, and how the request lets go of it. */
export interface StreamedUpload {
  parts: AsyncIterable<MultipartPart>;
  release(reason?: unknown): Promise<void>;
}

/**
 * Opens the parts of `request` once the parser is loaded; the body is read only as the handler
 * iterates.
 */
export async function streamParts(
  request: Request,
  contentType: string,
  limits: MultipartLimits,
): Promise<StreamedUpload> {
  const source = new PartSource(request, contentType, limits, await loadBusboy());
  let iterating = false;
  const parts: AsyncIterable<MultipartPart> = {
    [Symbol.asyncIterator]() {
      if (iterating) throw new Error('The parts of a request can be iterated once');
      iterating = true;
      return {
        async next() {
          const raw = await source.next();
          return raw === undefined
            ? { value: undefined, done: true }
            : { value: new StreamedPart(source, raw), done: false };
        },
        // Leaving the loop early leaves the rest of the body unread.
        async return() {
          source.close();
          return { value: undefined, done: true };
        },
      };
    },
  };
  return {
    parts,
    release(reason) {
      if (reason !== undefined) source.fail(reason);
      else source.close();
      return Promise.resolve();
    },
  };
}
