/**
 * The matcher walks a path without `%` in place and decodes a path with `%` segment by segment.
 * Both ways must route alike: the same leaf and the same values, whatever the path.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MALFORMED, RouteMatcher } from '../../../src/app/routing/path-matcher.js';

const TEMPLATES = [
  '/',
  '/users',
  '/users/{id}',
  '/users/{id}/posts/{postId}',
  '/users/me/posts/{postId}',
  '/files/{rest*}',
  '/a/{x}/c',
  '/a/b/{y}',
  '/{any}/static',
  // More static names of one length than the in-place walk compares one by one.
  ...Array.from({ length: 12 }, (_, i) => `/g${i + 10}/{id}`),
  '/users/{id}/usera',
];

function matcher(): RouteMatcher<string> {
  const routes = new RouteMatcher<string>();
  for (const template of TEMPLATES) routes.add(template, 'GET', template);
  return routes;
}

// Segments made of what the templates use, plus characters a path may carry unencoded.
const segment = fc.oneof(
  fc.constantFrom(
    'users',
    'usera',
    'user',
    'me',
    'posts',
    'files',
    'a',
    'b',
    'c',
    'static',
    '',
    'x.y',
    '~',
    'g10',
    'g21',
    'g9',
    'g100',
  ),
  fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@-]{0,6}$/),
);
const path = fc.array(segment, { maxLength: 6 }).map((parts) => `/${parts.join('/')}`);

function outcome(routes: RouteMatcher<string>, raw: string) {
  const found = routes.match(raw);
  if (found === MALFORMED) return 'malformed';
  if (found === undefined) return 'none';
  return { template: found.leaf.template, values: [...found.values] };
}

/** The same path with its first letter percent-encoded, which sends it down the decoding way. */
function encodeOneLetter(raw: string): string | undefined {
  const at = raw.search(/[A-Za-z]/);
  if (at === -1) return undefined;
  const hex = raw.charCodeAt(at).toString(16).toUpperCase();
  return `${raw.slice(0, at)}%${hex}${raw.slice(at + 1)}`;
}

describe('RouteMatcher', () => {
  it('routes a path the same whether it is walked in place or decoded first (property)', () => {
    const routes = matcher();
    fc.assert(
      fc.property(path, (raw) => {
        const encoded = encodeOneLetter(raw);
        fc.pre(encoded !== undefined);
        expect(outcome(routes, encoded as string)).toEqual(outcome(routes, raw));
      }),
      { numRuns: 2000 },
    );
  });

  it('routes a path with dot-segments as the path they resolve to (RFC 3986 §5.2.4) (property)', () => {
    const routes = matcher();
    const dot = fc.constantFrom('.', '%2e', '%2E');
    const dotDot = fc.constantFrom('..', '.%2e', '%2E.', '%2e%2e');
    // Between the path's segments: `.`, or a segment that `..` takes away again.
    const detour = fc.oneof(
      dot.map((d) => [d]),
      fc.tuple(
        segment.filter((part) => part !== '' && !/^\.+$/.test(part)),
        dotDot,
      ),
    );
    const plain = segment.filter((part) => !/^\.+$/.test(part));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(plain, fc.array(detour, { maxLength: 2 })), { maxLength: 5 }),
        (parts) => {
          const resolved = `/${parts.map(([part]) => part).join('/')}`;
          const withDots = `/${parts.map(([part, detours]) => [part, ...detours.flat()].join('/')).join('/')}`;
          const found = outcome(routes, withDots);
          expect(found, withDots).toEqual(outcome(routes, resolved));
          if (typeof found === 'object') {
            for (const value of found.values) expect(value.split('/')).not.toContain('..');
          }
        },
      ),
      { numRuns: 2000 },
    );
    // Never above the root.
    expect(outcome(routes, '/../../users/7')).toEqual({ template: '/users/{id}', values: ['7'] });
    expect(outcome(routes, '/files/../users/%2e%2e/users/7')).toEqual({
      template: '/users/{id}',
      values: ['7'],
    });
  });

  it('walks in place with the documented priorities', () => {
    const routes = matcher();
    expect(outcome(routes, '/users/me/posts/7')).toEqual({
      template: '/users/me/posts/{postId}',
      values: ['7'],
    });
    expect(outcome(routes, '//users//42/posts/7/')).toEqual({
      template: '/users/{id}/posts/{postId}',
      values: ['42', '7'],
    });
    expect(outcome(routes, '/a/b/c')).toEqual({ template: '/a/b/{y}', values: ['c'] });
    expect(outcome(routes, '/a/z/c')).toEqual({ template: '/a/{x}/c', values: ['z'] });
    expect(outcome(routes, '/q/static')).toEqual({ template: '/{any}/static', values: ['q'] });
    expect(outcome(routes, '/files/x//y/')).toEqual({
      template: '/files/{rest*}',
      values: ['x/y'],
    });
    expect(outcome(routes, '/files')).toEqual({ template: '/files/{rest*}', values: [''] });
    expect(outcome(routes, '/nothing/here/at/all')).toBe('none');
    expect(outcome(routes, '/g21/x')).toEqual({ template: '/g21/{id}', values: ['x'] });
    expect(outcome(routes, '/g9/x')).toBe('none');
    expect(outcome(routes, '/users/1/usera')).toEqual({
      template: '/users/{id}/usera',
      values: ['1'],
    });
    expect(outcome(routes, '/users/%E0%A4%A')).toBe('malformed');
  });
});
