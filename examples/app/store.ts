/**
 * The bookmarks store: SQL over a {@link Database} (PostgreSQL, or the embedded PGlite), opened
 * at startup and shared by every request. The routes only see these methods.
 */
import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import { type Database, type DatabaseOptions, openDatabase } from './database.js';
import { migrate } from './migrations.js';
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

/** What a conditional write requires of the row, checked in the statement that changes it. */
export interface WriteCondition {
  /** The row has one of these versions (If-Match with a list of tags). */
  versions?: number[];
  /**
   * The row was last changed within or before this date's second (If-Unmodified-Since): dates
   * compare at one-second precision, the finest an HTTP-date carries, as restmachine compares
   * them (docs/http-semantics.md).
   */
  unmodifiedSince?: Date;
}

export interface ListFilter {
  tag?: string | undefined;
  /** Case-insensitive text to find in the title or URL. */
  q?: string | undefined;
}

const SeedFile = z.array(NewBookmark);

/** The bookmarks a new database starts with when there is no seed file. */
const EXAMPLES: BookmarkInput[] = [
  { url: 'https://example.com/', title: 'Example Domain', tags: ['example'] },
  {
    url: 'https://www.rfc-editor.org/rfc/rfc9110',
    title: 'RFC 9110: HTTP Semantics',
    tags: ['http', 'reference'],
  },
];

interface Row {
  id: number;
  url: string;
  title: string;
  tags: string[];
  created_at: Date | string;
  updated_at: Date | string;
  version: number;
}

const COLUMNS = 'id, url, title, tags, created_at, updated_at, version';

function toBookmark(row: Row): Bookmark {
  return {
    id: String(row.id),
    url: row.url,
    title: row.title,
    tags: row.tags,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
    version: row.version,
  };
}

/** Ids are positive `integer`s: anything else names no bookmark (and is never sent to SQL). */
function toId(id: string): number | undefined {
  if (!/^[1-9][0-9]{0,9}$/.test(id)) return undefined;
  const value = Number(id);
  return value <= 2_147_483_647 ? value : undefined;
}

/**
 * The SQL of a {@link WriteCondition}, its two parameters numbered from `first`: a part left out
 * (NULL) holds. `date_trunc` drops what an HTTP-date cannot carry, below the second.
 */
function meetsCondition(first: number): string {
  const versions = `$${first}::integer[]`;
  const since = `$${first + 1}::timestamptz`;
  return `(${versions} IS NULL OR version = ANY (${versions}))
      AND (${since} IS NULL OR date_trunc('second', updated_at) <= ${since})`;
}

function conditionParams(condition: WriteCondition | undefined): [number[] | null, string | null] {
  return [condition?.versions ?? null, condition?.unmodifiedSince?.toISOString() ?? null];
}

export interface StoreOptions extends DatabaseOptions {
  /** A JSON array of `{ url, title, tags }` that a new database starts with. */
  seedFile?: string | undefined;
}

export class BookmarkStore {
  readonly #db: Database;

  private constructor(db: Database) {
    this.#db = db;
  }

  /** `postgresql` or `embedded`. */
  get kind(): Database['kind'] {
    return this.#db.kind;
  }

  /**
   * Opens the database, runs the migrations it lacks and, when the database is new, adds the
   * bookmarks of `seedFile` (or two examples). A seed file that is missing or invalid is an
   * error, found before the database is opened, so the application refuses to start instead
   * of serving without its data.
   */
  static async open(options: StoreOptions = {}): Promise<BookmarkStore> {
    const seed = options.seedFile === undefined ? EXAMPLES : await readSeedFile(options.seedFile);
    const db = await openDatabase(options);
    try {
      const ran = await migrate(db);
      const store = new BookmarkStore(db);
      if (ran.includes(1)) for (const bookmark of seed) await store.add(bookmark);
      return store;
    } catch (error) {
      await db.close();
      throw error;
    }
  }

