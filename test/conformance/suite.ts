/**
 * The conformance suite: every HTTP behaviour the library promises, written once against the
 * driver interface and run through every driver. Each `cases/*.ts` module adds one area.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { bodiesCases } from './cases/bodies.js';
import { compressionCases } from './cases/compression.js';
import { coreCases } from './cases/core.js';
import { optionsCases } from './cases/options.js';
import { scopeCases } from './cases/scope.js';
import { semanticsCases } from './cases/semantics.js';
import { streamsCases } from './cases/streams.js';
import { uploadsCases } from './cases/uploads.js';
import type { Driver, DriverFactory } from './driver.js';

/** What a cases module gets: the driver (open once per area) and a way to honour skips. */
export interface CaseContext {
  factory: DriverFactory;
  driver(): Driver;
}

export type CasesModule = {
  title: string;
  // biome-ignore lint/suspicious/noExplicitAny: each area builds its own app.
  app: () => import('../../src/index.js').RestApplication<any>;
  cases: (context: CaseContext) => void;
};

const MODULES: CasesModule[] = [
  coreCases,
  semanticsCases,
  scopeCases,
  optionsCases,
  bodiesCases,
  streamsCases,
  uploadsCases,
  compressionCases,
];

export function conformanceSuite(factory: DriverFactory): void {
  describe(`conformance via ${factory.name}`, () => {
    for (const module of MODULES) {
      describe(module.title, () => {
        let driver: Driver | undefined;
        beforeAll(async () => {
          driver = await factory.open(module.app());
        });
        afterAll(async () => {
          await driver?.close();
        });
        module.cases({
          factory,
          driver: () => {
            if (driver === undefined) throw new Error('driver not open');
            return driver;
          },
        });
      });
    }
  });
}
