/**
 * The mutation table stays carried out: every planted patch still applies to the sources as they are (exactly
 * once), each changes its file, each named catcher exists, and a patch that does not apply is an error, not a pass.
 * The patches also apply to the sources as Biome lays them out at a line width of 120 (issue 31: the width drops from
 * 184 at the merge), so the reformat leaves the table carried out.
 * `npm run mutations` runs the table itself (minutes: a server per row).
 */
import { execFileSync } from 'node:child_process';
import { access, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MUTANTS } from './mutants.js';
import { occurrences, plant } from './plant.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIOME = join(ROOT, 'node_modules/.bin/biome');

describe('the mutation table', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'greenline-mutants-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(MUTANTS.map((mutant) => [mutant.id, mutant] as const))(
    'row %s: its patches apply exactly once and change the source',
    async (id, mutant) => {
      const copy = join(dir, id);
      for (const file of new Set(mutant.patches.map((patch) => patch.file)))
        await cp(join(ROOT, file), join(copy, file));
      await plant(copy, mutant.patches);
      for (const patch of mutant.patches) {
        const planted = await readFile(join(copy, patch.file), 'utf8');
        expect(planted).not.toBe(await readFile(join(ROOT, patch.file), 'utf8'));
        expect(planted).toContain(patch.to);
      }
      for (const catcher of mutant.by) if (catcher !== 'conformance') await access(join(ROOT, catcher));
    },
  );

  it.each(MUTANTS.map((mutant) => [mutant.id, mutant] as const))(
    'row %s: its patches apply exactly once to the sources formatted at width 120',
    async (id, mutant) => {
      const copy = join(dir, `${id}-120`);
      for (const file of new Set(mutant.patches.map((patch) => patch.file))) {
        const source = await readFile(join(ROOT, file), 'utf8');
        const formatted = execFileSync(
          BIOME,
          ['format', '--javascript-formatter-line-width=120', `--stdin-file-path=${file}`],
          { cwd: ROOT, input: source, encoding: 'utf8' },
        );
        await cp(join(ROOT, file), join(copy, file));
        await writeFile(join(copy, file), formatted);
      }
      await plant(copy, mutant.patches);
    },
  );

  it('a patch matches whatever the layout: line breaks, indentation and the trailing comma of a broken list', () => {
    const from = "if (runId !== null && q.runInProgress(runId)) cancelRun(q, runId, why, 'requeue');";
    const broken =
      "if (runId !== null && q.runInProgress(runId))\n      cancelRun(\n        q,\n        runId,\n        why,\n        'requeue',\n      );";
    expect(occurrences(`  ${from}\n`, from)).toBe(1);
    expect(occurrences(`  ${broken}\n`, from)).toBe(1);
    expect(
      occurrences("if (runId !== null && q.runInProgress(runId)) cancelRun(q, runId, why, 'requeued');", from),
    ).toBe(0);
    expect(occurrences('ifrunId', 'if runId')).toBe(0);
  });

  it('a patch that no longer applies (or applies twice) is an error', async () => {
    const copy = join(dir, 'stale');
    await cp(join(ROOT, 'machines/queue.ts'), join(copy, 'machines/queue.ts'));
    await expect(
      plant(copy, [{ file: 'machines/queue.ts', from: 'no such text in the file', to: '' }]),
    ).rejects.toThrow(/no longer applies.*0 times/);
    await expect(plant(copy, [{ file: 'machines/queue.ts', from: 'tags(', to: '' }])).rejects.toThrow(
      /no longer applies/,
    );
  });

  it('holds the issue’s six planted bugs and at least six more, in the planner, machines, API and flaky detection', () => {
    expect(new Set(MUTANTS.map((mutant) => mutant.id)).size).toBe(MUTANTS.length);
    const counted = MUTANTS.filter((mutant) => mutant.equivalent !== true);
    expect(counted.filter((mutant) => mutant.origin === 'issue').map((mutant) => mutant.id)).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '10',
    ]);
    const added = counted.filter((mutant) => mutant.origin === 'added');
    expect(added.length).toBeGreaterThanOrEqual(6);
    for (const area of ['planner', 'machines', 'api', 'flaky'] as const)
      expect(
        added.some((mutant) => mutant.area === area),
        area,
      ).toBe(true);
  });
});
