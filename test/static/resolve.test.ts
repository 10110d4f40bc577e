/**
 * Safe path resolution: examples of each rule, and fast-check properties that no generated path
 * resolves outside the root, in isolation and through the whole application.
 */
import { isAbsolute, join, relative, sep } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileBody } from '../../src/response.js';
import { StaticRouter } from '../../src/static/index.js';
import { MALFORMED, OUTSIDE, pathBelowMount, resolveStaticPath } from '../../src/static/resolve.js';
import { createFixture, type Fixture, quietApp, SECRET, send } from './helpers.js';

describe('resolveStaticPath', () => {
  it('collapses slashes and resolves dot-segments first (seed rule 1)', () => {
    for (const raw of ['//css//style.css', '/./css/./style.css', '/css/../css/style.css']) {
      expect(resolveStaticPath(raw)).toEqual({ segments: ['css', 'style.css'], directory: false });
    }
  });

  it('marks directories: trailing slash, final dot-segment, and the mount point', () => {
    expect(resolveStaticPath('/')).toEqual({ segments: [], directory: true });
    expect(resolveStaticPath('/docs/')).toEqual({ segments: ['docs'], directory: true });
    expect(resolveStaticPath('/docs/x/..')).toEqual({ segments: ['docs'], directory: true });
    expect(resolveStaticPath('/docs/.')).toEqual({ segments: ['docs'], directory: true });
    expect(resolveStaticPath('')).toEqual({ segments: [], directory: false });
  });

  it('refuses what leaves the root or hides a separator', () => {
    for (const raw of [
      '/..',
      '/../x',
      '/a/../../x',
      '/%2e%2e/x',
      '/a%2fb',
      '/a%5cb',
      '/a\\b',
      '/a%00',
    ]) {
      expect(resolveStaticPath(raw), raw).toBe(OUTSIDE);
    }
    for (const raw of ['/%', '/%zz', '/%c0%ae', '/%ed%a0%80']) {
      expect(resolveStaticPath(raw), raw).toBe(MALFORMED);
    }
  });

  it('decodes once: %252e stays the literal %2e', () => {
    expect(resolveStaticPath('/%252e%252e/x')).toEqual({
      segments: ['%2e%2e', 'x'],
      directory: false,
    });
  });
});

describe('pathBelowMount', () => {
  it('keeps the slashes the client sent below the mount point', () => {
    expect(pathBelowMount('/static/docs/', 'docs')).toBe('/docs/');
    expect(pathBelowMount('//static//a//b', 'a/b')).toBe('//a//b');
    expect(pathBelowMount('/static', '')).toBe('');
    expect(pathBelowMount('/static/', '')).toBe('/');
    expect(pathBelowMount('/', '')).toBe('/');
    expect(pathBelowMount('/x', 'x')).toBe('/x');
  });
});

// Pieces that path-confusion attacks are made of, plus arbitrary text.
const TOKENS = [
  '..',
  '.',
  '%2e%2e',
  '%2E%2E',
  '.%2e',
  '%2e.',
  '%2f',
  '%2F',
  '%5c',
  '%5C',
  '\\',
  '%00',
  '%252e%252e',
  '%252f',
  '%c0%ae',
  '%c0%af',
  '%e0%80%ae',
  '%',
  '%zz',
  'secret.txt',
  'public',
  'public-private',
  'publicity',
  'link-out.txt',
  'link-dir-out',
  'link-sibling',
  'css',
  'style.css',
  'hello.txt',
  'docs',
  '.env',
  'C:',
  'c:\\',
  '..;',
  '%u002e',
  '',
  '...',
  '....',
];
const segment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...TOKENS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) },
);
const rawPath = fc.array(segment, { maxLength: 8 }).map((parts) => `/${parts.join('/')}`);

describe('properties', () => {
  it('every resolved path joins to somewhere inside the root', () => {
    const root = join(sep, 'srv', 'public');
    fc.assert(
      fc.property(rawPath, (raw) => {
        const result = resolveStaticPath(raw);
        if (result === OUTSIDE || result === MALFORMED) return;
        for (const part of result.segments) {
          expect(['', '.', '..']).not.toContain(part);
          expect(part).not.toMatch(/[/\\\0]/);
        }
        const joined = join(root, ...result.segments);
        const inside = relative(root, joined);
        expect(inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)).toBe(false);
      }),
      { numRuns: 5000 },
    );
  });

  describe('through the application', () => {
    let fixture: Fixture;
    let app: ReturnType<typeof quietApp>;
    beforeAll(() => {
      fixture = createFixture();
      app = quietApp();
      // No cache: every served file is a FileBody whose real path can be checked.
      app.mount('/', new StaticRouter(fixture.root, { cache: false, dotfiles: 'allow' }));
    });
    afterAll(() => fixture.remove());

    it('any path serves a file inside the root, or answers 301/400/404', async () => {
      await fc.assert(
        fc.asyncProperty(rawPath, async (raw) => {
          const response = await send(app, raw);
          expect(response.text).not.toContain(SECRET);
          if (response.status === 200) {
            const body = response.response.body as FileBody;
            expect(body).toBeInstanceOf(FileBody);
            expect(body.path.startsWith(fixture.root + sep)).toBe(true);
          } else {
            expect([301, 400, 404]).toContain(response.status);
          }
        }),
        { numRuns: 1500 },
      );
    });
  });
});
