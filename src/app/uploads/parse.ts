/**
 * The streaming side of uploads: a `multipart/form-data` body fed chunk by chunk to
 * `@fastify/busboy` (the maintained fork of busboy; docs/uploads.md says why), its parts handed
 * out one at a time, with every limit checked as bytes arrive. This module and the parser are
 * loaded by dynamic `import()` only when a multipart body is read (the parser by ./busboy.ts),
 * so the core's import path carries neither.
 *
 * Flow: a pump reads the request body and writes it to the parser; the parser announces each
 * part with a stream of its content; whoever reads the parts (the collector of `files`, or a
 * handler's `parts` loop) reads those streams. Nothing is read ahead of the reader: the parser
 * holds a write until the current part's stream is read, and the pump holds the body until the
 * parser takes the write, so a slow reader slows the client (TCP backpressure), never memory.
 */

import type { EventEmitter } from 'node:events';
import type { BusboyConstructor, BusboyFileStream, BusboyInstance } from '@fastify/busboy';
import { HttpError } from '../../errors.js';
import type { Request, RequestBody } from '../../request.js';
import { bodyChunks } from './body-chunks.js';
import { readDisposition } from './disposition.js';
import { FieldsSizeCount } from './fields-size.js';
import { PartHeaderWatch } from './header-blocks.js';
import {
  type MultipartLimits,
  multipartTotal,
  PART_HEADER_BYTES,
  PART_HEADER_LINES,
  PART_OVERHEAD,
} from './limits.js';
import { checkedBoundary, malformed } from './multipart-checks.js';
import { limitCrossed, notFormData, partHeadersOver, textAfterBoundary } from './parse-errors.js';
import type { RawPart } from './raw-part.js';

/**
 * The parts of one multipart request, in arrival order. `next()` gives the next part once the
 * previous one was read (or skipped); `close()` stops everything: the body is left unread (the
 * Node adapter then closes the connection after answering) and the parser is dropped.
 */
export class PartSource {
  readonly #limits: MultipartLimits;
  readonly #parser: BusboyInstance;
  readonly #watch: PartHeaderWatch;
  readonly #queue: RawPart[] = [];
  #waiter:
    | { resolve: (part: RawPart | undefined) => void; reject: (error: unknown) => void }
    | undefined;
  #error: unknown;
  // A part refused when the parser met it: handed out after the whole parts before it, where
  // #error fails the parts being read too.
  #refusedPart: unknown;
  #ended = false;
  #closed = false;
  #current: RawPart | undefined;
  #wake: (() => void) | undefined;
  #parts = 0;
  #files = 0;
  #fields = 0;
  readonly #fieldsSize: FieldsSizeCount;
  // The header block of the part the parser is announcing, each value as its bytes (latin1).
  #header: Record<string, string[] | undefined> = {};

