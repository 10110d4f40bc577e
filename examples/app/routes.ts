/**
 * Version 1 of the bookmarks API, mounted at /api/v1. A new version would be another router
 * mounted at /api/v2, sharing the same store and validators.
 */
import { Response, Router } from '../../src/index.js';
import type { BookmarksApp } from './app.js';
import { bookmarkHtml, bookmarksHtml, bookmarksText, bookmarkText } from './render.js';
import type { Bookmark } from './store.js';

export const API_V1 = '/api/v1';

export function bookmarksRouter(app: BookmarksApp) {
  // Written for `app`, so handlers are typed with every name it registered.
  const v1 = new Router(app);

  v1.get('/bookmarks', ({ store, listQuery }) => store.list(listQuery))
    .provides('text/html', ({ result }) => bookmarksHtml(result as Bookmark[]))
    .provides('text/plain', ({ result }) => bookmarksText(result as Bookmark[]));

  v1.post('/bookmarks', ({ store, newBookmark }) => {
    const bookmark = store.add(newBookmark);
    return [bookmark, 201, { Location: `${API_V1}/bookmarks/${bookmark.id}` }];
  });

  // `bookmark` is a resourceExists dependency: an unknown id is a 404 before these run.
  // The entity tag is the bookmark's version: a GET with a matching If-None-Match is a 304
  // without running the handler, and a PATCH or DELETE with a stale If-Match is a 412 before
  // anything changes (optimistic concurrency).
  v1.get('/bookmarks/{id}', ({ bookmark }) => bookmark)
    .etag(({ bookmark }) => `v${bookmark.version}`)
    .lastModified(({ bookmark }) => new Date(bookmark.updatedAt))
    .provides('text/html', ({ result }) => bookmarkHtml(result as Bookmark))
    .provides('text/plain', ({ result }) => bookmarkText(result as Bookmark));

  v1.patch('/bookmarks/{id}', ({ store, bookmark, changes }) => {
    const updated = store.update(bookmark.id, changes) ?? bookmark;
    return new Response(200, updated, { etag: `v${updated.version}` });
  }).etag(({ bookmark }) => `v${bookmark.version}`);

  v1.delete('/bookmarks/{id}', ({ store, bookmark }) => {
    store.remove(bookmark.id);
    return null;
  }).etag(({ bookmark }) => `v${bookmark.version}`);

  v1.get('/tags', ({ store }) => store.tags());

  return v1;
}
