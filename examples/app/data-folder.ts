/**
 * The embedded database's folder (BOOKMARKS_DATA_DIR), checked and held before PGlite opens it.
 * PGlite is PostgreSQL in one process, without the shared memory and `postmaster.pid` that keep
 * a second PostgreSQL server off a data directory: two instances on one folder both start, both
 * acknowledge writes, and each overwrites the other's files, so one's writes are lost. A lock
 * file created with `wx` (fails when it exists) holding the process id keeps a second instance
 * out; a lock left by a process that is gone (killed, crashed) is taken over.
 */
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

const LOCK_FILE = 'bookmarks.lock';
/** PostgreSQL's mark of a data directory; PGlite writes it too, and resumes a folder that has it. */
const PG_VERSION = 'PG_VERSION';

/** Takes the folder for this process; call the result to give it back. */
export function lockDataFolder(dataDir: string): () => void {
  checkDataFolder(dataDir);
  const lockPath = join(dataDir, LOCK_FILE);
  takeLock(lockPath, dataDir);
  const release = () => {
    process.off('exit', release);
    rmSync(lockPath, { force: true });
  };
  // A process that exits without the shutdown handler (process.exit, a second Ctrl-C) leaves
  // no lock behind; one killed outright does, and the next start takes it over.
  process.on('exit', release);
  return release;
}

/**
 * Refuses a file, and a folder holding something other than a PGlite database; creates a folder
 * that does not exist yet, to hold the lock.
 */
function checkDataFolder(dataDir: string): void {
  let entries: string[];
  try {
    entries = readdirSync(dataDir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      mkdirSync(dataDir, { recursive: true });
      return;
    }
    if (code === 'ENOTDIR') {
      throw new Error(`BOOKMARKS_DATA_DIR ${dataDir} is a file, not a folder`);
    }
    throw new Error(`Cannot read the database folder ${dataDir}: ${(error as Error).message}`);
  }
  const others = entries.filter((name) => name !== LOCK_FILE);
  if (others.length > 0 && !others.includes(PG_VERSION)) {
    throw new Error(
      `BOOKMARKS_DATA_DIR ${dataDir} is not empty and holds no PGlite database (no ${PG_VERSION} file): name an empty or new folder, or one the bookmarks API made`,
    );
  }
}

function takeLock(lockPath: string, dataDir: string): void {
  for (let attempt = 0; ; attempt++) {
    try {
      const descriptor = openSync(lockPath, 'wx');
      writeSync(descriptor, `${process.pid}\n`);
      closeSync(descriptor);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
    }
    const holder = Number.parseInt(readLock(lockPath), 10);
    if (Number.isInteger(holder) && processAlive(holder)) {
      throw new Error(
        `The database folder ${dataDir} is in use by process ${holder} (${lockPath}): PGlite allows one process per folder; stop that one, or use another folder`,
      );
    }
    // Its holder is gone: take it over (once; a second EEXIST means another instance won).
    rmSync(lockPath, { force: true });
  }
}

function readLock(lockPath: string): string {
  try {
    return readFileSync(lockPath, 'utf8');
  } catch {
    return '';
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, run by another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
