/**
 * StaticRouter: a Router that serves read-only files from a local directory or an S3 bucket
 * (docs/static-files.md).
 */

import { Router } from '../app/routing/router.js';
import { HttpError, libraryAnswer } from '../errors.js';
import { contentTypeFor } from '../http/content-types.js';
import { notLaterThanNow } from '../http/date.js';
import { MultiValueHeaders } from '../http/headers.js';
import type { Request } from '../request.js';
import { FileBody, Response } from '../response.js';
import { acceptedVariants } from './encoding.js';
import { StaticServeError } from './errors.js';
import { type LocalFile, LocalStore } from './local-store.js';
import { parseLocation } from './location.js';
import {
  cacheControlFor,
  type ResolvedOptions,
  resolveOptions,
  type StaticRouterOptions,
} from './options.js';
import {
  MALFORMED,
  mountPrefixSegments,
  OUTSIDE,
  pathBelowMount,
  resolveStaticPath,
  type StaticPath,
  withoutDotSegments,
} from './resolve.js';
import { type Representation, representationHeaders, respondFromValidators } from './respond.js';
import type { S3Sdk } from './s3-sdk.js';
import { S3Store } from './s3-store.js';

// A redirect target may carry only these characters: everything else in the query is
// percent-encoded, so no header injection and no `\` (which browsers read as `/`).
const UNSAFE_IN_LOCATION = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/g;

