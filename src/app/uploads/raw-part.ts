/**
 * One part of a multipart body as the parser announced it, before it is read: what `PartSource`
 * hands to the collector of `files` and to a handler's `parts` loop.
 */
import type { BusboyFileStream } from '@fastify/busboy';

/** One part as the parser announced it. */
export interface RawPart {
  readonly field: string;
  readonly filename: string | undefined;
  readonly contentType: string;
  /** The part's Content-Type as sent, with its parameters (a text part's charset). */
  readonly declaredType: string | undefined;
  /** `fileSize` for a file, `fieldSize` for a text field. */
  readonly limit: number;
  readonly stream: BusboyFileStream;
  /** Set once something started reading the content. */
  taken: boolean;
  /** Set once its content was read to the end. */
  whole?: true;
  /** Set when the reader asked for the next part before this one was read whole. */
  skipped?: true;
  /** The reader {@link PartSource.read} gave out for the content, if any. */
  reader?: AsyncGenerator<Uint8Array> | undefined;
}
