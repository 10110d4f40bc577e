/**
 * `npm start`: serves the bookmarks API on 127.0.0.1:3000 (PORT and HOST change that). The
 * data goes to PostgreSQL when DATABASE_URL is set, otherwise to the embedded database, in
 * memory unless BOOKMARKS_DATA_DIR names a folder to keep it in; BOOKMARKS_SEED names a JSON
 * file of bookmarks a new database starts with.
 *
 * SIGTERM or SIGINT (Ctrl-C) stops it cleanly: the server stops accepting, finishes the
 * requests in flight, then the shutdown handlers close the database, and the process exits 0.
 * `npm start` runs this file with `node --import tsx`, one process with no wrapper, so the
 * signal that npm (or a process manager) sends reaches the server itself.
 */
import { serve } from '../../src/adapters/node/index.js';
import { createApp } from './app.js';

try {
  const app = createApp({
    databaseUrl: process.env.DATABASE_URL,
    dataDir: process.env.BOOKMARKS_DATA_DIR,
    seedFile: process.env.BOOKMARKS_SEED,
    // While developing, every answer is checked against the route's returns() declaration.
    validateResponses: process.env.NODE_ENV === 'development',
  });
  const server = await serve(app, { handleSignals: false });
  let stopping: number | undefined;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping === undefined) {
      stopping = Date.now();
      console.log(`${signal}: stopping (send it again to stop at once)`);
      server.close().catch((error: unknown) => {
        console.error(`Shutdown failed: ${error instanceof Error ? error.message : error}`);
        process.exitCode = 1;
      });
      return;
    }
    // A terminal's Ctrl-C reaches every process of the group and npm forwards it as well, so
    // one keypress arrives twice: only a signal sent later cuts the graceful shutdown short.
    if (Date.now() - stopping > 1000) process.exit(130);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  console.log(`Bookmarks API listening on ${server.url} (Ctrl-C to stop)`);
  console.log(`Try: curl ${server.url}/api/v1/bookmarks`);
} catch (error) {
  console.error(
    `The bookmarks API could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exitCode = 1;
}