function encodeQuery(query: string): string {
  return query.replace(UNSAFE_IN_LOCATION, (char) =>
    Array.from(
      new TextEncoder().encode(char),
      (byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    ).join(''),
  );
}

/** A file's representation as served, and its 200 headers. */
interface Described {
  representation: Representation;
  headers: readonly string[];
}

/**
 * A router that serves files. Mount it like any router; it answers GET and HEAD below its mount
 * point, OPTIONS with `Allow: GET, HEAD, OPTIONS`, and any other method with 405.
 *
 * `serve` is a local directory, or `s3://bucket/prefix/` (also `objstore://bucket/prefix/`),
 * which needs the optional peer dependency `@aws-sdk/client-s3`.
 *
 * @example
 * import { RestApplication } from 'restmachine';
 * import { StaticRouter } from 'restmachine/static';
 *
 * const app = new RestApplication();
 * app.mount('/assets', new StaticRouter('./public', { immutable: /\.[0-9a-f]{8}\./ }));
 * app.mount('/', new StaticRouter('s3://my-site/www/', { retryWithIndex: true, s3: { region: 'eu-west-1' } }));
 */
export class StaticRouter extends Router {
  /** The local directory's real absolute path; `undefined` for S3. */
  readonly directory: string | undefined;
  /** True for an S3 location. */
  readonly isS3: boolean;
  /** The bucket of an S3 location; `undefined` for a directory. */
  readonly s3Bucket: string | undefined;
  /** The key prefix of an S3 location, with its trailing slash (`'assets/'`), `''` at the root. */
  readonly s3Prefix: string | undefined;
  /** The file served for a directory (`'index.html'` by default). */
  readonly indexFile: string;
  /** S3 only: whether a missing key is retried as `<key>/<indexFile>` (false by default). */
  readonly retryWithIndex: boolean;
  readonly #options: ResolvedOptions;
  readonly #local: LocalStore | undefined;
  readonly #s3: S3Store | undefined;
  // Per file, per content coding: `app.js.gz` is both a file of its own (application/gzip) and
  // app.js's gzip variant (application/javascript, Content-Encoding: gzip).
  readonly #described = new WeakMap<LocalFile, Map<string, Described>>();

  constructor(serve: string, options: StaticRouterOptions = {}) {
    super();
    this.#options = resolveOptions(options);
    this.indexFile = this.#options.indexFile;
    this.retryWithIndex = this.#options.retryWithIndex;
    const location = parseLocation(serve);
    if (location.kind === 'local') {
      this.#local = new LocalStore(location.path, this.#options.cache);
      this.directory = this.#local.directory;
      this.isS3 = false;
    } else {
      this.#s3 = new S3Store(
        location.bucket,
        location.prefix,
        options.s3,
        options.s3Sdk as S3Sdk | undefined,
        this.#options,
      );
      this.isS3 = true;
      this.s3Bucket = location.bucket;
      this.s3Prefix = location.prefix;
    }
    const handler = ({ request, pathParams }: { request: Request; pathParams: { path: string } }) =>
      this.#serve(request, pathParams.path);
    // HEAD has its own route so the store can skip the body (an S3 HeadObject, no file read);
    // OPTIONS and the 405s with `Allow: GET, HEAD, OPTIONS` come from the router's matching.
    for (const route of [this.get('/{path*}', handler), this.head('/{path*}', handler)]) {
      // A file is the representation it is: no renderer, so no 406 for `Accept: text/css`.
      route.settings.negotiation = false;
    }
  }

  async #serve(request: Request, catchAll: string): Promise<Response> {
    // The router matched the path without its dot-segments: the file is looked up so too.
    const below = pathBelowMount(withoutDotSegments(request.path), catchAll);
    const resolved = resolveStaticPath(below);
    if (resolved === MALFORMED)
      throw new HttpError(400, 'Malformed percent-encoding in request path');
    if (resolved === OUTSIDE) throw new HttpError(404);
    const options = this.#options;
    if (options.dotfiles !== 'allow' && resolved.segments.some((segment) => segment[0] === '.')) {
      throw new HttpError(options.dotfiles === 'deny' ? 403 : 404);
    }
    try {
      if (this.#s3 !== undefined) {
        return await this.#s3.serve(request, resolved.segments, resolved.directory);
      }
      return await this.#serveLocal(request, below, resolved, this.#local as LocalStore);
    } catch (error) {
      if (error instanceof HttpError) throw error;
      const message =
        error instanceof StaticServeError
          ? error.message
          : `Could not read a static file for ${request.path}: ${(error as Error)?.message ?? String(error)}`;
      const logger = options.logger;
      if (logger === undefined) throw new StaticServeError(message, { cause: error });
      logger.error(message, { requestId: request.requestId, path: request.path, error });
      throw libraryAnswer(new HttpError(500));
    }
  }

  async #serveLocal(
    request: Request,
    below: string,
    resolved: StaticPath,
    store: LocalStore,
  ): Promise<Response> {
    const segments = resolved.segments;
    const found = await store.lookup(segments);
    if (found.kind === 'file') {
      // `style.css/` names a directory that is not there.
      if (resolved.directory) throw new HttpError(404);
      return this.#serveFile(request, store, segments, found);
    }
    if (found.kind === 'directory') {
      if (!resolved.directory) return this.#redirectToDirectory(request, below, segments);
      const indexSegments = [...segments, this.#options.indexFile];
      const index = await store.lookup(indexSegments);
      if (index.kind === 'file') return this.#serveFile(request, store, indexSegments, index);
      throw new HttpError(404);
    }
    const fallback = this.#options.fallback;
    const last = segments[segments.length - 1];
    if (fallback !== undefined && last !== undefined && !last.includes('.')) {
      const page = await store.lookup(fallback);
      if (page.kind === 'file') return this.#serveFile(request, store, fallback, page);
    }
    throw new HttpError(404);
  }

  /**
   * A directory without its trailing slash redirects to the slash form, keeping the query.
   * The target is relative to the directory itself (`./docs/` for `.../docs`, RFC 9110
   * §10.2.2), so it keeps whatever comes before the path the application sees: a gateway's
   * stage or an adapter's `basePath` that the client's URL carries. Its one segment is the
   * directory's normalised name, percent-encoded behind `./`: never a scheme (`a:b/`) nor a
   * reference to another site.
   */
  #redirectToDirectory(request: Request, below: string, segments: readonly string[]): Response {
    let name = segments[segments.length - 1];
    if (name === undefined) {
      const prefix = mountPrefixSegments(withoutDotSegments(request.path), below);
      try {
        name = decodeURIComponent(prefix[prefix.length - 1] ?? '');
      } catch {
        throw new HttpError(400, 'Malformed percent-encoding in request path');
      }
    }
    const query = request.queryString;
    const location = `./${encodeURIComponent(name)}/${query === '' ? '' : `?${encodeQuery(query)}`}`;
    return new Response(301, undefined, { headers: { Location: location } });
  }

  async #serveFile(
    request: Request,
    store: LocalStore,
    segments: readonly string[],
    file: LocalFile,
  ): Promise<Response> {
    const options = this.#options;
    let chosen = file;
    let coding: string | undefined;
    if (options.precompressed) {
      for (const variant of acceptedVariants(
        MultiValueHeaders.getList(request.headers, 'accept-encoding'),
      )) {
        const sibling = await store.lookup(segments, variant.suffix);
        if (sibling.kind === 'file') {
          chosen = sibling;
          coding = variant.coding;
          break;
        }
      }
    }
    const { representation, headers } = this.#describe(chosen, coding, segments);
    return respondFromValidators(request, representation, headers, (start, end) =>
      this.#body(chosen, request, start, end),
    );
  }

  /**
   * The representation of a file and its 200 headers, worked out once per version of the file:
   * a LocalFile object is replaced when the file changes, so the weak map forgets stale ones.
   */
  #describe(file: LocalFile, coding: string | undefined, segments: readonly string[]): Described {
    let codings = this.#described.get(file);
    if (codings === undefined) {
      codings = new Map();
      this.#described.set(file, codings);
    }
    let described = codings.get(coding ?? '');
    if (described === undefined) {
      const options = this.#options;
      const relative = segments.join('/');
      const representation: Representation = {
        size: file.size,
        // The coding is part of the tag: the two variants are different representations.
        etag: coding === undefined ? file.etag : `${file.etag.slice(0, -1)}-${coding}"`,
        // A future mtime is sent as the time of describing this version (RFC 9110 §8.8.2.1),
        // every time while it is remembered: clamped here, it is also the date compared.
        lastModified: notLaterThanNow(file.lastModified),
        contentType: contentTypeFor(relative),
        contentEncoding: coding,
        cacheControl: cacheControlFor(options, relative),
        varyEncoding: options.precompressed,
      };
      described = { representation, headers: representationHeaders(representation) };
      codings.set(coding ?? '', described);
    }
    return described;
  }

  /** The bytes to send: from the cache when the file is small, else streamed from disk. */
  #body(
    file: LocalFile,
    request: Request,
    start: number,
    end: number,
  ): Uint8Array | FileBody | undefined {
    // HEAD sends headers only; reading nothing keeps it cheap.
    if (request.method === 'HEAD') return undefined;
    if (file.bytes !== undefined) {
      return start === 0 && end === file.bytes.length - 1
        ? file.bytes
        : file.bytes.subarray(start, end + 1);
    }
    const body = new FileBody(file.path);
    body.size = file.size;
    if (start !== 0 || end !== file.size - 1) {
      body.start = start;
      body.end = end;
    }
    return body;
  }
}
