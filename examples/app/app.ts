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
import { openapiRouter } from '../../src/openapi/index.js';
import { StaticRouter } from '../../src/static/index.js';
import { API_V1, bookmarksRouter } from './routes.js';
import { BookmarkChanges, ListQuery, NewBookmark } from './schemas.js';
import { BookmarkStore } from './store.js';

export interface BookmarksOptions {
  /** A `postgres://` URL (`DATABASE_URL`); absent or empty, the embedded database (PGlite). */
  databaseUrl?: string | undefined;
  /** Where the embedded database keeps its files; absent, it lives in memory. */
  dataDir?: string | undefined;
  /** A JSON file of bookmarks a new database starts with; missing or invalid, startup fails. */
  seedFile?: string | undefined;
  /** Serve the front-end in public/ at `/` (default true; the Lambda entry serves the API only). */
  frontEnd?: boolean;
  logger?: Logger;
  /** Check every answer against its `returns()` declaration (development; off by default). */
  validateResponses?: boolean;
}

function registerServices(options: BookmarksOptions) {
  return (
    new RestApplication({
      logger: options.logger ?? createConsoleLogger(),
      validateResponses: options.validateResponses ?? false,
    })
      // A startup dependency: the database is opened (and migrated) once before the server
      // listens, shared by every request, and closed by the shutdown handler below.
      .onStartup('store', () =>
        BookmarkStore.open({
          url: options.databaseUrl,
          dataDir: options.dataDir,
          seedFile: options.seedFile,
        }),
      )
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
  app
    .get('/api', () => ({
      name: 'Bookmarks API',
      links: {
        bookmarks: `${API_V1}/bookmarks`,
        bookmark: `${API_V1}/bookmarks/{id}`,
        tags: `${API_V1}/tags`,
      },
    }))
    .describe({ summary: 'Where the API starts', tags: ['index'], operationId: 'apiIndex' });
  app.mount(API_V1, bookmarksRouter(app));
  // The OpenAPI document at /openapi.json and, with the front-end, its reference page at /docs
  // (Swagger UI, served from the installed swagger-ui-dist): public, and not in the document.
  app.mount(
    '/',
    openapiRouter(app, {
      info: { title: 'Bookmarks API', version: '1.0.0', description: 'Bookmarks with tags.' },
      tags: [{ name: 'bookmarks', description: 'Saved links' }],
      docs: (options.frontEnd ?? true) ? '/docs' : false,
    }),
  );
  // The front-end (public/index.html, app.css, app.js) for every path the API does not take.
  if (options.frontEnd ?? true) {
    const frontEnd = new StaticRouter(fileURLToPath(new URL('./public', import.meta.url)));
    // Pages and assets, not API operations: left out of the OpenAPI document.
    for (const route of frontEnd.routes) route.describe({ hidden: true });
    app.mount('/', frontEnd);
  }
  app.onShutdown(async ({ log, store }) => {
    const bookmarks = await store.size();
    await store.close();
    log.info('Bookmarks store closed', { database: store.kind, bookmarks });
  });
  return app;
}
