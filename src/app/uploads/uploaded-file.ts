/**
 * The files of `files`: kept in memory up to the spill threshold, in a temporary file above it
 * (./spill.ts). Released with the request: memory is dropped, the temporary file removed.
 */
import { concatBytes } from '../../http/bytes.js';
import type { TempStore } from './spill.js';
import type { UploadedFile } from './types.js';

const READ_SIZE = 64 * 1024;

/** Where a file's content is: chunks in memory, or a temporary file. */
export type FileContent =
  | { kind: 'memory'; bytes: Uint8Array }
  | { kind: 'disk'; path: string; store: TempStore };

function released(): Error {
  return new Error('This upload was released: its request is over');
}

export class StoredFile implements UploadedFile {
  readonly field: string;
  readonly filename: string;
  readonly contentType: string;
  readonly size: number;
  #content: FileContent | undefined;
  /** The streams of a file on disk, each dropped at release if it was never read. */
  readonly #readers: DiskStream[] = [];

  constructor(
    field: string,
    filename: string,
    contentType: string,
    size: number,
    content: FileContent,
  ) {
    this.field = field;
    this.filename = filename;
    this.contentType = contentType;
    this.size = size;
    this.#content = content;
  }

  async bytes(): Promise<Uint8Array> {
    const content = this.#content;
    if (content === undefined) throw released();
    if (content.kind === 'memory') return content.bytes;
    const chunks: Uint8Array[] = [];
    for await (const chunk of this.stream() as unknown as AsyncIterable<Uint8Array>) {
      chunks.push(chunk);
    }
    return concatBytes(chunks, this.size);
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  stream(): ReadableStream<Uint8Array> {
    const content = this.#content;
    if (content === undefined) throw released();
    if (content.kind === 'memory') {
      const bytes = content.bytes;
      return new ReadableStream<Uint8Array>({
        start(controller) {
          if (bytes.length > 0) controller.enqueue(bytes);
          controller.close();
        },
      });
    }
    const reader = diskStream(content.path, content.store);
    this.#readers.push(reader);
    return reader.stream;
  }

  /**
   * Drops the content (the temporary file goes with its store). A stream never read is closed,
   * unless it is `answering` (the stream the response sends: docs/uploads.md) or locked to a
   * reader that feeds it (`file.stream().pipeThrough(...)`).
   */
  release(answering?: object): void {
    this.#content = undefined;
    for (const reader of this.#readers) {
      const kept = answering !== undefined && (reader.stream === answering || reader.stream.locked);
      if (!kept) reader.dropUnread();
    }
    this.#readers.length = 0;
  }
}

interface DiskStream {
  readonly stream: ReadableStream<Uint8Array>;
  /** Closes the file and fails the stream, if nothing read from it yet. */
  dropUnread(): void;
}

/**
 * A temporary file as a stream. The file is opened at once, and the store keeps it until the
 * open finished: from then on the open descriptor holds the content (POSIX keeps a removed
 * file's data while it is open), so a response streaming it outlives the request's release.
 */
function diskStream(path: string, store: TempStore): DiskStream {
  store.openReader();
  let handle: import('node:fs/promises').FileHandle | undefined;
  let dropped = false;
  let read = false;
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  const close = () => {
    const open = handle;
    handle = undefined;
    return open?.close().catch(() => undefined);
  };
  const opened = import('node:fs/promises')
    .then(({ open }) => open(path, 'r'))
    .then((opened) => {
      handle = opened;
      if (dropped) return close();
    })
    .finally(() => store.closeReader());
  const stream = new ReadableStream<Uint8Array>(
    {
      start: (started) => {
        controller = started;
        return opened;
      },
      async pull(controller) {
        read = true;
        try {
          if (handle === undefined) throw released();
          const buffer = new Uint8Array(READ_SIZE);
          const { bytesRead } = await handle.read(buffer, 0, READ_SIZE, null);
          if (bytesRead === 0) {
            await close();
            controller.close();
          } else controller.enqueue(buffer.subarray(0, bytesRead));
        } catch (error) {
          await close();
          controller.error(error);
        }
      },
      cancel: close,
    },
    { highWaterMark: 0 },
  );
  return {
    stream,
    dropUnread() {
      if (read || dropped) return;
      dropped = true;
      void close();
      try {
        controller?.error(released());
      } catch {
        // Already closed or errored.
      }
    },
  };
}
