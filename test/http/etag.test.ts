/**
 * Entity tags (RFC 9110 §8.8.3): formatting, list parsing for If-Match / If-None-Match, and the
 * strong and weak comparisons of §8.8.3.2.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatEntityTag,
  isEntityTag,
  parseEntityTagList,
  strongMatch,
  weakMatch,
} from '../../src/http/etag.js';

// etagc = %x21 / %x23-7E (obs-text left out: runtimes disagree on sending it)
const etagc = fc.constantFrom(
  ...Array.from({ length: 0x7e - 0x20 }, (_, i) => String.fromCharCode(0x21 + i)).filter(
    (c) => c !== '"',
  ),
);
const opaque = fc.array(etagc, { maxLength: 20 }).map((chars) => `"${chars.join('')}"`);
const entityTag = fc.tuple(fc.boolean(), opaque).map(([weak, tag]) => (weak ? `W/${tag}` : tag));

describe('entity tags', () => {
  it('formats values with quotes, and W/ for weak ones; quoted tags are kept', () => {
    expect(formatEntityTag('abc')).toBe('"abc"');
    expect(formatEntityTag('abc', true)).toBe('W/"abc"');
    expect(formatEntityTag('"abc"')).toBe('"abc"');
    expect(formatEntityTag('W/"abc"')).toBe('W/"abc"');
    expect(formatEntityTag('W/"abc"', true)).toBe('W/"abc"');
  });

  it('escapes what a tag cannot carry instead of dropping it, so tags never collide', () => {
    expect(formatEntityTag('a"b')).not.toBe(formatEntityTag('ab'));
    expect(formatEntityTag('a b')).toBe('"a%20b"');
    expect(formatEntityTag('100%')).toBe('"100%25"');
    expect(() => formatEntityTag('\ud800')).toThrow(TypeError);
  });

  it('formatting always gives a well-formed tag, and different values different tags', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }),
        fc.string({ unit: 'grapheme' }),
        fc.boolean(),
        (a, b, weak) => {
          const tagA = formatEntityTag(a, weak);
          expect(isEntityTag(tagA)).toBe(true);
          expect(tagA.startsWith('W/')).toBe(weak || a.startsWith('W/"'));
          if (a !== b && !isEntityTag(a) && !isEntityTag(b)) {
            expect(tagA).not.toBe(formatEntityTag(b, weak));
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('parses lists, keeping W/ and the quotes, and `*` alone', () => {
    expect(parseEntityTagList('"xyzzy"')).toEqual(['"xyzzy"']);
    expect(parseEntityTagList('"xyzzy", "r2d2xxxx", "c3piozzzz"')).toEqual([
      '"xyzzy"',
      '"r2d2xxxx"',
      '"c3piozzzz"',
    ]);
    expect(parseEntityTagList('W/"a", "b",W/"c"')).toEqual(['W/"a"', '"b"', 'W/"c"']);
    expect(parseEntityTagList(' * ')).toEqual(['*']);
    expect(parseEntityTagList('"a,b", "c"')).toEqual(['"a,b"', '"c"']);
    expect(parseEntityTagList(undefined)).toEqual([]);
  });

  it('drops malformed members so a garbled header never matches by accident', () => {
    expect(parseEntityTagList('abc')).toEqual([]);
    expect(parseEntityTagList('"abc')).toEqual([]);
    expect(parseEntityTagList('w/"abc"')).toEqual([]);
    expect(parseEntityTagList('abc, "ok"')).toEqual(['"ok"']);
    expect(parseEntityTagList('"a b"')).toEqual([]);
  });

  it('never throws, whatever the header', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (header) => {
        for (const tag of parseEntityTagList(header))
          expect(tag === '*' || isEntityTag(tag)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('round-trips: a list of tags joined with commas parses back to the same tags', () => {
    fc.assert(
      fc.property(
        fc.array(entityTag, { maxLength: 8 }),
        fc.constantFrom(',', ', ', ' ,\t'),
        (tags, separator) => {
          expect(parseEntityTagList(tags.join(separator))).toEqual(tags);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('compares as RFC 9110 §8.8.3.2 shows', () => {
    // The table of §8.8.3.2.
    expect(strongMatch('W/"1"', 'W/"1"')).toBe(false);
    expect(weakMatch('W/"1"', 'W/"1"')).toBe(true);
    expect(strongMatch('W/"1"', 'W/"2"')).toBe(false);
    expect(weakMatch('W/"1"', 'W/"2"')).toBe(false);
    expect(strongMatch('W/"1"', '"1"')).toBe(false);
    expect(weakMatch('W/"1"', '"1"')).toBe(true);
    expect(strongMatch('"1"', '"1"')).toBe(true);
    expect(weakMatch('"1"', '"1"')).toBe(true);
  });

  it('strong matches imply weak ones, and both are symmetric', () => {
    fc.assert(
      fc.property(entityTag, entityTag, (a, b) => {
        expect(strongMatch(a, b)).toBe(strongMatch(b, a));
        expect(weakMatch(a, b)).toBe(weakMatch(b, a));
        if (strongMatch(a, b)) expect(weakMatch(a, b)).toBe(true);
        expect(weakMatch(a, a)).toBe(true);
      }),
    );
  });
});
