/**
 * The flaky-test service's changes to a whole repository, each one store transaction: re-evaluating its flaky and
 * broken tests at the current time, and changing its settings (quarantine follows at once). engine/flaky/service.ts
 * calls them after checking the caller's organization.
 */
import { engineError } from '../model/errors.js';
import type { Store } from '../store/store.js';
import { repoId as repoIdOf, type RepoRef } from './identity.js';
import { getOrCreateRepo } from './ingest.js';
import { currentMembers } from './membership.js';
import { evaluate } from './monitors.js';
import { applySettingsPatch, withDefaults, type RepoSettings, type SettingsPatch } from './settings.js';
import { applyEvaluation, saveTest, type ChangeContext } from './transitions.js';

/** Stores the tests whose status changed with time (see FlakyTests.refresh); how many changed. */
export function refreshRepo(store: Store, org: string, repo: RepoRef, now: number): number {
  const id = repoIdOf(repo);
  const stale = store.read((tx) => {
    const record = tx.get('flakyRepos', [org, id]);
    if (record === undefined) return [];
    const settings = withDefaults(record.settings);
    const ids = [
      ...currentMembers(tx, { org, repoId: id, list: 'flaky' }),
      ...currentMembers(tx, { org, repoId: id, list: 'broken' }),
    ];
    return ids.filter((testId) => {
      const test = tx.get('flakyTests', [org, id, testId]);
      return test !== undefined && evaluate(test, settings, now).value !== test.status.value;
    });
  });
  if (stale.length === 0) return 0;
  return store.write((tx) => {
    const repoRecord = getOrCreateRepo(tx, org, repo, now);
    const context: ChangeContext = { tx, org, repoId: id, seq: repoRecord.seq + 1, now, settings: repoRecord.settings };
    let changed = 0;
    for (const testId of stale) {
      const test = tx.get('flakyTests', [org, id, testId]);
      if (test === undefined) continue;
      const evaluation = evaluate(test, repoRecord.settings, now);
      if (evaluation.value === test.status.value) continue;
      saveTest(context, test, applyEvaluation(test, evaluation, context.seq));
      changed += 1;
    }
    if (changed > 0) tx.put('flakyRepos', [org, id], { ...repoRecord, seq: context.seq });
    return changed;
  });
}

/** Applies a settings patch (see FlakyTests.updateSettings); an invalid one is refused as invalid_settings. */
export function updateRepoSettings(
  store: Store,
  org: string,
  repo: RepoRef,
  patch: SettingsPatch,
  now: number,
): RepoSettings {
  const id = repoIdOf(repo);
  return store.write((tx) => {
    const repoRecord = getOrCreateRepo(tx, org, repo, now);
    let settings: RepoSettings;
    try {
      settings = applySettingsPatch(repoRecord.settings, patch);
    } catch (error) {
      throw engineError('invalid_settings', { problem: (error as Error).message });
    }
    const seq = repoRecord.seq + 1;
    const context: ChangeContext = { tx, org, repoId: id, seq, now, settings };
    if (settings.autoQuarantine !== repoRecord.settings.autoQuarantine) {
      for (const testId of currentMembers(tx, { org, repoId: id, list: 'flaky' })) {
        const test = tx.get('flakyTests', [org, id, testId]);
        if (test !== undefined) saveTest(context, test, test, repoRecord.settings);
      }
    }
    tx.put('flakyRepos', [org, id], { ...repoRecord, settings, seq });
    return settings;
  });
}
