import { it } from 'vitest';
import type { DriverRequest, DriverResponse } from '../driver.js';
import type { CaseContext } from '../suite.js';

/**
 * Registers one conformance test. A driver that cannot show a behaviour lists it in `skips`
 * with the reason, which is printed instead of running the test.
 */
export function conformanceTest(
  context: CaseContext,
  title: string,
  body: (send: (request: DriverRequest) => Promise<DriverResponse>) => Promise<void>,
): void {
  const reason = context.factory.skips?.[title];
  if (reason !== undefined) {
    console.info(`[${context.factory.name}] not applicable: "${title}": ${reason}`);
    return;
  }
  it(title, async () => {
    await body((request) => context.driver().send(request));
  });
}

export function get(path: string, headers?: Record<string, string | string[]>): DriverRequest {
  return headers === undefined ? { method: 'GET', path } : { method: 'GET', path, headers };
}
