/**
 * `formBody` and `files` of a multipart request: every part read before the handler runs, text
 * fields into a record that inherits nothing (first value per name, as for urlencoded forms),
 * files into memory or, past the spill threshold, a temporary file. A failure (a limit, a
 * broken body, an abort) releases whatever was already kept.
 */
import { HttpError } from '../../errors.js';
import { concatBytes } from '../../http/bytes.js';
import { charsetDecoder } from '../../http/charset.js';
import { DataRecord } from '../../http/data-record.js';
import type { Request } from '../../request.js';
import { loadBusboy } from './busboy.js';
import type { MultipartLimits } from './limits.js';
import { PartSource } from './parse.js';
import type { RawPart } from './raw-part.js';
import { TempStore } from './spill.js';
import { StoredFile } from './uploaded-file.js';

/** What a multipart body gave, and how to let go of it. */
export interface CollectedUpload {
  fields: Record<string, string>;
  files: StoredFile[];
}

/** One request's collected upload: the result once read, and its release. */
export interface UploadCollection {
  result: Promise<CollectedUpload>;
  /**
   * Stops reading (with `reason` when it was not asked for) and drops what was kept; a file's
   * stream that was never read is closed unless `keepStreams`.
   */
  release(reason?: unknown, answering?: object): Promise<void>;
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A text field's value in the charset its part declares (RFC 7578 §4.4 allows
 * `text/plain; charset=...`), honoured as a body's is (docs/application.md, with the same
 * labels): UTF-8 without one (RFC 7578 §5.1.2), bytes the charset cannot hold a 400, a charset
 * `TextDecoder` does not know a 415.
 */
export function decodeField(
  bytes: Uint8Array,
  { field, declaredType }: Pick<RawPart, 'field' | 'declaredType'>,
): string {
  const declared = charsetDecoder(declaredType);
  const name = JSON.stringify(field);
  if (declared === null) {
    throw new HttpError(415, `Unsupported charset in ${declaredType} of field ${name}`);
  }
  try {
    return (declared ?? STRICT_UTF8).decode(bytes);
  } catch {
    throw new HttpError(400, `Field ${name} is not valid ${declared?.encoding ?? 'UTF-8'}`);
  }
}

async function readAll(source: PartSource, part: RawPart): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of source.content(part)) {
    chunks.push(chunk);
    total += chunk.length;
  }
  return concatBytes(chunks, total);
}

async function storeFile(
  source: PartSource,
  part: RawPart,
  store: TempStore,
  threshold: number,
): Promise<StoredFile> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let disk: Awaited<ReturnType<TempStore['create']>>;
  try {
    for await (const chunk of source.content(part)) {
      size += chunk.length;
      if (disk !== undefined) {
        await disk.handle.write(chunk);
        continue;
      }
      chunks.push(chunk);
      if (size > threshold) {
        disk = await store.create();
        if (disk !== undefined) {
          for (const held of chunks) await disk.handle.write(held);
          chunks.length = 0;
        }
      }
    }
  } finally {
    await disk?.handle.close();
  }
  const filename = part.filename as string;
  return disk === undefined
    ? new StoredFile(part.field, filename, part.contentType, size, {
        kind: 'memory',
        bytes: concatBytes(chunks, size),
      })
    : new StoredFile(part.field, filename, part.contentType, size, {
        kind: 'disk',
        path: disk.path,
        store,
      });
}

/** Starts reading the multipart body of `request` whole, once the parser is loaded. */
export async function collectUpload(
  request: Request,
  contentType: string,
  limits: MultipartLimits,
): Promise<UploadCollection> {
  const parser = await loadBusboy();
  const store = new TempStore(limits.tmpDir);
  const files: StoredFile[] = [];
  let source: PartSource | undefined;
  const read = async (): Promise<CollectedUpload> => {
    source = new PartSource(request, contentType, limits, parser);
    const fields = new DataRecord<string>();
    for (let part = await source.next(); part !== undefined; part = await source.next()) {
      if (part.filename === undefined) {
        const value = decodeField(await readAll(source, part), part);
        if (!Object.hasOwn(fields, part.field)) fields[part.field] = value;
      } else {
        files.push(await storeFile(source, part, store, limits.spillThreshold));
      }
    }
    return { fields, files };
  };
  // The first reason the upload stopped for is the answer: a release mid-way also breaks what
  // was under way (a temporary file being made), which is not a failure of its own.
  let stopped: { reason: unknown } | undefined;
  const release = (reason?: unknown, answering?: object): Promise<void> => {
    if (reason !== undefined) {
      stopped ??= { reason };
      source?.fail(reason);
    } else source?.close();
    for (const file of files) file.release(answering);
    return store.release();
  };
  const result = read().catch(async (error: unknown) => {
    const reason = stopped?.reason ?? error;
    await release(reason);
    throw reason;
  });
  return { result, release };
}
