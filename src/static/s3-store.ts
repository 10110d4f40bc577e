/**
 * Objects from an S3 bucket. The request's conditions and range go to S3 itself (a conditional,
 * ranged GetObject), so S3 decides 304 / 412 / 206 / 416 on its own copy and only the bytes
 * asked for leave the bucket.
 */
import type {
  GetObjectCommandInput,
  HeadObjectCommandOutput,
  S3Client,
  S3ClientConfig,
} from '@aws-sdk/client-s3';
import { HttpError } from '../errors.js';
import { discardBody, utf8Length } from '../http/bytes.js';
import { dateHeader, evaluatePreconditions, ifRangeAllows } from '../http/conditional.js';
import { OCTET_STREAM } from '../http/content-types.js';
import { MultiValueHeaders } from '../http/headers.js';
import type { Request } from '../request.js';
import type { Response, ResponseBody } from '../response.js';
import { acceptedVariants, type Precompressed } from './encoding.js';
import { StaticServeError } from './errors.js';
import { cacheControlFor, type ResolvedOptions } from './options.js';
import { notModifiedResponse, type Representation, rangeNotSatisfiable } from './respond.js';
import { matchedTag, storeCanJudge } from './s3-conditions.js';
import { describeS3Error, responseHeader, s3ErrorStatus } from './s3-errors.js';
import { mergedRange, planRange, WHOLE } from './s3-range.js';
import { type Outcome, objectRepresentation, successOutcome } from './s3-representation.js';
import { loadS3Sdk, type S3Sdk } from './s3-sdk.js';

/** S3 refuses keys longer than 1024 bytes: answering 404 at once spares a round trip. */
export const MAX_KEY_BYTES = 1024;

/** An S3 bucket (and key prefix) served over HTTP. */
export class S3Store {
  readonly bucket: string;
  readonly prefix: string;
  readonly #options: ResolvedOptions;
  readonly #given: S3Client | S3ClientConfig | undefined;
  readonly #sdk: S3Sdk | undefined;
  #client: Promise<{ sdk: S3Sdk; client: S3Client }> | undefined;

  constructor(
    bucket: string,
    prefix: string,
    given: S3Client | S3ClientConfig | undefined,
    sdk: S3Sdk | undefined,
    options: ResolvedOptions,
  ) {
    this.#sdk = sdk;
    this.bucket = bucket;
    this.prefix = prefix;
    this.#given = given;
    this.#options = options;
  }

  #connect(): Promise<{ sdk: S3Sdk; client: S3Client }> {
    if (this.#client === undefined) {
      const sdk = this.#sdk;
      const connecting = (sdk === undefined ? loadS3Sdk() : Promise.resolve(sdk)).then((sdk) => {
        const given = this.#given;
        const client =
          given !== undefined && typeof (given as S3Client).send === 'function'
            ? (given as S3Client)
            : new sdk.S3Client((given as S3ClientConfig | undefined) ?? {});
        return { sdk, client };
      });
      // A failed load is tried again by the next request rather than remembered forever.
      connecting.catch(() => {
        if (this.#client === connecting) this.#client = undefined;
      });
      this.#client = connecting;
    }
    return this.#client;
  }

  /**
   * Serves the object at `path` (segments below the mount point): `directory` appends the index
   * file; a missing key retries as `<path>/<indexFile>` when `retryWithIndex` is set, then tries
   * the SPA fallback (docs/static-files.md).
   */
  async serve(
    request: Request,
    segments: readonly string[],
    directory: boolean,
  ): Promise<Response> {
    const options = this.#options;
    const path = segments.join('/');
    const candidates: string[] = [];
    if (directory || path === '') {
      candidates.push(path === '' ? options.indexFile : `${path}/${options.indexFile}`);
    } else {
      candidates.push(path);
      if (options.retryWithIndex) candidates.push(`${path}/${options.indexFile}`);
    }
    let firstFailure: 403 | 404 | undefined;
    for (const relative of candidates) {
      const outcome = await this.#serveKey(request, relative);
      if (outcome.kind === 'response') return outcome.response;
      firstFailure ??= outcome.status;
    }
    const last = segments[segments.length - 1];
    if (
      firstFailure === 404 &&
      options.fallback !== undefined &&
      last !== undefined &&
      !last.includes('.')
    ) {
      const outcome = await this.#serveKey(request, options.fallback.join('/'));
      if (outcome.kind === 'response') return outcome.response;
    }
    throw new HttpError(firstFailure ?? 404);
  }

