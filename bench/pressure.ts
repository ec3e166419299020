/**
 * The queue under pressure (issue 28): the busy monorepo (bench/pressureMonorepo.ts), each figure beside its goal,
 * seeds 1–3 unless `--seeds 1,2,3` says otherwise. `npm run bench:pressure`.
 */
import { benchPressureMonorepo } from './pressureMonorepo.js';

const at = process.argv.indexOf('--seeds');
const seeds = (at === -1 ? '1,2,3' : (process.argv[at + 1] ?? '1,2,3')).split(',').map(Number);
const met = await benchPressureMonorepo(seeds);
console.log(`\nbusy monorepo: ${met ? 'every goal met' : 'some goals NOT met'} (seeds ${seeds.join(', ')})`);
