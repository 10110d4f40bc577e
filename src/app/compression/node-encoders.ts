/**
 * Encoders from `node:zlib` (Node, AWS Lambda, and runtimes that provide the module): gzip and
 * Brotli always, zstd where this Node has it (`zlib.createZstdCompress`, newer than Node 20).
 * Loaded by `encoders.ts` on the first compressed response; the modules themselves are imported
 * here, on first use, so no bundle of the core ever imports `node:` at load time.
 */
import type { ReadStream } from 'node:fs';
import type * as Zlib from 'node:zlib';
import { HttpError } from '../../errors.js';
import { exactly, fileSpan } from '../../file-span.js';
import { streamChunk } from '../../http/bytes.js';
import type { FileBody } from '../../response.js';
import type { Chunks, CompressionLevels, ContentCoding, Encoders } from './encoder-types.js';

type Compressor = Zlib.Gzip | Zlib.BrotliCompress;
type Zstd = {
  createZstdCompress?(options?: object): Compressor;
  zstdCompress?(
    input: Uint8Array,
    options: object,
    done: (error: Error | null, out: Buffer) => void,
  ): void;
};

const DONE: IteratorResult<Uint8Array> = Object.freeze({ done: true, value: undefined });

// node:fs is loaded at the first compressed file body, once: a runtime with zlib but no file
// system (a Worker with nodejs_compat) still compresses everything else.
let fsPromises: Promise<typeof import('node:fs/promises')> | undefined;

/** The encoders of this runtime's `node:zlib`; rejects where there is no such module. */
export async function nodeEncoders(): Promise<Encoders> {
  // zlib alone: `node:fs` is for file bodies only, and a runtime may have the one without the
  // other (Workers with Node compatibility have no file system).
  const zlib = await import('node:zlib');
  const constants = zlib.constants as typeof zlib.constants & Record<string, number>;
  const zstd = zlib as typeof zlib & Zstd;
  const hasZstd =
    typeof zstd.createZstdCompress === 'function' &&
    typeof zstd.zstdCompress === 'function' &&
    constants.ZSTD_c_compressionLevel !== undefined;
  const codings = new Set<ContentCoding>(hasZstd ? ['br', 'zstd', 'gzip'] : ['br', 'gzip']);

  const brotliOptions = (levels: CompressionLevels, size?: number) => ({
    params: {
      [constants.BROTLI_PARAM_QUALITY]: levels.br ?? 4,
      ...(size === undefined ? {} : { [constants.BROTLI_PARAM_SIZE_HINT]: size }),
    },
  });
  const zstdOptions = (levels: CompressionLevels) => ({
    params: { [constants.ZSTD_c_compressionLevel as number]: levels.zstd ?? 3 },
  });

  return {
    codings,
    bytes(coding, input, levels) {
      return new Promise<Uint8Array>((resolve, reject) => {
        const done = (error: Error | null, out: Buffer) => (error ? reject(error) : resolve(out));
        if (coding === 'gzip') zlib.gzip(input, { level: levels.gzip ?? 6 }, done);
        else if (coding === 'br')
          zlib.brotliCompress(input, brotliOptions(levels, input.length), done);
        else
          (zstd.zstdCompress as NonNullable<Zstd['zstdCompress']>)(
            input,
            zstdOptions(levels),
            done,
          );
      });
    },
    stream(coding, source, levels) {
      if (coding === 'gzip') {
        return flushedChunks(
          () => zlib.createGzip({ level: levels.gzip ?? 6 }),
          constants.Z_SYNC_FLUSH,
          source,
        );
      }
      if (coding === 'br') {
        return flushedChunks(
          () => zlib.createBrotliCompress(brotliOptions(levels)),
          constants.BROTLI_OPERATION_FLUSH,
          source,
        );
      }
      const create = zstd.createZstdCompress as NonNullable<Zstd['createZstdCompress']>;
      return flushedChunks(
        () => create(zstdOptions(levels)),
        constants.ZSTD_e_flush as number,
        source,
      );
    },
    file: async (body: FileBody): Promise<Chunks> => {
      // Opened before the head is written, as every adapter opens a file it sends: a file
      // removed since it was looked up is a 404 through the error path, not a 200 cut short.
      fsPromises ??= import('node:fs/promises');
      const { open } = await fsPromises;
      const handle = await open(body.path, 'r').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT' || error.code === 'ENOTDIR') throw new HttpError(404);
        throw error;
      });
      const { start, end, length } = fileSpan(body);
      let stream: ReadStream;
      try {
        stream = handle.createReadStream({ start, end });
      } catch (error) {
        // A `start`/`end` set by hand that Node refuses (negative, fractional).
        await handle.close().catch(() => undefined);
        throw error;
      }
      if (length === undefined) return stream as ReadStream & Chunks;
      // Exactly the bytes the file had when it was looked up (docs/static-files.md): one that
      // grew is cut there, one that shrank fails the body rather than pass for whole. Let go
      // before it is read (the client left, the time ran out), the file is closed: a generator
      // never started would not run its `finally`.
      const chunks = exactly(stream, length, body.path);
      return {
        [Symbol.asyncIterator]: () => chunks,
        destroy: () => stream.destroy(),
      } as Chunks;
    },
  };
}

