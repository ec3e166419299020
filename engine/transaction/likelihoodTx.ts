/** The failure likelihood of PRs, estimated and learnt in the queue's transactions (engine/model/likelihoodModel.ts). */
import { explain, featuresOf, newLikelihoodModel, predict, train } from '../model/likelihoodModel.js';
import { repoId } from '../flaky/identity.js';
import { NONE, type MoveScope, type Write } from './writes.js';
import { cloneJson } from '../model/cloneJson.js';

/** Estimates a PR's failure likelihood with the queue's model, stores it on its record, and says it for people. */
export function estimate(q: MoveScope, number: number): string {
  const model = (q.runtime.likelihood ??= newLikelihoodModel());
  const record = q.prs.mark(number);
  record.likelihood = predict(model, featuresOf(model, { ...record, headFailures: headFailures(q, record.sha) }));
  const given = q.predictor?.(record);
  if (given === undefined) return explain(record.likelihood, model);
  record.likelihood = { ...record.likelihood, p: given };
  return `failure likelihood ${(given * 100).toFixed(1)}% given by the engine's predictor`;
}

/** A PR resolved (merged, or kicked): the model learns from what its estimate rested on. */
export function learn(q: MoveScope, number: number, kicked: boolean): readonly Write[] {
  const pr = q.prs.require(number);
  // Trained on a copy that then replaces the model: the working set's record shares the model it holds (copyRuntime).
  const model = q.runtime.likelihood === undefined ? newLikelihoodModel() : cloneJson(q.runtime.likelihood);
  train(model, pr.author, pr.readyLikelihood, kicked);
  q.runtime.likelihood = model;
  return NONE;
}

/**
 * Tests failing on a commit, as CI's JUnit uploads report them (failed there and never passed), less the tests now
 * flaky or broken: failures that the commit's own change likely caused.
 */
function headFailures(q: MoveScope, sha: string): number {
  if (sha === '') return 0;
  const { org, repo } = q.queue;
  const id = repoId(repo);
  const record = q.tx.get('flakyShas', [org, id, sha.toLowerCase()]);
  if (record === undefined) return 0;
  return record.failing.filter(
    (test) => (q.tx.get('flakyTests', [org, id, test.id])?.status.value ?? 'healthy') === 'healthy',
  ).length;
}
