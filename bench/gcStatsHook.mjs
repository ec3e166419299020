/**
 * Preloaded into a benched process (`NODE_OPTIONS=--import …/gcStatsHook.mjs`, with GREENLINE_GC_STATS=FILE): counts
 * its main thread's garbage collections by kind (perf_hooks' `gc` entries: minor, major, incremental, weak callbacks)
 * with their pause time, each with the wall-clock time it began, and at exit writes them to FILE, so that a reader
 * can take one window of them (bench/postgresSteady.ts prints the window's totals per submit).
 */
import { writeFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';

const file = process.env.GREENLINE_GC_STATS;
if (file !== undefined && file !== '') {
  const kinds = {
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak',
  };
  const gcs = [];
  const origin = Date.now() - performance.now();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      gcs.push([kinds[entry.detail?.kind] ?? 'other', Math.round(origin + entry.startTime), entry.duration]);
  }).observe({ entryTypes: ['gc'] });
  process.once('exit', () => writeFileSync(file, JSON.stringify(gcs)));
}
