/**
 * Temporary files for uploads above the spill threshold: one directory per request, made with
 * `mkdtemp` in `tmpDir` (`os.tmpdir()` by default) on the first file that needs it, and removed
 * whole when the request is released, or, if a file's stream is still being opened then (a
 * handler that answered with `file.stream()`), once it is open. The file
 * system is imported when first needed; a runtime without one keeps every file in memory.
 */
type FsPromises = typeof import('node:fs/promises');
type FileHandle = import('node:fs/promises').FileHandle;

let fileSystem: Promise<FsPromises | undefined> | undefined;

/** `node:fs/promises`, or `undefined` where the runtime has no file system. */
export function loadFileSystem(): Promise<FsPromises | undefined> {
  fileSystem ??= import('node:fs/promises').then(
    (fs) => (typeof fs.mkdtemp === 'function' ? fs : undefined),
    () => undefined,
  );
  return fileSystem;
}

async function defaultTmpDir(): Promise<string> {
  const { tmpdir } = await import('node:os');
  return tmpdir();
}

/** The temporary files of one request. */
export class TempStore {
  readonly #tmpDir: string | undefined;
  #dir: Promise<string> | undefined;
  #count = 0;
  #readers = 0;
  #released = false;
  #removed: Promise<void> | undefined;
  /** Set by a release that waits for streams being opened. */
  #afterReaders: (() => void) | undefined;

  constructor(tmpDir: string | undefined) {
    this.#tmpDir = tmpDir;
  }

  /** A new, empty file opened for writing, or `undefined` without a file system. */
  async create(): Promise<{ path: string; handle: FileHandle } | undefined> {
    const fs = await loadFileSystem();
    if (fs === undefined || this.#released) return undefined;
    this.#dir ??= (async () => {
      const parent = this.#tmpDir ?? (await defaultTmpDir());
      return fs.mkdtemp(`${parent.replace(/[\\/]+$/, '')}/restmachine-upload-`);
    })();
    const dir = await this.#dir;
    const path = `${dir}/${this.#count++}`;
    // `wx`: never reuse a file that somehow exists; 0o600: only this process's user reads it.
    const handle = await fs.open(path, 'wx', 0o600);
    if (this.#released) {
      // Released while the file was being made: it goes with the directory at once.
      await handle.close();
      await this.#remove();
      throw new Error('The upload was released');
    }
    return { path, handle };
  }

  /** Whether `release()` was called. */
  get released(): boolean {
    return this.#released;
  }

  /** A stream of one of the files is being opened: the directory stays until it is. */
  openReader(): void {
    this.#readers++;
  }

  closeReader(): void {
    this.#readers--;
    if (this.#released && this.#readers === 0) this.#afterReaders?.();
  }

  /**
   * The request is over: the files go as soon as no stream is being opened on them. Resolves
   * once they are gone.
   */
  release(): Promise<void> {
    this.#released = true;
    if (this.#readers === 0) return this.#remove();
    return new Promise<void>((resolve) => {
      this.#afterReaders = resolve;
    }).then(() => this.#remove());
  }

  /** Resolves once the directory is gone (for tests and the collector's own failures). */
  #remove(): Promise<void> {
    const dir = this.#dir;
    if (dir === undefined) return Promise.resolve();
    this.#removed ??= (async () => {
      const fs = await loadFileSystem();
      const path = await dir.catch(() => undefined);
      if (fs !== undefined && path !== undefined)
        await fs.rm(path, { recursive: true, force: true });
    })().catch(() => undefined);
    return this.#removed;
  }
}
