/**
 * Vitest setup (every test file): a test fails when a response its API servers sent does not match the generated
 * OpenAPI document. With OPENAPI_TALLY set to a file, each test file appends the operations it checked (for figures).
 */
import { appendFileSync } from 'node:fs';
import { afterAll, afterEach } from 'vitest';
import { takeFailures, tally } from './recorder.js';

afterEach(() => {
  const failures = takeFailures();
  if (failures.length > 0) {
    throw new Error(
      `${failures.length} response(s) do not match the OpenAPI document (GET /v1/openapi.json):\n${failures.join('\n')}`,
    );
  }
});

afterAll(() => {
  const file = process.env.OPENAPI_TALLY;
  if (file !== undefined && tally.size > 0) appendFileSync(file, `${JSON.stringify(Object.fromEntries(tally))}\n`);
  // The fast lane shares one module registry between the files of a worker (isolate: false): each file counts its own.
  tally.clear();
});
