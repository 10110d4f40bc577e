import { defineConfig } from 'vitest/config';

// In CI a JSON report is written too, so .ci/run can print a plain "N passed, N failed" line.
const ci = process.env.CI === 'true';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ci ? ['default', 'json'] : ['default'],
    ...(ci ? { outputFile: { json: 'node_modules/.cache/vitest-report.json' } } : {}),
  },
});