/**
 * `source` compressed chunk by chunk: each chunk is written and flushed (so what the producer
 * yields reaches the client without waiting for more), and the next is pulled only when the
 * compressed output has been taken. Ending the iteration early destroys the compressor and ends
 * the source's iteration at once.
 */
function flushedChunks(
  create: () => Compressor,
  flushKind: number,
  source: Chunks,
): AsyncIterable<Uint8Array> & { destroy(): void } {
  let started: AsyncIterator<Uint8Array> | undefined;
  return {
    // A body nobody will send (the client left before its head was written) lets go of its
    // source: discardBody() destroys what has a `destroy`.
    destroy() {
      const iterator = started ?? source[Symbol.asyncIterator]();
      Promise.resolve(iterator.return?.()).catch(() => undefined);
    },
    [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
      const iterator = source[Symbol.asyncIterator]();
      const compressor = create();
      const output: Buffer[] = [];
      let failure: Error | undefined;
      let finished = false;
      compressor.on('data', (chunk: Buffer) => output.push(chunk));
      compressor.on('error', (error: Error) => {
        failure = error;
      });
      const take = (): Uint8Array | undefined => {
        if (failure !== undefined) throw failure;
        if (output.length === 0) return undefined;
        const chunk = output.length === 1 ? (output[0] as Buffer) : Buffer.concat(output);
        output.length = 0;
        return chunk;
      };
      const stop = () => {
        finished = true;
        compressor.destroy();
      };
      const pump = async (): Promise<IteratorResult<Uint8Array>> => {
        for (;;) {
          const step = await iterator.next();
          // Stopped while the source was waiting (the client went away): the compressor is gone.
          if (finished) return DONE;
          if (step.done) {
            await new Promise<void>((resolve, reject) => {
              compressor.once('end', resolve);
              compressor.once('error', reject);
              compressor.end();
            });
            finished = true;
            const rest = take();
            return rest === undefined ? DONE : { done: false, value: rest };
          }
          // Checked as the adapters check an uncompressed chunk (docs/streams.md): zlib would
          // take any typed array or DataView as bytes, and refuse others with its own message.
          const chunk = streamChunk(step.value);
          if (chunk.length === 0) continue;
          compressor.write(chunk);
          await new Promise<void>((resolve) => compressor.flush(flushKind, () => resolve()));
          const compressed = take();
          if (compressed !== undefined) return { done: false, value: compressed };
        }
      };
      started = {
        async next() {
          if (finished) return DONE;
          try {
            return await pump();
          } catch (error) {
            stop();
            await Promise.resolve(iterator.return?.()).catch(() => undefined);
            throw error;
          }
        },
        async return() {
          if (!finished) stop();
          await Promise.resolve(iterator.return?.()).catch(() => undefined);
          return DONE;
        },
      };
      return started;
    },
  };
}
