/** The failure likelihood: the model learns from a queue's history, and on simulated features it ranks broken PRs higher. */
import { describe, expect, test } from 'vitest';
import { featuresOf, newLikelihoodModel, predict, train } from '../../engine/model/likelihoodModel.js';
import { drawArrivals } from '../../sim/arrivals.js';
import { runQueue } from '../../sim/queueRun.js';
import { parseScenario } from '../../sim/scenario.js';

describe('failure likelihood', () => {
  test('trained on a history where one author breaks half the time, it rates that author and big PRs higher', () => {
    const model = newLikelihoodModel();
    for (let k = 0; k < 400; k++) {
      const author = k % 4 === 0 ? 'careless' : `careful${k % 3}`;
      const kicked = author === 'careless' ? k % 8 === 0 : k % 50 === 1;
      const changedLines = kicked ? 2000 : 50;
      train(model, author, predict(model, featuresOf(model, { author, changedLines })), kicked);
    }
    const careless = predict(model, featuresOf(model, { author: 'careless', changedLines: 50 })).p;
    const careful = predict(model, featuresOf(model, { author: 'careful1', changedLines: 50 })).p;
    const big = predict(model, featuresOf(model, { author: 'careful1', changedLines: 2000 })).p;
    expect(careless).toBeGreaterThan(2 * careful);
    expect(big).toBeGreaterThan(2 * careful);
    expect(
      predict(model, featuresOf(model, { author: 'careful1', changedLines: 50, failedAttempts: 0 })).features
        .failedAttempts,
    ).toBe(0);
  });

  test('it learns from a short history: after 80 PRs, 8 of them big and kicked, a big PR is likely to fail and a small one not', () => {
    const model = newLikelihoodModel();
    for (let k = 0; k < 80; k++) {
      const kicked = k % 10 === 3;
      const author = `dev${k % 5}`;
      train(
        model,
        author,
        predict(model, featuresOf(model, { author, changedLines: kicked ? 2000 : 40 + (k % 7) * 10 })),
        kicked,
      );
    }
    expect(predict(model, featuresOf(model, { author: 'dev1', changedLines: 2000 })).p).toBeGreaterThan(0.5);
    expect(predict(model, featuresOf(model, { author: 'dev1', changedLines: 50 })).p).toBeLessThan(0.02);
    expect(model.trained).toBe(80);
  });

  test('on a simulated queue with predictive features, broken PRs get a higher likelihood than good ones', async () => {
    const scenario = parseScenario({
      name: 'features',
      hours: 24,
      arrivalsPerHour: 12,
      ci: { medianMinutes: 10, p90Minutes: 10 },
      brokenRate: 0.1,
      flakeRate: 0,
      predictiveFeatures: {},
      configs: [{ name: 'c', concurrency: 4 }],
    });
    const arrivals = drawArrivals(scenario, 3);
    expect(arrivals.every((arrival) => arrival.author !== undefined && (arrival.changedLines ?? 0) > 0)).toBe(true);
    const outcome = await runQueue({ scenario, seed: 3, settings: { concurrency: 4 }, arrivals });
    const later = outcome.prs.filter((pr) => pr.number > arrivals.length / 2 && pr.likelihood !== undefined);
    const mean = (prs: typeof later) =>
      prs.reduce((sum, pr) => sum + (pr.likelihood ?? 0), 0) / Math.max(1, prs.length);
    const broken = later.filter((pr) => pr.broken);
    const good = later.filter((pr) => !pr.broken);
    expect(broken.length).toBeGreaterThan(3);
    expect(mean(broken)).toBeGreaterThan(2 * mean(good));
  });
});
