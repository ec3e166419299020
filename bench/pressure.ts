/**
 * The queue under pressure (issue 28): batching and bisection (bench/pressureBatching.ts), then the busy monorepo
 * (bench/pressureMonorepo.ts). Figures beside their goals, seeds 1–3 unless `--seeds 1,2,3` says otherwise.
 * `npm run bench:pressure`.
 */
import { benchPressureBatching, seedsOf } from './pressureBatching.js';
import { benchPressureMonorepo } from './pressureMonorepo.js';

const seeds = seedsOf(process.argv);
const batching = await benchPressureBatching(seeds);
console.log('\n# the busy monorepo');
const monorepo = await benchPressureMonorepo(seeds);
const verdict = (met: boolean) => (met ? 'every goal met' : 'some goals NOT met');
console.log(
  `\nbatching and bisection: ${verdict(batching)}; busy monorepo: ${verdict(monorepo)} (seeds ${seeds.join(', ')})`,
);
