/** Parallel mode on real repositories: independent lanes merge onto a head that moved by the other lanes' merges. */
import { afterEach, describe, expect, test } from 'vitest';
import { GitQueue, KEY } from './helpers.js';

let queue: GitQueue | undefined;
afterEach(async () => {
  await queue?.close();
  queue = undefined;
});

describe('parallel mode on the local git host', () => {
  test('a lane merges after another without a retest; the target holds both changes', async () => {
    const q = (queue = await GitQueue.create());
    await q.create({ mode: 'parallel', concurrency: 3, requiredStatuses: ['ci'] });
    const base = await q.clone.commit('Initial', { 'frontend/app.js': 'app\n', 'backend/api.py': 'api\n' });
    await q.clone.pushBase();
    const one = await q.clone.pr(1, base, { 'frontend/app.js': 'app v2\n' });
    // #3 builds on #1 (same file): a lane of two.
    const heads = {
      1: one,
      2: await q.clone.pr(2, base, { 'backend/api.py': 'api v2\n' }),
      3: await q.clone.pr(3, one, { 'frontend/app.js': 'app v3\n' }),
    };
    q.engine.setImpactedTargets(KEY, { number: 1, sha: heads[1] }, ['//frontend']);
    q.engine.setImpactedTargets(KEY, { number: 2, sha: heads[2] }, ['//backend']);
    q.engine.setImpactedTargets(KEY, { number: 3, sha: heads[3] }, ['//frontend']);
    await q.submit(1, 2, 3);
    const runs = { 1: q.runOf(1), 2: q.runOf(2), 3: q.runOf(3) };
    expect([runs[1].basePrs, runs[2].basePrs, runs[3].basePrs]).toEqual([[], [], [1]]);

    // The backend lane merges first; then the frontend PR, tested on the old head, goes onto the new one.
    await q.report(runs[2], 'success');
    expect(q.pr(2).state).toBe('MERGED');
    await q.report(runs[1], 'success');
    expect(q.pr(1).state).toBe('MERGED');
    expect(q.runs()).toHaveLength(3);
    let target = await q.target();
    expect(await q.clone.bare('show', `${target.head}:frontend/app.js`)).toBe('app v2');
    expect(await q.clone.bare('show', `${target.head}:backend/api.py`)).toBe('api v2');

    // #3 was tested on top of #1 (its lane); the other lane's merge does not stop it either.
    await q.report(runs[3], 'success');
    expect(q.pr(3).state).toBe('MERGED');
    target = await q.target();
    expect(await q.clone.bare('show', `${target.head}:frontend/app.js`)).toBe('app v3');
    expect(await q.clone.bare('show', `${target.head}:backend/api.py`)).toBe('api v2');
    expect(q.runs()).toHaveLength(3);
    expect(q.errors).toEqual([]);
  });
});
