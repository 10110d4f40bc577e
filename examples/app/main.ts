/**
 * `npm start`: serves the bookmarks API on 127.0.0.1:3000 (PORT and HOST change that;
 * BOOKMARKS_SEED names a JSON file of bookmarks to start with). Ctrl-C stops it cleanly: the
 * server finishes the requests in flight, then the shutdown handlers run.
 */
import { serve } from '../../src/adapters/node/index.js';
import { createApp } from './app.js';

try {
  const server = await serve(createApp({ seedFile: process.env.BOOKMARKS_SEED }));
  console.log(`Bookmarks API listening on ${server.url} (Ctrl-C to stop)`);
  console.log(`Try: curl ${server.url}/api/v1/bookmarks`);
} catch (error) {
  console.error(
    `The bookmarks API could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exitCode = 1;
}
