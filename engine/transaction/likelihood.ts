/** The failure likelihood of PRs, estimated and learnt in the queue's transactions (engine/model/likelihood.ts). */
import { explain, featuresOf, newLikelihoodModel, predict, train } from '../model/likelihood.js';
import type { QueueTx } from './queueTx.js';

/** Estimates a PR's failure likelihood with the queue's model, stores it on its record, and says it for people. */
export function estimate(q: QueueTx, number: number): string {
  const model = (q.runtime.likelihood ??= newLikelihoodModel());
  const record = q.markPr(number);
  record.likelihood = predict(model, featuresOf(model, record));
  const given = q.predictor?.(record);
  if (given === undefined) return explain(record.likelihood, model);
  record.likelihood = { ...record.likelihood, p: given };
  return `failure likelihood ${(given * 100).toFixed(1)}% given by the engine's predictor`;
}

/** A PR resolved (merged, or kicked): the model learns from what its estimate rested on. */
export function learn(q: QueueTx, number: number, kicked: boolean): void {
  const pr = q.requirePr(number);
  train((q.runtime.likelihood ??= newLikelihoodModel()), pr.author, pr.readyLikelihood, kicked);
}