  async list(filter: ListFilter = {}): Promise<Bookmark[]> {
    const rows = await this.#db.query<Row>(
      `SELECT ${COLUMNS} FROM bookmarks
       WHERE ($1::text IS NULL OR $1 = ANY (tags))
         AND ($2::text IS NULL OR strpos(lower(title), lower($2)) > 0
                               OR strpos(lower(url), lower($2)) > 0)
       ORDER BY id`,
      [filter.tag ?? null, filter.q ?? null],
    );
    return rows.map(toBookmark);
  }

  async get(id: string): Promise<Bookmark | undefined> {
    const key = toId(id);
    if (key === undefined) return undefined;
    const [row] = await this.#db.query<Row>(`SELECT ${COLUMNS} FROM bookmarks WHERE id = $1`, [
      key,
    ]);
    return row === undefined ? undefined : toBookmark(row);
  }

  async add(input: BookmarkInput): Promise<Bookmark> {
    const [row] = await this.#db.query<Row>(
      `INSERT INTO bookmarks (url, title, tags) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`,
      [input.url, input.title, [...new Set(input.tags)]],
    );
    return toBookmark(row as Row);
  }

  /**
   * Applies the fields `changes` has and moves the version on. With a `condition`, only if the
   * row still meets it: `undefined` then means someone changed (or deleted) it first, which the
   * route answers with 412 instead of overwriting their change.
   */
  async update(
    id: string,
    changes: Partial<BookmarkInput>,
    condition?: WriteCondition,
  ): Promise<Bookmark | undefined> {
    const key = toId(id);
    if (key === undefined) return undefined;
    const [row] = await this.#db.query<Row>(
      `UPDATE bookmarks
       SET url = COALESCE($2, url), title = COALESCE($3, title), tags = COALESCE($4, tags),
           updated_at = now(), version = version + 1
       WHERE id = $1 AND ${meetsCondition(5)}
       RETURNING ${COLUMNS}`,
      [
        key,
        changes.url ?? null,
        changes.title ?? null,
        changes.tags === undefined ? null : [...new Set(changes.tags)],
        ...conditionParams(condition),
      ],
    );
    return row === undefined ? undefined : toBookmark(row);
  }

  /** Deletes the bookmark (only if it meets `condition`, when given); false when nothing was. */
  async remove(id: string, condition?: WriteCondition): Promise<boolean> {
    const key = toId(id);
    if (key === undefined) return false;
    const rows = await this.#db.query<{ id: number }>(
      `DELETE FROM bookmarks WHERE id = $1 AND ${meetsCondition(2)} RETURNING id`,
      [key, ...conditionParams(condition)],
    );
    return rows.length > 0;
  }

  /** Each tag with the number of bookmarks that carry it, most used first. */
  async tags(): Promise<Array<{ tag: string; count: number }>> {
    return this.#db.query<{ tag: string; count: number }>(
      `SELECT tag, count(*)::integer AS count FROM bookmarks, unnest(tags) AS tag
       GROUP BY tag ORDER BY count DESC, tag COLLATE "C"`,
    );
  }

  async size(): Promise<number> {
    const [row] = await this.#db.query<{ count: number }>(
      'SELECT count(*)::integer AS count FROM bookmarks',
    );
    return row?.count ?? 0;
  }

  close(): Promise<void> {
    return this.#db.close();
  }
}

async function readSeedFile(seedFile: string): Promise<BookmarkInput[]> {
  let text: string;
  try {
    text = await readFile(seedFile, 'utf8');
  } catch (error) {
    throw new Error(`Cannot read the seed file ${seedFile}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`The seed file ${seedFile} is not JSON: ${(error as Error).message}`);
  }
  const result = SeedFile.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new Error(
      `The seed file ${seedFile} is invalid at [${issue?.path.join('.')}]: ${issue?.message}`,
    );
  }
  return result.data;
}
