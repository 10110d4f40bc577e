/**
 * Files from a local directory: containment against symlinks, and a bounded cache of small files
 * validated against each file's stat on every request.
 */
import type * as Fs from 'node:fs';
import type { Stats } from 'node:fs';
import type * as Path from 'node:path';
import { noBuiltinReason, nodeBuiltin } from '../node-builtin.js';
import { StaticRouterError } from './errors.js';
import type { StaticCacheOptions } from './options.js';

/** A regular file inside the directory. */
export interface LocalFile {
  readonly kind: 'file';
  /** The real path (symlinks resolved) that was checked to lie inside the directory. */
  readonly path: string;
  readonly size: number;
  readonly lastModified: Date;
  /** A strong entity tag from the size and the modification time. */
  readonly etag: string;
  /** The content, when the file is small enough to be cached. */
  readonly bytes: Uint8Array | undefined;
}

/** What a path names inside the directory. */
export type LocalLookup = LocalFile | { readonly kind: 'directory' } | { readonly kind: 'missing' };

const DIRECTORY: LocalLookup = { kind: 'directory' };
const MISSING: LocalLookup = { kind: 'missing' };

// Errors that mean "nothing servable here", whatever the client sent: a missing file, a file
// used as a directory, a name too long, a symlink loop.
const NOT_FOUND_CODES = new Set(['ENOENT', 'ENOTDIR', 'ENAMETOOLONG', 'ELOOP', 'EINVAL']);

function isNotFound(error: unknown): boolean {
  return NOT_FOUND_CODES.has((error as NodeJS.ErrnoException).code ?? '');
}

