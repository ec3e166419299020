import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Every response an API server of the suite sends is checked against the generated OpenAPI document.
    setupFiles: ['test/openapi/setup.ts'],
    // LMDB is a native module: keep the default `forks` pool, one process per file.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
