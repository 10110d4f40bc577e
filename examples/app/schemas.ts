/**
 * What clients may send, as zod schemas. restmachine validates them (any Standard Schema
 * works) and answers 422 listing every problem with its path.
 */
import * as z from 'zod';

/**
 * Whether PostgreSQL can store `text` as it is: its `text` type refuses NUL (U+0000), and a lone
 * UTF-16 surrogate has no UTF-8 encoding (the drivers would store U+FFFD in its place). Every
 * string that reaches SQL is checked, so that the 422 names the field instead of SQL failing.
 */
function storable(text: string): boolean {
  return !/[\0\p{Cs}]/u.test(text);
}
const NOT_STORABLE = 'must not contain NUL (U+0000) or a lone surrogate';

/**
 * Whether a title is one line of text: a line break or tab in it would let one bookmark pose as
 * several in the `text/plain` list (one line per bookmark, fields apart by tabs). Control
 * characters (\p{Cc}) are not the only line breaks: U+2028 LINE SEPARATOR (\p{Zl}) and U+2029
 * PARAGRAPH SEPARATOR (\p{Zp}) end a line for JavaScript's and Python's line splitting and for
 * editors, so they are refused too.
 */
function oneLine(text: string): boolean {
  // NUL is `storable`'s to refuse, so that it is named once.
  return !/(?!\0)[\p{Cc}\p{Zl}\p{Zp}]/u.test(text);
}
const NOT_ONE_LINE =
  'must be one line, without control characters or line separators (line breaks, tabs, U+2028...)';

// Letters, digits and dashes only: nothing PostgreSQL cannot store.
const Tag = z
  .string()
  .min(1)
  .max(30)
  .regex(/^[a-z0-9-]+$/, 'use lower-case letters, digits and dashes');

const Fields = z.object({
  url: z.url({ protocol: /^https?$/ }).refine(storable, NOT_STORABLE),
  title: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .refine(storable, NOT_STORABLE)
    .refine(oneLine, NOT_ONE_LINE),
  tags: z.array(Tag).max(10),
});

export const NewBookmark = Fields.extend({ tags: Fields.shape.tags.default([]) });

// Built from the fields without defaults: a change that leaves out `tags` keeps them.
export const BookmarkChanges = Fields.partial().refine(
  (changes) => Object.keys(changes).length > 0,
  'send at least one of url, title, tags',
);

export const ListQuery = z.object({
  tag: Tag.optional(),
  q: z.string().max(100).refine(storable, NOT_STORABLE).optional(),
});

/** A bookmark as the API sends it (documented with `returns()`, checked in development). */
export const StoredBookmark = z.object({
  id: z.string(),
  url: z.string(),
  title: z.string(),
  tags: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
  version: z.number().int(),
});
