/**
 * Storing one large JUnit upload (issue 19): 200,000 test cases parsed off the event loop, then stored in one
 * transaction (the baseline, as before) or in batches of TESTS_PER_TRANSACTION (ingestBatches.ts) on LMDB. For each,
 * in a fresh child process: the time to store, the longest the event loop was held (a timer sampling every 5 ms),
 * and the process's peak RSS. Then, over HTTP on the built service (bench/uploadIsolation.ts): getQueue on an idle
 * queue alone and during such an upload, and the time to refuse an upload over the limit.
 * `npm run build && npx tsx bench/upload.ts [-- CASES [SECONDS]]`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TESTS_PER_TRANSACTION, uploadInBatches } from '../engine/flaky/ingestBatches.js';
import { prepareOffThread } from '../engine/flaky/prepareOffThread.js';
import { openLmdbStore } from '../engine/store/index.js';
import { runIsolation } from './uploadIsolation.js';

const REPO = { host: 'github.com', owner: 'bench', name: 'upload' };

/** Resident memory split as Linux counts it: anonymous (heap, malloc) and file-backed (LMDB's map, code), in MB. */
function resident(): { anon: number; file: number } {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  return { anon: kb('RssAnon'), file: kb('RssFile') };
}

async function child(cases: number, size: number): Promise<void> {
  const xml = `<testsuite name="s">${Array.from({ length: cases }, (_, i) => `<testcase classname="pkg.C${i % 500}" name="t${i}">${i % 100 === 0 ? '<failure message="boom"/>' : ''}</testcase>`).join('')}</testsuite>`;
  const dir = mkdtempSync(join(tmpdir(), 'greenline-bench-upload-'));
  const store = openLmdbStore({ dir });
  try {
    const aggregated = await prepareOffThread({ repo: REPO, variant: '', reports: [{ file: 'r.xml', xml }] });
    let peakRss = process.memoryUsage().rss;
    let peakAnon = resident().anon;
    let peakFile = resident().file;
    let longest = 0;
    let last = performance.now();
    const sampler = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      const now2 = resident();
      peakAnon = Math.max(peakAnon, now2.anon);
      peakFile = Math.max(peakFile, now2.file);
    }, 5);
    const started = performance.now();
    const meta = { repo: REPO, sha: 'a'.repeat(40), branch: 'main', variant: '', reports: ['r.xml'] };
    await uploadInBatches(store, 'bench', meta, aggregated, () => Date.now(), { size });
    const ms = performance.now() - started;
    longest = Math.max(longest, performance.now() - last);
    clearInterval(sampler);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    const end = resident();
    peakAnon = Math.max(peakAnon, end.anon);
    peakFile = Math.max(peakFile, end.file);
    const fileMb = store.stats().sizeBytes / 2 ** 20;
    console.log(
      JSON.stringify({
        ms,
        longest,
        peakRssMb: peakRss / 2 ** 20,
        peakAnon,
        peakFile,
        fileMb,
        tests: store.read((tx) => tx.count('flakyTests')),
      }),
    );
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Figures {
  ms: number;
  longest: number;
  peakRssMb: number;
  peakAnon: number;
  peakFile: number;
  fileMb: number;
  tests: number;
}

function run(cases: number, size: number): Figures {
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', String(cases), String(size)],
    { encoding: 'utf8', maxBuffer: 2 ** 26 },
  );
  return JSON.parse(out.trim().split('\n').at(-1) as string);
}

if (process.argv[2] === '--child') {
  await child(Number(process.argv[3]), Number(process.argv[4]));
} else {
  const cases = Number(process.argv[2] ?? 200_000);
  const one = run(cases, Number.MAX_SAFE_INTEGER);
  const before = run(cases, 5000);
  const batched = run(cases, TESTS_PER_TRANSACTION);
  const row = (name: string, r: Figures) =>
    `${name.padEnd(28)} ${r.ms.toFixed(0).padStart(6)} ms, longest loop block ${r.longest.toFixed(0).padStart(5)} ms, peak RSS ${r.peakRssMb.toFixed(0)} MB ` +
    `(anonymous ${r.peakAnon.toFixed(0)}, file-backed ${r.peakFile.toFixed(0)}), data file ${r.fileMb.toFixed(0)} MB, ${r.tests} tests`;
  console.log(
    `storing one upload of ${cases.toLocaleString('en')} test cases on LMDB (parsing on a worker, not counted):`,
  );
  console.log(row('one transaction (baseline)', one));
  console.log(row('batches of 5000 (before)', before));
  console.log(row(`batches of ${TESTS_PER_TRANSACTION}`, batched));
  console.log(
    `ratios batches of ${TESTS_PER_TRANSACTION} / of 5000: time ${(batched.ms / before.ms).toFixed(2)}, longest block ${(batched.longest / before.longest).toFixed(3)}`,
  );
  console.log(
    `ratios batched/baseline: time ${(batched.ms / one.ms).toFixed(2)}, longest block ${(batched.longest / one.longest).toFixed(3)}, peak RSS ${(batched.peakRssMb / one.peakRssMb).toFixed(2)}, peak anonymous ${(batched.peakAnon / one.peakAnon).toFixed(2)}`,
  );
  await runIsolation({ cases, seconds: Number(process.argv[3] ?? 20), connections: 4 });
}
