/**
 * The layering, checked by dependency-cruiser against the rules in `.dependency-cruiser.cjs` (each rule says what
 * it keeps apart and why): the folders' order, nothing of the service importing api/ but cli/, what runs inside a
 * transaction importing nothing of the runtime, the store's implementations, metrics or the façade, and no
 * value-import cycle anywhere.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

/** A budget for a stuck run, not a speed requirement: cruising the tree parses every file (seconds on a loaded machine). */
const BUDGET_MS = 300_000;
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = fileURLToPath(new URL('../../node_modules/dependency-cruiser/bin/dependency-cruise.mjs', import.meta.url));

test(
  'the tree keeps the layering rules (dependency-cruiser)',
  () => {
    const run = spawnSync(
      process.execPath,
      [
        bin,
        '--config',
        '.dependency-cruiser.cjs',
        '--output-type',
        'err',
        'machines',
        'engine',
        'hosts',
        'web',
        'api',
        'sim',
        'cli',
        'conformance',
      ],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    // The report names each violation, its rule and the chain of imports: shown in full when the test fails.
    expect(run.stdout + run.stderr).toContain('no dependency violations found');
    expect(run.status).toBe(0);
  },
  BUDGET_MS,
);
