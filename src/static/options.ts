/**
 * The options of `StaticRouter`, checked once at construction.
 */
import type { Logger } from '../app/logger.js';
import { knownOptions } from '../app/options.js';
import { isFieldValue } from '../http/header-fields.js';
import { StaticRouterError } from './errors.js';
import { resolveStaticPath } from './resolve.js';

/**
 * An S3 client, as the `s3` option of `StaticRouter` takes it: an `S3Client` of
 * `@aws-sdk/client-s3` is one. Declared here, not imported from the optional peer, so that
 * the public declarations type-check without it installed.
 */
export interface S3ClientLike {
  send(command: never, options?: never): Promise<unknown>;
}

/**
 * The options of `new S3Client(options)` (the SDK's `S3ClientConfig`, e.g.
 * `{ region: 'eu-west-1' }`): any object, checked by the SDK when it creates the client. Not
 * narrower, so that both an object literal with any of the SDK's options and a value typed
 * `S3ClientConfig` fit without the package's types being needed here.
 */
export type S3ClientConfigLike = object;

/**
 * The module of `@aws-sdk/client-s3`, as the `s3Sdk` option of `StaticRouter` takes it
 * (`import * as S3 from '@aws-sdk/client-s3'`): the parts the router uses, declared here so that
 * the public declarations type-check without the package.
 */
export interface S3SdkLike {
  S3Client: new (config: never) => S3ClientLike;
  GetObjectCommand: new (input: never) => unknown;
  HeadObjectCommand: new (input: never) => unknown;
}

/** How to treat files and directories whose name starts with a dot (`.env`, `.git/`). */
export type DotfilesPolicy = 'ignore' | 'allow' | 'deny';

/** Bounds of the in-memory cache of small local files. */
export interface StaticCacheOptions {
  /** Files up to this size (bytes) are kept in memory; default 256 KiB. */
  maxFileSize?: number;
  /** The most bytes of file content kept at once; default 32 MiB. */
  maxBytes?: number;
}
const CACHE_OPTIONS = Object.keys({
  maxFileSize: true,
  maxBytes: true,
} satisfies Record<keyof StaticCacheOptions, true>);

/** Options of {@link StaticRouter}. */
export interface StaticRouterOptions {
  /** The file served for a directory path (ending in `/`); default `index.html`. */
  indexFile?: string;
  /** S3 only: when a key is missing, retry it as `<path>/<indexFile>`; default false. */
  retryWithIndex?: boolean;
  /** S3 only: the client to use, or the configuration of one to create. */
  s3?: S3ClientLike | S3ClientConfigLike;
  /**
   * S3 only: the SDK's module, used instead of importing `@aws-sdk/client-s3` at the first S3
   * request. That import is one a bundler does not follow, so a bundle that must carry the SDK
   * passes it here (docs/static-files.md, Bundling).
   */
  s3Sdk?: S3SdkLike;
  /** A `Cache-Control` value for every file that `immutable` does not match. */
  cacheControl?: string;
  /**
   * Fingerprinted files (`app.3f9a2c1e.js`), matched against the path below the mount point
   * (`assets/app.3f9a2c1e.js`): served with `Cache-Control: public, max-age=31536000, immutable`.
   */
  immutable?: RegExp;
  /**
   * A file (relative to the location, such as `index.html`) served with 200 for a missing path
   * whose last segment has no extension: the entry page of a single-page application.
   */
  fallback?: string;
  /** Dotfiles: `'ignore'` (default) answers 404 as if absent, `'deny'` 403, `'allow'` serves. */
  dotfiles?: DotfilesPolicy;
  /**
   * Serve `file.br` / `file.gz` in place of `file` when the client accepts that coding, with
   * `Content-Encoding` and `Vary: Accept-Encoding`; default false (each request then looks for
   * the siblings, which costs a file system or S3 call).
   */
  precompressed?: boolean;
  /** Local only: the small-file cache (validated against each file's stat), or `false`. */
  cache?: StaticCacheOptions | false;
  /** Where S3 and read errors are logged; by default they reach the application's logger. */
  logger?: Logger;
}
const STATIC_ROUTER_OPTIONS = Object.keys({
  indexFile: true,
  retryWithIndex: true,
  s3: true,
  s3Sdk: true,
  cacheControl: true,
  immutable: true,
  fallback: true,
  dotfiles: true,
  precompressed: true,
  cache: true,
  logger: true,
} satisfies Record<keyof StaticRouterOptions, true>);