// Windows reads `C:` as a drive, `file::$DATA` as a stream of `file`, and drops trailing dots and
// spaces (`index.html.` is `index.html`), so such names could escape the checks made on the
// segment text. They are refused there; POSIX file systems treat them as plain names.
const WINDOWS_UNSAFE = /[:<>"|?*]|[. ]$/;
const IS_WINDOWS = globalThis.process?.platform === 'win32';

interface FileSystem {
  fs: typeof Fs;
  path: typeof Path;
}

/**
 * `node:fs` and `node:path`, taken when a local directory is served rather than imported with
 * the module, so `restmachine/static` (and `restmachine/openapi`, which uses it) loads on a
 * runtime without a file system, where an S3 location still works.
 */
function fileSystem(directory: string): FileSystem {
  const fs = nodeBuiltin<typeof Fs>('node:fs');
  const path = nodeBuiltin<typeof Path>('node:path');
  if (fs === undefined || path === undefined) {
    throw new StaticRouterError(
      'NO_FILE_SYSTEM',
      `StaticRouter: serving the local directory ${directory} needs node:fs, and ${noBuiltinReason(fs === undefined ? 'node:fs' : 'node:path')} (Cloudflare Workers: the nodejs_compat and enable_nodejs_fs_module flags); serve an s3:// location instead`,
    );
  }
  return { fs, path };
}

interface CacheEntry {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  result: LocalLookup;
  bytes: number;
}

/** Metadata entries kept at most, whatever their content size. */
const MAX_ENTRIES = 8192;

/**
 * A local directory. Every path is checked twice: lexically (the segments come from
 * `resolveStaticPath`, so they cannot climb out) and on disk (`realpath`, so a symlink inside
 * the directory cannot lead out of it).
 */
export class LocalStore {
  /** The directory's real absolute path. */
  readonly directory: string;
  readonly #inside: string;
  readonly #fs: typeof Fs;
  readonly #separator: string;
  readonly #cache: Map<string, CacheEntry> | undefined;
  readonly #maxFileSize: number;
  readonly #maxBytes: number;
  #cachedBytes = 0;

  constructor(serve: string, cache: Required<StaticCacheOptions> | false) {
    const { fs, path } = fileSystem(serve);
    this.#fs = fs;
    this.#separator = path.sep;
    const absolute = path.resolve(serve);
    let info: Stats;
    try {
      info = fs.statSync(absolute);
    } catch (error) {
      throw new StaticRouterError(
        'DIRECTORY_NOT_FOUND',
        `StaticRouter: directory not found: ${absolute}`,
        { cause: error },
      );
    }
    if (!info.isDirectory()) {
      throw new StaticRouterError('NOT_A_DIRECTORY', `StaticRouter: not a directory: ${absolute}`);
    }
    this.directory = fs.realpathSync(absolute);
    // `/srv/public` must not accept `/srv/public-secret`: compare with the separator appended.
    const sep = path.sep;
    this.#inside = this.directory.endsWith(sep) ? this.directory : this.directory + sep;
    this.#cache = cache === false ? undefined : new Map();
    this.#maxFileSize = cache === false ? 0 : cache.maxFileSize;
    this.#maxBytes = cache === false ? 0 : cache.maxBytes;
  }

  /** Whether `real` (a real path) is the directory or lies inside it. */
  contains(real: string): boolean {
    return real === this.directory || real.startsWith(this.#inside);
  }

  /**
   * What `segments` (+ `suffix`, for a precompressed sibling) name inside the directory. Errors
   * other than "not there" (permissions, I/O) are thrown for the caller to answer 500.
   */
  async lookup(segments: readonly string[], suffix = ''): Promise<LocalLookup> {
    if (IS_WINDOWS && segments.some((segment) => WINDOWS_UNSAFE.test(segment))) return MISSING;
    const path =
      segments.length === 0
        ? this.directory
        : this.#inside + segments.join(this.#separator) + suffix;
    // A synchronous stat, as nginx does in its event loop: on a local disk it is a cached
    // dentry lookup of about a microsecond, several times cheaper than a round trip through
    // libuv's thread pool, and it is the one file system call a cached file costs.
    let info: Stats | undefined;
    try {
      info = this.#fs.statSync(path, { throwIfNoEntry: false });
    } catch (error) {
      if (isNotFound(error)) return MISSING;
      throw error;
    }
    if (info === undefined) return MISSING;
    const cached = this.#cache?.get(path);
    // The same inode with the same size, mtime and ctime is the same file that was checked and
    // read before; anything else (an edit, a replaced symlink) is looked at afresh.
    if (
      cached !== undefined &&
      cached.ino === info.ino &&
      cached.dev === info.dev &&
      cached.size === info.size &&
      cached.mtimeMs === info.mtimeMs &&
      cached.ctimeMs === info.ctimeMs
    ) {
      return cached.result;
    }
    let real: string;
    try {
      real = await this.#fs.promises.realpath(path);
    } catch (error) {
      if (isNotFound(error)) return MISSING;
      throw error;
    }
    if (!this.contains(real)) return MISSING;
    let result: LocalLookup;
    let bytes = 0;
    if (info.isDirectory()) result = DIRECTORY;
    else if (!info.isFile()) return MISSING;
    else {
      const file = await this.#readFile(real, info);
      if (file === undefined) return MISSING;
      result = file;
      info = file.stats;
      bytes = file.bytes?.length ?? 0;
    }
    this.#remember(path, info, result, bytes);
    return result;
  }

  async #readFile(real: string, info: Stats): Promise<(LocalFile & { stats: Stats }) | undefined> {
    if (info.size > this.#maxFileSize) return describe(real, info, undefined);
    let handle: Fs.promises.FileHandle;
    try {
      handle = await this.#fs.promises.open(real, 'r');
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    try {
      // Read what the open file holds now: its own stat describes exactly these bytes.
      const current = await handle.stat();
      if (!current.isFile()) return undefined;
      if (current.size > this.#maxFileSize) return describe(real, current, undefined);
      const buffer = new Uint8Array(current.size);
      let offset = 0;
      while (offset < buffer.length) {
        const { bytesRead } = await handle.read(buffer, offset, buffer.length - offset, offset);
        if (bytesRead === 0) break;
        offset += bytesRead;
      }
      // A file truncated while being read is served as it was cut, never padded with zeros.
      const content = offset === buffer.length ? buffer : buffer.subarray(0, offset);
      return describe(real, current, content);
    } finally {
      await handle.close();
    }
  }

  #remember(path: string, info: Stats, result: LocalLookup, bytes: number): void {
    const cache = this.#cache;
    if (cache === undefined) return;
    const previous = cache.get(path);
    if (previous !== undefined) {
      cache.delete(path);
      this.#cachedBytes -= previous.bytes;
    }
    if (bytes > this.#maxBytes) return;
    // Oldest first out, until the new entry fits both bounds.
    for (const [key, entry] of cache) {
      if (cache.size < MAX_ENTRIES && this.#cachedBytes + bytes <= this.#maxBytes) break;
      cache.delete(key);
      this.#cachedBytes -= entry.bytes;
    }
    cache.set(path, {
      dev: info.dev,
      ino: info.ino,
      size: info.size,
      mtimeMs: info.mtimeMs,
      ctimeMs: info.ctimeMs,
      result,
      bytes,
    });
    this.#cachedBytes += bytes;
  }
}

function describe(
  real: string,
  info: Stats,
  bytes: Uint8Array | undefined,
): LocalFile & { stats: Stats } {
  const size = bytes?.length ?? info.size;
  // Microsecond mtime and size: two versions of a file rarely share both, and a strong tag lets
  // If-Range work (RFC 9110 §13.1.5 accepts only strong tags).
  const micros = Math.floor(info.mtimeMs * 1000);
  return {
    kind: 'file',
    path: real,
    size,
    lastModified: info.mtime,
    etag: `"${size.toString(16)}-${micros.toString(16)}"`,
    bytes,
    stats: info,
  };
}