  /** `parser`: `@fastify/busboy`, as `loadBusboy()` (./busboy.ts) gives it. */
  constructor(
    request: Request,
    contentType: string,
    limits: MultipartLimits,
    parser: BusboyConstructor,
  ) {
    this.#limits = limits;
    this.#fieldsSize = new FieldsSizeCount(limits.fieldsSize);
    const boundary = checkedBoundary(contentType);
    try {
      this.#parser = parser({
        // The checked boundary alone, quoted (its characters need no escaping): the parser
        // cannot take another one from the client's Content-Type than the watch does.
        headers: { 'content-type': `multipart/form-data; boundary="${boundary}"` },
        // Every part comes as a stream: text fields are limited, decoded and kept here, so a
        // field over its limit is a 413 as soon as it crosses it, like a file.
        isPartAFile: () => true,
        // The parser counts every part against `parts`, those it drops unannounced included
        // (no `form-data` disposition, RFC 7578 §4.2), so a flood of them stops at the limit.
        // One over ours: a well-formed part one over is refused below, naming its field.
        // Above the watch's bounds, so the parser never cuts a header block it is given.
        limits: {
          headerSize: PART_OVERHEAD,
          headerPairs: PART_HEADER_LINES,
          parts: limits.parts + 1,
        },
      });
    } catch (error) {
      throw malformed(error);
    }
    this.#watch = new PartHeaderWatch(boundary, PART_HEADER_BYTES, PART_HEADER_LINES);
    // The parser's reading of the name and filename is not used (./disposition.ts says why).
    this.#parser.on('file', (_field, stream, _filename, _encoding, contentType) =>
      this.#announce(stream, contentType),
    );
    this.#parser.on('partsLimit', () =>
      this.#refuseFrom(limitCrossed('parts', limits.parts, undefined)),
    );
    this.#parser.on('error', (error: unknown) => this.fail(malformed(error)));
    // A part the parser drops unannounced (no form-data disposition) is refused as soon as its
    // header block is read: after a large one as the body's last part, the parser takes no more
    // of the body and never finishes, so nothing else would end the request. The parser reads
    // each block in its own listener first, announcing the part if it keeps it.
    const blocks = (this.#parser as unknown as { _parser?: { parser?: EventEmitter } })._parser
      ?.parser;
    let headerBlocks = 0;
    blocks?.on('part', (part: EventEmitter) => {
      // Before the parser's own listener, which announces the part: its headers as sent, where
      // the name and filename are read (./disposition.ts) and a text part's charset declared.
      part.prependListener('header', (header: Record<string, string[] | undefined>) => {
        this.#header = header;
      });
      part.once('header', () => {
        if (++headerBlocks > this.#parts && !this.#closed) this.#refuseFrom(notFormData());
      });
    });
    this.#parser.on('finish', () => {
      if (!this.#closed && this.#dropped()) return this.#refuseFrom(notFormData());
      this.#ended = true;
      this.#settle();
    });
    void this.#pump(request.body);
  }

  #announce(stream: BusboyFileStream, contentType: string): void {
    // The stream must flow for the parser to go on, even when the part is refused.
    stream.on('error', () => undefined);
    if (this.#closed) {
      stream.resume();
      return;
    }
    this.#parts++;
    let part: RawPart;
    try {
      part = this.#admitted(stream, contentType);
    } catch (refusal) {
      stream.resume();
      this.#refuseFrom(refusal);
      return;
    }
    this.#queue.push(part);
    this.#settle();
  }

  /**
   * Whether the parser dropped a part without announcing it: it emits no event for those, only
   * counts them, so its count is compared with the parts announced so far (`#parts`).
   */
  #dropped(): boolean {
    const counted = (this.#parser as unknown as { _parser?: { _nparts?: unknown } })._parser
      ?._nparts;
    return typeof counted === 'number' && counted > this.#parts;
  }

  /**
   * The part the parser announced, or the refusal it throws: no form-data part, a disposition
   * that cannot be read one way only (./disposition.ts), a count over its limit.
   */
  #admitted(stream: BusboyFileStream, contentType: string): RawPart {
    if (this.#dropped()) throw notFormData();
    const header = this.#header;
    const { field, filename } = readDisposition(header['content-disposition']);
    const limits = this.#limits;
    if (this.#parts > limits.parts) throw limitCrossed('parts', limits.parts, field, filename);
    if (filename !== undefined && ++this.#files > limits.files) {
      throw limitCrossed('files', limits.files, field, filename);
    }
    if (filename === undefined && ++this.#fields > limits.fields) {
      throw limitCrossed('fields', limits.fields, field);
    }
    const limit = filename === undefined ? limits.fieldSize : limits.fileSize;
    const declaredType = header['content-type']?.[0];
    return { field, filename, contentType, declaredType, limit, stream, taken: false };
  }

  async #pump(body: RequestBody | undefined): Promise<void> {
    const total = multipartTotal(this.#limits);
    let received = 0;
    try {
      for await (const chunk of bodyChunks(body)) {
        if (this.#closed) return;
        received += chunk.length;
        if (received > total)
          throw limitCrossed('size', total, this.#current?.field, this.#current?.filename);
        const fault = this.#watch.read(chunk);
        if (fault === 'header block over the bound') throw partHeadersOver();
        if (fault === 'text after the boundary') throw textAfterBoundary();
        await this.#write(chunk);
        if (this.#closed) return;
      }
      this.#parser.end();
    } catch (error) {
      this.fail(error);
    }
  }

  /** Resolves once the parser took `chunk`, or at once when the source closes. */
  #write(chunk: Buffer): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#wake = resolve;
      this.#parser.write(chunk, (error) => {
        this.#wake = undefined;
        if (error) reject(error);
        else resolve();
      });
    });
  }

  #settle(): void {
    const waiter = this.#waiter;
    if (waiter === undefined) return;
    if (this.#queue.length > 0) {
      this.#waiter = undefined;
      this.#current = this.#queue.shift() as RawPart;
      waiter.resolve(this.#current);
    } else if (this.#error !== undefined || this.#refusedPart !== undefined) {
      this.#waiter = undefined;
      waiter.reject(this.#error ?? this.#refusedPart);
    } else if (this.#ended) {
      this.#waiter = undefined;
      waiter.resolve(undefined);
    }
  }

  /**
   * The next part (`undefined` after the last). The rest of the previous one is skipped: all of
   * it when unread, and what is left when a reader stopped half-way (a file's first bytes
   * checked, say), whose reader is ended.
   */
  async next(): Promise<RawPart | undefined> {
    const previous = this.#current;
    if (previous !== undefined) {
      if (!previous.whole) previous.skipped = true;
      await previous.reader?.return(undefined);
      if (!previous.taken) this.#skip(previous, 0);
    }
    this.#current = undefined;
    if (this.#waiter !== undefined)
      return Promise.reject(new Error('Parts are read one at a time'));
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
      this.#settle();
    });
  }

  /** A reader of `part`'s content ({@link content}), ended if still open when `next()` is asked. */
  read(part: RawPart): AsyncGenerator<Uint8Array> {
    const reader = this.content(part);
    part.reader = reader;
    return reader;
  }

  /**
   * The content of `part`, chunk by chunk, within its limit: crossing it fails the whole source
   * with a 413 at once. Leaving early skips the rest of the part (still within its limit).
   */
  async *content(part: RawPart): AsyncGenerator<Uint8Array> {
    part.taken = true;
    let size = 0;
    let finished = false;
    const chunks: AsyncIterable<Uint8Array> = part.stream.iterator({ destroyOnReturn: false });
    try {
      for await (const chunk of chunks) {
        this.#throwIfFailed();
        size += chunk.length;
        if (size > part.limit || !this.#fieldsSize.within(part, chunk.length)) {
          this.fail(this.#crossed(part, size));
          this.#throwIfFailed();
        }
        yield chunk;
      }
      finished = true;
      part.whole = true;
    } catch (error) {
      // The part's stream breaks when the body ends inside it; the parser says why.
      if (!(error instanceof HttpError)) this.fail(malformed(error));
      this.#throwIfFailed();
      throw error;
    } finally {
      if (!finished && !this.#closed) this.#skip(part, size);
    }
    // The source may have failed while the part was read (a limit of another kind, a broken
    // body) or closed under it: then the content is not whole.
    this.#throwIfFailed();
  }

  /** Lets the rest of `part` flow past, counting it against its limit. */
  #skip(part: RawPart, already: number): void {
    part.taken = true;
    let size = already;
    part.stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > part.limit || !this.#fieldsSize.within(part, chunk.length)) {
        this.fail(this.#crossed(part, size));
      }
    });
    part.stream.resume();
  }

  #crossed(part: RawPart, size: number): HttpError {
    // Within its own limit: the fields together crossed theirs.
    if (size <= part.limit) return limitCrossed('fieldsSize', this.#fieldsSize.limit, part.field);
    const limit = part.filename === undefined ? 'fieldSize' : 'fileSize';
    return limitCrossed(limit, part.limit, part.field, part.filename);
  }

  #throwIfFailed(): void {
    if (this.#error !== undefined) throw this.#error;
  }

  /** Fails the source with `error` (the first error wins) and stops reading the body. */
  fail(error: unknown): void {
    if (this.#error === undefined) this.#error = error;
    this.close();
    this.#settle();
  }

  /**
   * Refuses a part the parser has just met (over a count limit, or no form-data part): the
   * parts before it are whole and are still handed out, and `error` comes after them. A reader
   * that stops before it (a `parts` loop left early) never meets it, whether the parser read
   * ahead to it (a body in memory, parsed in one go) or not (a body still arriving).
   */
  #refuseFrom(error: unknown): void {
    this.#refusedPart ??= error;
    this.#stop(false);
    this.#settle();
  }

  /** Stops reading: the rest of the body stays unread and the parser is dropped. */
  close(): void {
    this.#stop(true);
  }

  // `dropParts`: the parts not yet handed out go too (they may be incomplete).
  #stop(dropParts: boolean): void {
    if (dropParts) {
      // Part streams end here: a reader waiting on one wakes up (and learns why from #error).
      for (const part of this.#queue.splice(0)) part.stream.destroy();
      this.#current?.stream.destroy();
    }
    if (this.#closed) return;
    this.#closed = true;
    this.#wake?.();
    this.#parser.removeAllListeners('file');
    this.#parser.on('error', () => undefined);
    this.#parser.destroy();
    this.#ended = true;
    this.#settle();
  }
}
