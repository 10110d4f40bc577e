/** The extension → media type table (src/http/content-types.ts; docs/static-files.md). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTENT_TYPES } from '../../src/http/content-types.js';
import { contentTypeFor } from '../../src/index.js';

const OCTET_STREAM = 'application/octet-stream';
const TABLE_TYPES = new Set(CONTENT_TYPES.values());
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);

describe('contentTypeFor', () => {
  it('knows the table of docs/static-files.md, case-insensitively', () => {
    expect(contentTypeFor('index.html')).toBe('text/html; charset=utf-8');
    expect(contentTypeFor('a/b/APP.JS')).toBe('application/javascript; charset=utf-8');
    expect(contentTypeFor('photo.jpeg')).toBe('image/jpeg');
    expect(contentTypeFor('noext')).toBe(OCTET_STREAM);
    expect(contentTypeFor('dir.d/noext')).toBe(OCTET_STREAM);
  });

  it('answers octet-stream for the names Object.prototype carries', () => {
    for (const name of PROTOTYPE_NAMES) {
      expect(contentTypeFor(`file.${name}`), name).toBe(OCTET_STREAM);
      expect(contentTypeFor(`file.${name.toUpperCase()}`), name).toBe(OCTET_STREAM);
    }
  });

  it('gives a type of the table or octet-stream for any extension (fast-check)', () => {
    fc.assert(
      fc.property(
        // Any text, the names a lookup through a prototype would find, and the table's own.
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'grapheme' }),
          fc.constantFrom(...PROTOTYPE_NAMES),
          fc.constantFrom(...CONTENT_TYPES.keys()),
        ),
        (extension) => {
          const type = contentTypeFor(`file.${extension}`);
          expect(typeof type).toBe('string');
          expect(type === OCTET_STREAM || TABLE_TYPES.has(type), JSON.stringify(extension)).toBe(
            true,
          );
          // A known extension gives its own row, whatever its case.
          const known = CONTENT_TYPES.get(extension.toLowerCase());
          if (known !== undefined && !/[/\\.]/.test(extension)) expect(type).toBe(known);
        },
      ),
    );
  });
});