/** The options with defaults applied and every value checked. */
export interface ResolvedOptions {
  indexFile: string;
  retryWithIndex: boolean;
  cacheControl: string | undefined;
  immutable: RegExp | undefined;
  fallback: readonly string[] | undefined;
  dotfiles: DotfilesPolicy;
  precompressed: boolean;
  cache: Required<StaticCacheOptions> | false;
  logger: Logger | undefined;
}

/** `Cache-Control` for files `immutable` matches (RFC 8246). */
export const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * The `Cache-Control` of the file at `relative`: immutable when `immutable` matches it, else the
 * `cacheControl` option, else what the store keeps with the object (`stored`, S3 only).
 */
export function cacheControlFor(
  options: ResolvedOptions,
  relative: string,
  stored?: string,
): string | undefined {
  if (options.immutable?.test(relative)) return IMMUTABLE_CACHE_CONTROL;
  return options.cacheControl ?? stored;
}

const DEFAULT_CACHE: Required<StaticCacheOptions> = {
  maxFileSize: 256 * 1024,
  maxBytes: 32 * 1024 * 1024,
};

function invalid(message: string): StaticRouterError {
  return new StaticRouterError('INVALID_OPTION', `StaticRouter: ${message}`);
}

function refused(message: string): StaticRouterError {
  return new StaticRouterError('INVALID_OPTION', message);
}

/** Checks `options` and applies the defaults; throws {@link StaticRouterError}. */
export function resolveOptions(options: StaticRouterOptions): ResolvedOptions {
  // A misspelt name (`cachecontrol`, `dotFiles`) would leave its option at the default.
  knownOptions('StaticRouter', options, STATIC_ROUTER_OPTIONS, refused);
  const indexFile = options.indexFile ?? 'index.html';
  if (
    typeof indexFile !== 'string' ||
    indexFile === '' ||
    indexFile === '.' ||
    indexFile === '..' ||
    /[/\\\0]/.test(indexFile)
  ) {
    throw invalid(`indexFile must be a plain file name, got ${JSON.stringify(indexFile)}`);
  }
  const cacheControl = options.cacheControl;
  if (
    cacheControl !== undefined &&
    (typeof cacheControl !== 'string' || !isFieldValue(cacheControl))
  ) {
    throw invalid(
      'cacheControl must be a header value: no control characters (CR, LF, NUL...) and none above U+00FF',
    );
  }
  let immutable: RegExp | undefined;
  if (options.immutable !== undefined) {
    if (!(options.immutable instanceof RegExp)) throw invalid('immutable must be a RegExp');
    // Without `g`/`y`, test() keeps no lastIndex between requests.
    immutable = new RegExp(options.immutable.source, options.immutable.flags.replace(/[gy]/g, ''));
  }
  let fallback: readonly string[] | undefined;
  if (options.fallback !== undefined) {
    // A file name, not a request path: each segment is escaped so that the resolver, which
    // decodes a request's escapes, reads `app%20shell.html` or `100%.html` as written, and still
    // refuses `..` and separators.
    const resolved =
      typeof options.fallback === 'string'
        ? resolveStaticPath(`/${options.fallback.split('/').map(encodeURIComponent).join('/')}`)
        : undefined;
    if (typeof resolved !== 'object' || resolved.directory || resolved.segments.length === 0) {
      throw invalid(
        `fallback must name a file inside the location, got ${JSON.stringify(options.fallback)}`,
      );
    }
    fallback = resolved.segments;
  }
  const dotfiles = options.dotfiles ?? 'ignore';
  if (dotfiles !== 'ignore' && dotfiles !== 'allow' && dotfiles !== 'deny') {
    throw invalid(`dotfiles must be 'ignore', 'allow' or 'deny', got ${JSON.stringify(dotfiles)}`);
  }
  let cache: Required<StaticCacheOptions> | false = DEFAULT_CACHE;
  if (options.cache === false) cache = false;
  else if (options.cache !== undefined) {
    knownOptions('StaticRouter cache', options.cache, CACHE_OPTIONS, refused);
    cache = { ...DEFAULT_CACHE, ...options.cache };
    for (const key of ['maxFileSize', 'maxBytes'] as const) {
      const value = cache[key];
      if (!Number.isSafeInteger(value) || value < 0) {
        throw invalid(`cache.${key} must be a non-negative integer, got ${String(value)}`);
      }
    }
  }
  return {
    indexFile,
    retryWithIndex: options.retryWithIndex === true,
    cacheControl,
    immutable,
    fallback,
    dotfiles,
    precompressed: options.precompressed === true,
    cache,
    logger: options.logger,
  };
}
