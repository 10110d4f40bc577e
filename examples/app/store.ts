/**
 * The bookmarks store: in memory, filled at startup (optionally from a seed file), shared by
 * every request. A real application would put a database client here; the routes would not
 * change.
 */
import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import { NewBookmark } from './schemas.js';

export interface Bookmark {
  id: string;
  url: string;
  title: string;
  tags: string[];
  createdAt: string;
  updatedAt: string;
  /** Goes up by one with every change: the bookmark's entity tag. */
  version: number;
}

export type BookmarkInput = z.output<typeof NewBookmark>;

export interface ListFilter {
  tag?: string | undefined;
  /** Case-insensitive text to find in the title or URL. */
  q?: string | undefined;
}

const SeedFile = z.array(NewBookmark);

export class BookmarkStore {
  readonly #bookmarks = new Map<string, Bookmark>();
  #nextId = 1;

  /**
   * A store with the bookmarks of `seedFile` (a JSON array of `{ url, title, tags }`), or with
   * two examples when there is none. A seed file that is missing or invalid is an error, so
   * the application refuses to start instead of serving without its data.
   */
  static async open(options: { seedFile?: string | undefined } = {}): Promise<BookmarkStore> {
    const store = new BookmarkStore();
    if (options.seedFile === undefined) {
      store.add({ url: 'https://example.com/', title: 'Example Domain', tags: ['example'] });
      store.add({
        url: 'https://www.rfc-editor.org/rfc/rfc9110',
        title: 'RFC 9110: HTTP Semantics',
        tags: ['http', 'reference'],
      });
      return store;
    }
    let text: string;
    try {
      text = await readFile(options.seedFile, 'utf8');
    } catch (error) {
      throw new Error(`Cannot read the seed file ${options.seedFile}: ${(error as Error).message}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new Error(`The seed file ${options.seedFile} is not JSON: ${(error as Error).message}`);
    }
    const result = SeedFile.safeParse(parsed);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new Error(
        `The seed file ${options.seedFile} is invalid at [${issue?.path.join('.')}]: ${issue?.message}`,
      );
    }
    for (const bookmark of result.data) store.add(bookmark);
    return store;
  }

  list(filter: ListFilter = {}): Bookmark[] {
    const needle = filter.q?.toLowerCase();
    return [...this.#bookmarks.values()].filter(
      (bookmark) =>
        (filter.tag === undefined || bookmark.tags.includes(filter.tag)) &&
        (needle === undefined ||
          bookmark.title.toLowerCase().includes(needle) ||
          bookmark.url.toLowerCase().includes(needle)),
    );
  }

  get(id: string): Bookmark | undefined {
    return this.#bookmarks.get(id);
  }

  add(input: BookmarkInput): Bookmark {
    const now = new Date().toISOString();
    const bookmark: Bookmark = {
      id: String(this.#nextId++),
      url: input.url,
      title: input.title,
      tags: [...new Set(input.tags)],
      createdAt: now,
      updatedAt: now,
      version: 1,
    };
    this.#bookmarks.set(bookmark.id, bookmark);
    return bookmark;
  }

  update(id: string, changes: Partial<BookmarkInput>): Bookmark | undefined {
    const current = this.#bookmarks.get(id);
    if (current === undefined) return undefined;
    const updated: Bookmark = {
      ...current,
      ...(changes.url === undefined ? {} : { url: changes.url }),
      ...(changes.title === undefined ? {} : { title: changes.title }),
      ...(changes.tags === undefined ? {} : { tags: [...new Set(changes.tags)] }),
      updatedAt: new Date().toISOString(),
      version: current.version + 1,
    };
    this.#bookmarks.set(id, updated);
    return updated;
  }

  remove(id: string): boolean {
    return this.#bookmarks.delete(id);
  }

  /** Each tag with the number of bookmarks that carry it, most used first. */
  tags(): Array<{ tag: string; count: number }> {
    const counts = new Map<string, number>();
    for (const bookmark of this.#bookmarks.values()) {
      for (const tag of bookmark.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    }
    return [...counts]
      .map(([tag, count]) => ({ tag, count }))
      .sort((a, b) => b.count - a.count || a.tag.localeCompare(b.tag));
  }

  get size(): number {
    return this.#bookmarks.size;
  }
}
