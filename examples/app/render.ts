/**
 * HTML and plain-text representations of bookmarks, for clients that ask for them with
 * `Accept`. JSON needs no code: it is the default.
 */
import { escapeHtml } from '../../src/index.js';
import type { Bookmark } from './store.js';

function page(title: string, content: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body>
<h1>${escapeHtml(title)}</h1>
${content}
</body>
</html>
`;
}

function bookmarkItem(bookmark: Bookmark): string {
  const tags = bookmark.tags.map((tag) => `<code>${escapeHtml(tag)}</code>`).join(' ');
  return `<li><a href="${escapeHtml(bookmark.url)}">${escapeHtml(bookmark.title)}</a> ${tags}</li>`;
}

export function bookmarksHtml(bookmarks: readonly Bookmark[]): string {
  if (bookmarks.length === 0) return page('Bookmarks', '<p>No bookmarks yet.</p>');
  return page('Bookmarks', `<ul>\n${bookmarks.map(bookmarkItem).join('\n')}\n</ul>`);
}

export function bookmarkHtml(bookmark: Bookmark): string {
  return page(bookmark.title, `<ul>\n${bookmarkItem(bookmark)}\n</ul>`);
}

function bookmarkLine(bookmark: Bookmark): string {
  const tags = bookmark.tags.length === 0 ? '' : ` [${bookmark.tags.join(', ')}]`;
  return `${bookmark.id}\t${bookmark.title}\t${bookmark.url}${tags}`;
}

export function bookmarksText(bookmarks: readonly Bookmark[]): string {
  return `${bookmarks.map(bookmarkLine).join('\n')}\n`;
}

export function bookmarkText(bookmark: Bookmark): string {
  return `${bookmarkLine(bookmark)}\n`;
}
