/**
 * Preloaded into a benched process (`NODE_OPTIONS=--import …/cpuProfileHook.mjs`, with GREENLINE_CPU_PROFILE=FILE;
 * Node 20 refuses `--cpu-prof` in NODE_OPTIONS): profiles its main thread with the inspector from the start, and at
 * exit writes the profile to FILE with the wall-clock time it began (`startedAt`, Date.now()), so that a reader can
 * take one window of it (bench/postgresProfileTop.ts).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const file = process.env.GREENLINE_CPU_PROFILE;
if (file !== undefined && file !== '') {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  const startedAt = Date.now();
  session.post('Profiler.start');
  process.once('exit', () => {
    // Dispatched synchronously: the session is on this thread.
    session.post('Profiler.stop', (error, result) => {
      if (error === null) writeFileSync(file, JSON.stringify({ startedAt, ...result.profile }));
    });
  });
}
