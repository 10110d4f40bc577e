/**
 * What clients may send, as zod schemas. restmachine validates them (any Standard Schema
 * works) and answers 422 listing every problem with its path.
 */
import * as z from 'zod';

const Tag = z
  .string()
  .min(1)
  .max(30)
  .regex(/^[a-z0-9-]+$/, 'use lower-case letters, digits and dashes');

const Fields = z.object({
  url: z.url({ protocol: /^https?$/ }),
  title: z.string().trim().min(1).max(200),
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
  q: z.string().max(100).optional(),
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
