/**
 * Version 1 of the bookmarks API, mounted at /api/v1. A new version would be another router
 * mounted at /api/v2, sharing the same store and validators.
 */
import * as z from 'zod';
import { HttpError, Response, Router } from '../../src/index.js';
import type { BookmarksApp } from './app.js';
import { representationTag, versionTag, writeCondition } from './preconditions.js';
import { bookmarkHtml, bookmarksHtml, bookmarksText, bookmarkText } from './render.js';
import { StoredBookmark } from './schemas.js';
import type { Bookmark } from './store.js';

export const API_V1 = '/api/v1';

/**
 * The router, registered with `withRoutes()` so that its type carries its routes: a typed client
 * (`restmachine/client`) reads them, `uses()` naming the validators each request body or query
 * goes through. `BookmarksApi` is that type.
 */
export function bookmarksRouter(app: BookmarksApp) {
  // Written for `app`, so handlers are typed with every name it registered.
  return new Router(app).withRoutes((v1) => [
    v1
      .get('/bookmarks', ({ store, listQuery }) => store.list(listQuery))
      .uses('listQuery')
      .provides('text/html; charset=utf-8', ({ result }) => bookmarksHtml(result as Bookmark[]))
      .provides('text/plain; charset=utf-8', ({ result }) => bookmarksText(result as Bookmark[]))
      .describe({ summary: 'List bookmarks', tags: ['bookmarks'], operationId: 'listBookmarks' })
      .returns(200, z.array(StoredBookmark)),

    v1
      .post('/bookmarks', async ({ store, newBookmark }) => {
        const bookmark = await store.add(newBookmark);
        return [bookmark, 201, { Location: `${API_V1}/bookmarks/${bookmark.id}` }];
      })
      .uses('newBookmark')
      .describe({ summary: 'Add a bookmark', tags: ['bookmarks'], operationId: 'addBookmark' })
      .returns(201, StoredBookmark, { description: 'The new bookmark' }),

    // `bookmark` is a resourceExists dependency (a SELECT by id): an unknown id is a 404 before
    // these run. The entity tag is the row's version column and the date its updated_at: a GET
    // with a matching If-None-Match or If-Modified-Since is a 304 without running the handler,
    // and a PATCH or DELETE with a stale If-Match or If-Unmodified-Since is a 412 before
    // anything changes (optimistic concurrency; preconditions.ts holds it up to the write).
    // A strong tag names one representation (RFC 9110 §8.8.3): the JSON one is the version, the
    // tag PATCH and DELETE compare If-Match with; the page and the text get their own.
    v1
      .get('/bookmarks/{id}', ({ bookmark }) => bookmark)
      .etag(({ bookmark, mediaType }) => representationTag(bookmark.version, mediaType))
      .lastModified(({ bookmark }) => new Date(bookmark.updatedAt))
      .provides('text/html; charset=utf-8', ({ result }) => bookmarkHtml(result as Bookmark))
      .provides('text/plain; charset=utf-8', ({ result }) => bookmarkText(result as Bookmark))
      .describe({ summary: 'Get a bookmark', tags: ['bookmarks'], operationId: 'getBookmark' })
      .returns(200, StoredBookmark)
      .returns(404),

    v1
      .patch('/bookmarks/{id}', async ({ store, bookmark, changes, headers }) => {
        const condition = writeCondition(headers);
        const updated = await store.update(bookmark.id, changes, condition);
        if (updated === undefined) throw new HttpError(condition === undefined ? 404 : 412);
        // The new validators, so that the client's next conditional request needs no GET.
        return new Response(200, updated, {
          etag: versionTag(updated.version),
          lastModified: new Date(updated.updatedAt),
        });
      })
      .uses('changes')
      .etag(({ bookmark }) => versionTag(bookmark.version))
      .lastModified(({ bookmark }) => new Date(bookmark.updatedAt))
      .describe({
        summary: 'Change a bookmark',
        tags: ['bookmarks'],
        operationId: 'changeBookmark',
      })
      .returns(200, StoredBookmark),

    v1
      .delete('/bookmarks/{id}', async ({ store, bookmark, headers }) => {
        const condition = writeCondition(headers);
        if (!(await store.remove(bookmark.id, condition))) {
          throw new HttpError(condition === undefined ? 404 : 412);
        }
        return null;
      })
      .etag(({ bookmark }) => versionTag(bookmark.version))
      .lastModified(({ bookmark }) => new Date(bookmark.updatedAt))
      .describe({
        summary: 'Delete a bookmark',
        tags: ['bookmarks'],
        operationId: 'deleteBookmark',
      })
      .returns(204),

    v1
      .get('/tags', ({ store }) => store.tags())
      .describe({ summary: 'Every tag in use', tags: ['bookmarks'], operationId: 'listTags' })
      .returns(200, z.array(z.object({ tag: z.string(), count: z.number().int() }))),
  ]);
}

/** Version 1 of the API as a typed client sees it: `createClient<BookmarksApi>(...)`. */
export type BookmarksApi = ReturnType<typeof bookmarksRouter>;
