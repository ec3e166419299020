/**
 * `npx tsx bench/postgresProfileTop.ts DIR [DIR2]`: reads the profiles `npm run bench:postgres -- --cpu-prof DIR`
 * wrote (DIR/<setup>/process*.cpuprofile, bench/cpuProfileHook.mjs) and prints, for the measured window alone
 * (DIR/<setup>/window.json), where each process's main thread spent its samples: the top functions by self time, and
 * the same summed by where the code lives (Greenline's own directories, each package of node_modules, Node's
 * internals, the garbage collector, idle). A sample is wall-clock: time blocked in `Atomics.wait` (a store round
 * trip) shows under the function that waits, `(idle)` is the event loop waiting; what is neither is CPU. The figures
 * are milliseconds per submit of the setup (its submits in the window), so setups compare per unit of work.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  startedAt: number;
  startTime: number;
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const TOP = Number(process.env.TOP ?? 25);

function where(url: string, name: string): string {
  if (url === '') return name.startsWith('(') ? name : '(native)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules !== null) return `pkg:${modules[1]}`;
  if (url.startsWith('node:')) return 'node:internals';
  const own = /\/(engine\/[^/]+|api|cli|machines|sim|web|dashboard)\//.exec(url);
  return own !== null ? (own[1] as string) : url.replace(/.*\//, '');
}

/** Self milliseconds per function and per place, of the samples taken within [from, to] (Date.now() times). */
function selfTimes(profile: Profile, from: number, to: number) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const functions = new Map<string, number>();
  const places = new Map<string, number>();
  let at = profile.startTime; // µs, the profiler's clock; startedAt is the same moment by Date.now()
  let total = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    const wall = profile.startedAt + (at - profile.startTime) / 1000;
    if (wall < from || wall > to) return;
    const frame = (byId.get(id) as Node).callFrame;
    const name = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/.*\/(?=[^/]+\/[^/]+$)/, '')}:${frame.lineNumber + 1}`;
    const ms = delta / 1000;
    functions.set(name, (functions.get(name) ?? 0) + ms);
    const place = where(frame.url, frame.functionName);
    places.set(place, (places.get(place) ?? 0) + ms);
    total += ms;
  });
  return { functions, places, total };
}

/** The garbage collections of each process in the window (bench/gcStatsHook.mjs): count and pause ms per submit. */
function gcTotals(dir: string, window: { window: { from: number; to: number }; submits: number }): void {
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith('.gc.json'))
    .sort()) {
    const gcs = JSON.parse(readFileSync(join(dir, file), 'utf8')) as [string, number, number][];
    const kinds = new Map<string, { n: number; ms: number }>();
    for (const [kind, at, ms] of gcs) {
      if (at < window.window.from || at > window.window.to) continue;
      const total = kinds.get(kind) ?? { n: 0, ms: 0 };
      kinds.set(kind, { n: total.n + 1, ms: total.ms + ms });
    }
    const per = (x: number) => (x / window.submits).toFixed(3);
    console.log(
      `${file}: per submit ${[...kinds].map(([kind, { n, ms }]) => `${kind} ${per(n)} (${per(ms)} ms)`).join(', ')}`,
    );
  }
}

const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]);

for (const root of process.argv.slice(2)) {
  for (const setup of readdirSync(root).sort()) {
    if (!existsSync(join(root, setup, 'window.json'))) continue;
    const dir = join(root, setup);
    const window = JSON.parse(readFileSync(join(dir, 'window.json'), 'utf8')) as {
      window: { from: number; to: number };
      submits: number;
    };
    gcTotals(dir, window);
    const files = readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'));
    const sum = { functions: new Map<string, number>(), places: new Map<string, number>(), total: 0 };
    console.log(`\n== ${root} ${setup}: ${window.submits} submits in the window; ms per submit`);
    for (const file of files.sort()) {
      const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
      const times = selfTimes(profile, window.window.from, window.window.to);
      const busy = times.total - (times.places.get('(idle)') ?? 0);
      console.log(
        `${file}: sampled ${(times.total / window.submits).toFixed(2)}, not idle ${(busy / window.submits).toFixed(2)}`,
      );
      for (const [key, ms] of times.functions) sum.functions.set(key, (sum.functions.get(key) ?? 0) + ms);
      for (const [key, ms] of times.places) sum.places.set(key, (sum.places.get(key) ?? 0) + ms);
      sum.total += times.total;
    }
    console.log('-- by place (all processes)');
    for (const [place, ms] of sorted(sum.places).slice(0, TOP))
      console.log(`${(ms / window.submits).toFixed(3).padStart(9)}  ${place}`);
    console.log('-- top functions by self time (all processes)');
    for (const [name, ms] of sorted(sum.functions).slice(0, TOP))
      console.log(`${(ms / window.submits).toFixed(3).padStart(9)}  ${name}`);
  }
}
