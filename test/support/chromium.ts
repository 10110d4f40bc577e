/**
 * Headless Chromium for the browser tests: Debian's `chromium`, driven by playwright-core.
 * Outside CI a machine without it skips those tests with a line saying why; with `CI=true` its
 * absence fails the run.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import type { TestContext } from 'vitest';

const CHROMIUM = '/usr/bin/chromium';

/** Why the browser tests cannot run here, or `undefined` when they can. */
export const chromiumMissing = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} is not installed (apt-get install chromium)`;
if (chromiumMissing !== undefined && process.env.CI === 'true') {
  throw new Error(`The browser test needs Chromium in CI: ${chromiumMissing}`);
}

/** Starts headless Chromium; `undefined` when it is not installed. */
export async function launchChromium(): Promise<Browser | undefined> {
  if (chromiumMissing !== undefined) return undefined;
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The browser for a test, or the test skipped with the reason Chromium is missing. */
export function needChromium(context: TestContext, browser: Browser | undefined): Browser {
  if (chromiumMissing !== undefined) {
    console.warn(`Skipped: ${chromiumMissing}`);
    context.skip(chromiumMissing);
  }
  return browser as Browser;
}