  /** `relative` (below the prefix), or a precompressed sibling of it the client accepts. */
  async #serveKey(request: Request, relative: string): Promise<Outcome> {
    const key = this.prefix + relative;
    if (utf8Length(key) > MAX_KEY_BYTES) return { kind: 'missing', status: 404 };
    if (this.#options.precompressed) {
      for (const variant of acceptedVariants(
        MultiValueHeaders.getList(request.headers, 'accept-encoding'),
      )) {
        if (utf8Length(key + variant.suffix) > MAX_KEY_BYTES) continue;
        // A variant is served in place of the file (docs/static-files.md), so only where the
        // file exists, as for a local one; else a 404 would hang on Accept-Encoding with no
        // Vary (RFC 9110 §12.5.5). The file is asked for only once a variant would answer
        // (a 304, 412 or 416 included), so a request no variant answers costs nothing more.
        let outcome: Outcome;
        try {
          outcome = await this.#fetch(request, relative, key + variant.suffix, variant);
        } catch (error) {
          if (!(error instanceof HttpError)) throw error;
          const missing = await this.#missing(request, relative, key);
          if (missing !== undefined) return missing;
          throw error;
        }
        if (outcome.kind === 'missing') continue;
        const missing = await this.#missing(request, relative, key);
        if (missing === undefined) return outcome;
        discardBody(outcome.response.body);
        return missing;
      }
    }
    return this.#fetch(request, relative, key, undefined);
  }

  /** Why the object at `key` cannot be served (missing or denied), or `undefined` if it can. */
  async #missing(request: Request, relative: string, key: string): Promise<Outcome | undefined> {
    try {
      const { sdk, client } = await this.#connect();
      await client.send(new sdk.HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return undefined;
    } catch (error) {
      const outcome = await this.#failure(request, relative, key, undefined, error);
      return outcome.kind === 'missing' ? outcome : undefined;
    }
  }

  async #fetch(
    request: Request,
    relative: string,
    key: string,
    variant: Precompressed | undefined,
  ): Promise<Outcome> {
    const { sdk, client } = await this.#connect();
    const headers = request.headers;
    const input: GetObjectCommandInput = { Bucket: this.bucket, Key: key };
    // Lists, weak tags and `If-None-Match: *` are judged here against the object's validators:
    // stores compare a tag as text (moto answers a list that holds the current tag with 412).
    const judgedHere = !storeCanJudge(headers);
    if (!judgedHere) {
      // RFC 9110 §13.2.2: If-Unmodified-Since only counts without If-Match, If-Modified-Since
      // only without If-None-Match. Passing only what counts keeps that order whatever the store.
      // `If-Match: *` holds for any current object (§13.1.1), which the read itself finds or not.
      // A date sent on two lines is ignored (§13.1.3, §13.1.4), as evaluatePreconditions does.
      const ifMatch = headers.get('if-match');
      if (ifMatch === undefined)
        input.IfUnmodifiedSince = dateHeader(headers, 'if-unmodified-since');
      else if (ifMatch.trim() !== '*') input.IfMatch = ifMatch.trim();
      const ifNoneMatch = headers.get('if-none-match');
      if (ifNoneMatch === undefined)
        input.IfModifiedSince = dateHeader(headers, 'if-modified-since');
      else input.IfNoneMatch = ifNoneMatch.trim();
    }
    // Range is for GET only (§14.2).
    const head = request.method === 'HEAD';
    const plan = head ? WHOLE : planRange(headers);
    let range = plan.kind === 'one' ? plan.range : undefined;
    const ifRange = plan.kind === 'whole' ? undefined : headers.get('if-range');
    let guarded = false;
    try {
      let current: HeadObjectCommandOutput | undefined;
      if (judgedHere) {
        current = await client.send(new sdk.HeadObjectCommand({ Bucket: this.bucket, Key: key }));
        const outcome = evaluatePreconditions(request, {
          etag: current.ETag,
          lastModified: current.LastModified,
        });
        if (outcome === 'failed') throw new HttpError(412);
        if (outcome === 'not-modified') {
          const representation = objectRepresentation(this.#options, relative, current, 0, variant);
          return { kind: 'response', response: notModifiedResponse(representation) };
        }
      }
      if (ifRange !== undefined || plan.kind === 'sized') {
        // S3 has no If-Range, and several ranges are merged by the object's size: ask for the
        // validators and the size first (under the request's own conditions, so a 304 or 412
        // comes from here as it would from the read), decide, and make the ranged read
        // conditional on the tag just seen so a replaced object is never spliced into the copy.
        current ??= await client.send(new sdk.HeadObjectCommand({ ...input }));
        const validators = { etag: current.ETag, lastModified: current.LastModified };
        if (ifRange !== undefined && !ifRangeAllows(ifRange, validators)) range = undefined;
        else {
          if (plan.kind === 'sized') range = mergedRange(plan.header, current.ContentLength ?? 0);
          if (range !== undefined && input.IfMatch === undefined && current.ETag !== undefined) {
            input.IfMatch = current.ETag;
            input.IfUnmodifiedSince = undefined;
            guarded = true;
          }
        }
      }
      if (head) {
        const output = current ?? (await client.send(new sdk.HeadObjectCommand(input)));
        return successOutcome(this.#options, relative, output, undefined, variant);
      }
      if (range !== undefined) input.Range = range;
      const get = async () => {
        const output = await client.send(new sdk.GetObjectCommand(input));
        return successOutcome(
          this.#options,
          relative,
          output,
          output.Body as ResponseBody,
          variant,
        );
      };
      try {
        return await get();
      } catch (error) {
        if (!guarded || s3ErrorStatus(error) !== 412) throw error;
        // The object changed since the HeadObject: the client's copy is stale (If-Range), or the
        // range was merged for the old size. Send it all (§14.2 lets a server ignore Range).
        input.IfMatch = undefined;
        input.Range = undefined;
        return await get();
      }
    } catch (error) {
      // A 416 decided here from the object's size is already the answer; the rest is S3's.
      if (error instanceof HttpError) throw error;
      return this.#failure(request, relative, key, variant, error);
    }
  }

  async #failure(
    request: Request,
    relative: string,
    key: string,
    variant: Precompressed | undefined,
    error: unknown,
  ): Promise<Outcome> {
    const status = s3ErrorStatus(error);
    if (status === 404 && isBodilessNotFound(error)) {
      // A HeadObject's 404 has no body to tell a missing key from a missing bucket, which is a
      // deployment mistake (a logged 500, as a GET finds it): a read of one byte tells.
      const answer = await this.#readFirstByte(key);
      if (answer !== undefined) return this.#failure(request, relative, key, variant, answer);
    }
    if (status === 404 || status === 403) return { kind: 'missing', status };
    if (status === 304) {
      const options = this.#options;
      const ownCacheControl = cacheControlFor(options, relative);
      let lastModified: Date | undefined = new Date(responseHeader(error, 'last-modified') ?? '');
      if (Number.isNaN(lastModified.getTime())) lastModified = undefined;
      let cacheControl = ownCacheControl ?? responseHeader(error, 'cache-control');
      // A 304 carries the validators and Cache-Control a 200 would (RFC 9110 §15.4.5); a store
      // that leaves some out (moto keeps only the ETag) is asked for the object's metadata.
      if (lastModified === undefined || cacheControl === undefined) {
        const stored = await this.#head(key);
        lastModified ??= stored?.LastModified;
        if (ownCacheControl === undefined) cacheControl ??= stored?.CacheControl;
      }
      const representation: Representation = {
        size: 0,
        etag: responseHeader(error, 'etag') ?? matchedTag(request),
        lastModified,
        contentType: OCTET_STREAM,
        contentEncoding: variant?.coding,
        cacheControl,
        varyEncoding: options.precompressed,
      };
      return { kind: 'response', response: notModifiedResponse(representation) };
    }
    if (status === 412) throw new HttpError(412);
    if (status === 416) throw rangeNotSatisfiable(await this.#sizeOf(key, error));
    throw new StaticServeError(
      `S3 request for s3://${this.bucket}/${key} failed: ${describeS3Error(error)}`,
      { cause: error },
    );
  }

  /**
   * The error a read of the object's first byte ends in, with the body that names it, or
   * `undefined` when the read finds the object (it appeared since) or fails without a body too.
   */
  async #readFirstByte(key: string): Promise<unknown> {
    try {
      const { sdk, client } = await this.#connect();
      const output = await client.send(
        new sdk.GetObjectCommand({ Bucket: this.bucket, Key: key, Range: 'bytes=0-0' }),
      );
      discardBody(output.Body);
      return undefined;
    } catch (error) {
      // An empty object has no first byte (416): it exists.
      return isBodilessNotFound(error) || s3ErrorStatus(error) === 416 ? undefined : error;
    }
  }

  /** The object's size for a 416, from S3's answer or, failing that, a HeadObject. */
  async #sizeOf(key: string, error: unknown): Promise<number | undefined> {
    const range = responseHeader(error, 'content-range');
    const match = range === undefined ? null : /^bytes \*\/(\d+)$/.exec(range);
    if (match !== null) return Number(match[1]);
    return (await this.#head(key))?.ContentLength;
  }

  /**
   * The object's metadata for an answer that lacks some of it, or `undefined` when the
   * HeadObject fails too (the object may be gone since, or the call denied): the answer then
   * goes out without it.
   */
  async #head(key: string): Promise<HeadObjectCommandOutput | undefined> {
    try {
      const { sdk, client } = await this.#connect();
      return await client.send(new sdk.HeadObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch {
      return undefined;
    }
  }
}

/** A 404 without an error body (a HeadObject's): the code is only the status's name. */
function isBodilessNotFound(error: unknown): boolean {
  const shape = error as { name?: unknown; Code?: unknown } | null;
  return typeof shape === 'object' && shape !== null && (shape.Code ?? shape.name) === 'NotFound';
}
