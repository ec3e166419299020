/** `npm run bench:kill [-- KILLS]` (default 100): kill -9 under load (killCore.ts); prints what it found. */
import { killUnderLoad } from './killCore.js';

const kills = Number(process.argv[2] ?? 100);
const started = performance.now();
const report = await killUnderLoad(kills, (line) => console.log(line));
const sorted = [...report.restartMs].sort((a, b) => a - b);
console.log(
  `${report.kills} kills in ${((performance.now() - started) / 1000).toFixed(0)} s: ${report.submits} acknowledged submits, ${report.cancels} acknowledged cancels, ${report.statuses} statuses reported; ` +
    `lost ${report.lost.length}, duplicated ${report.duplicated.length}, merged twice ${report.mergedTwice.length}; ` +
    `event logs replayed ${report.replayed} events, divergences ${report.divergences.length}; restart P50 ${sorted[Math.floor(sorted.length / 2)]?.toFixed(0)} ms, max ${sorted.at(-1)?.toFixed(0)} ms`,
);
for (const line of [...report.lost, ...report.duplicated, ...report.mergedTwice, ...report.divergences].slice(0, 20))
  console.log(`  ${line}`);
process.exitCode =
  report.lost.length + report.duplicated.length + report.mergedTwice.length + report.divergences.length === 0 ? 0 : 1;
