/**
 * The queue under pressure (issue 28): batching and bisection (bench/pressureBatching.ts); the busy monorepo
 * (bench/pressureMonorepo.ts) joins it where it exists. Figures beside their goals, seeds 1–3 unless
 * `--seeds 1,2,3` says otherwise. `npm run bench:pressure`.
 */
import { benchPressureBatching, seedsOf } from './pressureBatching.js';

const seeds = seedsOf(process.argv);
const met = await benchPressureBatching(seeds);
console.log(`\n${met ? 'every goal met' : 'some goals NOT met'} (seeds ${seeds.join(', ')})`);
