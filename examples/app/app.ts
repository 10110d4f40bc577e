/**
 * The bookmarks API as an application object, separate from the server so that tests (and
 * other runtimes: the Fetch adapter, AWS Lambda) can use it as it is.
 *
 * @example
 * const app = createApp();
 * const response = await app.request('/api/v1/bookmarks');
 */
import { fileURLToPath } from 'node:url';
import { createConsoleLogger, type Logger, RestApplication } from '../../src/index.js';
import { StaticRouter } from '../../src/static/index.js';
import { API_V1, bookmarksRouter } from './routes.js';
import { BookmarkChanges, ListQuery, NewBookmark } from './schemas.js';
import { BookmarkStore } from './store.js';

export interface BookmarksOptions {
  /** A JSON file of bookmarks to start with; missing or invalid, startup fails. */
  seedFile?: string | undefined;
  logger?: Logger;
}

function registerServices(options: BookmarksOptions) {
  return (
    new RestApplication({ logger: options.logger ?? createConsoleLogger() })
      // A startup dependency: opened once before the server listens, shared by every request.
      .onStartup('store', () => BookmarkStore.open({ seedFile: options.seedFile }))
      .validates('newBookmark', NewBookmark)
      .validates('changes', BookmarkChanges)
      .validates('listQuery', ListQuery, { source: 'queryParams' })
      .resourceExists('bookmark', ({ store, pathParams }) => store.get(pathParams.id ?? ''))
  );
}

/** The application with its registered names, as routers written for it see it. */
export type BookmarksApp = ReturnType<typeof registerServices>;

/** Builds the bookmarks application; nothing runs until startup. */
export function createApp(options: BookmarksOptions = {}): BookmarksApp {
  const app = registerServices(options);
  app.get('/api', () => ({
    name: 'Bookmarks API',
    links: {
      bookmarks: `${API_V1}/bookmarks`,
      bookmark: `${API_V1}/bookmarks/{id}`,
      tags: `${API_V1}/tags`,
    },
  }));
  app.mount(API_V1, bookmarksRouter(app));
  // The front-end (public/index.html, app.css, app.js) for every path the API does not take.
  app.mount('/', new StaticRouter(fileURLToPath(new URL('./public', import.meta.url))));
  app.onShutdown(({ log, store }) => {
    log.info('Bookmarks store closed', { bookmarks: store.size });
  });
  return app;
}
