/**
 * How `npm run bench:postgres` starts its `greenline serve` processes: from the sources through tsx (as the tests
 * do: test/e2e/process.ts), or with `--built` the compiled command operators run (`bin/greenline.js`, after `npm
 * run build`), whose processes hold no loader or source maps (here about 140 MB resident against 230 MB through
 * tsx: every major garbage collection marks that much more). With the preloads of a profiled process
 * (bench/cpuProfileHook.mjs, gcStatsHook.mjs) and where they write.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startServer, type Running } from '../test/e2e/process.js';

export function profileHooks(dir: string, n: number, cpu: boolean, gc: boolean): Record<string, string> {
  const hook = (name: string) => `--import ${new URL(name, import.meta.url).href}`;
  return {
    NODE_OPTIONS: [...(cpu ? [hook('./cpuProfileHook.mjs')] : []), ...(gc ? [hook('./gcStatsHook.mjs')] : [])].join(
      ' ',
    ),
    ...(cpu ? { GREENLINE_CPU_PROFILE: join(dir, `process${n}.cpuprofile`) } : {}),
    ...(gc ? { GREENLINE_GC_STATS: join(dir, `process${n}.gc.json`) } : {}),
  };
}

const BUILT = new URL('../bin/greenline.js', import.meta.url).pathname;

/** `greenline serve` from the sources, or built; resolves once it listens (readiness, not a deadline). */
export async function startProcess(env: Record<string, string>, built: boolean): Promise<Running> {
  if (!built) return startServer(env);
  const child = spawn(process.execPath, [BUILT, 'serve'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string | undefined>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (found !== undefined) resolve(found);
    });
    child.once('exit', () => resolve(undefined));
  });
  if (url === undefined) throw new Error(`server did not start:\n${out}\n${err}`);
  return { child, url, stdout: () => out, stderr: () => err, exited };
}
