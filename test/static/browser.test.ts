/**
 * The example application's front-end in a real browser: headless Chromium (Debian's
 * `chromium`, driven by playwright-core) loads the page that StaticRouter serves, runs its module
 * script and shows data from the JSON API, then adds a bookmark through it.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { createApp } from '../../examples/app/app.js';
import { type ServeHandle, serve } from '../../src/adapters/node/index.js';
import { silentLogger } from '../../src/index.js';
import { chromiumMissing, launchChromium, needChromium } from '../support/chromium.js';

let server: ServeHandle | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  if (chromiumMissing !== undefined) return;
  server = await serve(createApp({ logger: silentLogger }), {
    port: 0,
    host: '127.0.0.1',
    handleSignals: false,
  });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

function need(context: TestContext): { server: ServeHandle; browser: Browser } {
  return { browser: needChromium(context, browser), server: server as ServeHandle };
}

describe('the example front-end in headless Chromium', () => {
  it('loads the page, its stylesheet and module script, and shows the API data', async (context) => {
    const { server, browser } = need(context);
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`${message.text()} ${message.location().url}`);
    });
    try {
      const response = await page.goto(`${server.url}/`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
      await page.waitForSelector('#bookmarks li');
      const titles = await page.locator('#bookmarks li a').allTextContents();
      expect(titles).toContain('Example Domain');
      expect(titles).toContain('RFC 9110: HTTP Semantics');
      expect(await page.locator('#status').textContent()).toBe('2 bookmarks');
      // The stylesheet applied: it was served as text/css, which browsers insist on.
      // (Browser-side code is given as text: the test's TypeScript has no DOM types.)
      const width = await page.evaluate(
        "getComputedStyle(document.querySelector('main')).maxWidth",
      );
      expect(width).toBe('640px');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('adds a bookmark through the form and the JSON API', async (context) => {
    const { server, browser } = need(context);
    const page = await browser.newPage();
    try {
      await page.goto(`${server.url}/`);
      await page.waitForSelector('#bookmarks li');
      await page.fill('input[name=url]', 'https://developer.mozilla.org/');
      await page.fill('input[name=title]', 'MDN <b>Web</b> Docs');
      await page.fill('input[name=tags]', 'docs, web');
      await page.click('button[type=submit]');
      await page.waitForFunction("document.querySelectorAll('#bookmarks li').length === 3");
      const added = page.locator('#bookmarks li', { hasText: 'MDN' });
      // Text, not markup: the title's tags are shown as typed.
      expect(await added.locator('a').textContent()).toBe('MDN <b>Web</b> Docs');
      expect(await added.locator('.tag').allTextContents()).toEqual(['docs', 'web']);
      const api = await fetch(`${server.url}/api/v1/bookmarks`);
      expect((await api.json()) as unknown[]).toHaveLength(3);
    } finally {
      await page.close();
    }
  });

  it('says so when adding fails before any answer, and keeps what was typed', async (context) => {
    const { server, browser } = need(context);
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    try {
      await page.goto(`${server.url}/`);
      await page.waitForSelector('#bookmarks li');
      // The connection fails for the POST only, as when the network drops.
      await page.route('**/api/v1/bookmarks', (route) =>
        route.request().method() === 'POST' ? route.abort('failed') : route.continue(),
      );
      await page.fill('input[name=url]', 'https://example.org/');
      await page.fill('input[name=title]', 'Kept');
      await page.click('button[type=submit]');
      await page.waitForSelector('#status.error');
      expect(await page.locator('#status').textContent()).toMatch(/^Not added: /);
      expect(await page.inputValue('input[name=title]')).toBe('Kept');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
