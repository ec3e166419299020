/**
 * One contract for every CI (engine/providers/types.ts): the same cases run on each fixture of ci.fixtures.ts. A run
 * reports each of its statuses pending, then its outcome; starting a run again (after a restart, or twice) reaches
 * the same outcome, reported once by each start; a stopped run reports nothing more.
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { CiRun, StatusReporter } from '../../engine/providers/types.js';
import { CIS, type CiFixture } from './ci.fixtures.js';

type Report = Parameters<StatusReporter>[0];

/** Collects what the CI reports. */
function recorder() {
  const reports: Report[] = [];
  const report: StatusReporter = (status) => reports.push(status);
  const finals = (context: string) =>
    reports.filter((status) => status.context === context && status.state !== 'pending');
  return { reports, report, finals };
}

let fixture: CiFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe.each(Object.keys(CIS))('the CI contract: %s', (name) => {
  const open = async () => (fixture = await CIS[name]!());

  function expectOnTheRun(reports: Report[], run: CiRun) {
    for (const status of reports) expect(status).toMatchObject({ org: run.org, repo: run.repo, sha: run.sha });
  }

  test.each(['success', 'failure'] as const)(
    'a run reports each status pending, then its outcome (%s), once',
    async (outcome) => {
      const f = await open();
      const run = await f.run('tr_contract_outcome', outcome);
      const { reports, report, finals } = recorder();
      f.ci().start(run, report);
      await f.until(() => f.contexts.every((context) => finals(context).length > 0));
      await f.quiesce();
      expectOnTheRun(reports, run);
      for (const context of f.contexts) {
        const mine = reports.filter((status) => status.context === context);
        expect(mine[0]?.state).toBe('pending');
        expect(finals(context).map((status) => status.state)).toEqual([outcome]);
      }
    },
  );

  test('starting a run that is running again changes nothing: each status ends once, as it would have', async () => {
    const f = await open();
    const run = await f.run('tr_contract_twice', 'success');
    const { reports, report, finals } = recorder();
    f.ci().start(run, report);
    f.ci().start(run, report);
    await f.until(() => f.contexts.every((context) => finals(context).length > 0));
    await f.quiesce();
    expectOnTheRun(reports, run);
    for (const context of f.contexts) expect(finals(context).map((status) => status.state)).toEqual(['success']);
  });

  test('after a restart, starting an ended run again reports the same outcome', async () => {
    const f = await open();
    const run = await f.run('tr_contract_restart', 'failure');
    const first = recorder();
    f.ci().start(run, first.report);
    await f.until(() => f.contexts.every((context) => first.finals(context).length > 0));
    await f.restart();
    const again = recorder();
    f.ci().start(run, again.report);
    await f.until(() => f.contexts.every((context) => again.finals(context).length > 0));
    await f.quiesce();
    expectOnTheRun(again.reports, run);
    for (const context of f.contexts) {
      expect(again.finals(context).map((status) => status.state)).toEqual(
        first.finals(context).map((status) => status.state),
      );
    }
  });

  test('a stopped run reports nothing more; stopping it again, or a run never started, is fine', async () => {
    const f = await open();
    const run = await f.run('tr_contract_stop', 'hold');
    const { reports, report, finals } = recorder();
    f.ci().start(run, report);
    await f.until(() => f.contexts.every((context) => reports.some((status) => status.context === context)));
    f.ci().stop(run.runId);
    f.ci().stop(run.runId);
    f.ci().stop('tr_never_started');
    await f.quiesce();
    for (const context of f.contexts) expect(finals(context)).toEqual([]);
  });
});
