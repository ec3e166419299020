/**
 * Rolling counters kept in each test's record, so rates need no scan of history: hour buckets for the last day and
 * day buckets for the last week (and, for the broken monitor, the latest stable-branch outcomes). A bucket is a tuple `[index, ...counts]`, index = floor(time / size); buckets are
 * kept sorted by index and pruned past their retention on every update.
 */
export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;

/** `[hour, runs, fails]` */
export type HourBucket = [number, number, number];
/**
 * `[day, runs, fails, stableRuns, stableFails, monitoredRuns, monitoredFails, monitoredStableRuns,
 * monitoredStableFails]`; "monitored" leaves out runs recorded while the test was broken, so that a fixed broken
 * test does not look flaky while its old failures age out of the failure-rate window.
 */
export type DayBucket = [number, number, number, number, number, number, number, number, number];

export const HOUR_RETENTION = 26;
export const DAY_RETENTION = 9;

export const hourIndex = (ms: number) => Math.floor(ms / HOUR_MS);
export const dayIndex = (ms: number) => Math.floor(ms / DAY_MS);

/** Adds `counts` to the bucket at `index` (created as needed) and drops buckets at or below `oldest`. */
export function addToBuckets<B extends number[]>(buckets: B[], index: number, counts: number[], oldest: number): B[] {
  const kept = buckets.filter((bucket) => (bucket[0] as number) > oldest);
  if (index <= oldest) return kept;
  let bucket = kept.find((entry) => entry[0] === index);
  if (bucket === undefined) {
    bucket = [index, ...counts.map(() => 0)] as B;
    kept.push(bucket);
    kept.sort((a, b) => (a[0] as number) - (b[0] as number));
  }
  counts.forEach((value, i) => {
    (bucket as number[])[i + 1] = ((bucket as number[])[i + 1] ?? 0) + value;
  });
  return kept;
}

/** Sums of each count over buckets with index > `after` and <= `upTo`. */
export function sumBuckets(buckets: readonly number[][], after: number, upTo: number, width: number): number[] {
  const sums = new Array<number>(width).fill(0);
  for (const bucket of buckets) {
    const index = bucket[0] as number;
    if (index <= after || index > upTo) continue;
    for (let i = 0; i < width; i++) sums[i] = (sums[i] as number) + (bucket[i + 1] ?? 0);
  }
  return sums;
}

export function rate(fails: number, runs: number): number {
  return runs === 0 ? 0 : fails / runs;
}
