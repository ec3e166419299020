/** `npm run bench`: every benchmark, each printing figures and ratios against a baseline from the same run. */
import { benchApi } from './api.js';
import { benchDashboard } from './dashboard.js';
import { benchEngine } from './engine.js';
import { benchFailures } from './failures.js';
import { benchFlaky } from './flaky.js';
import { benchHttp } from './http.js';
import { benchParallel } from './parallel.js';
import { benchRestart } from './restart.js';
import { benchMetrics } from './metrics.js';
import { benchLocalGit } from './localGit.js';
import { benchSim } from './sim.js';
import { benchStore } from './store.js';

console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
await benchStore();
await benchApi();
await benchDashboard();
await benchFlaky();
await benchParallel();
await benchMetrics();
await benchLocalGit();
await benchSim();
await benchEngine();
await benchHttp();
await benchRestart();
await benchFailures();
