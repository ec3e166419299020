/**
 * `greenline conformance --url URL --token TOKEN`: the conformance suite generated from the machines, against any
 * server of this API (conformance/). Exit status: 0 passed, 1 a failure, 2 usage. fast-check is a dependency of
 * the service for it (the interleavings), not only of the tests.
 */
import { writeFile } from 'node:fs/promises';
import type { Part } from '../conformance/run.js';
import { UsageError } from './usage.js';

export interface ConformanceArgs {
  url?: string;
  token?: string;
  runs?: string;
  seed?: string;
  allPaths?: boolean;
  only?: string;
  wait?: string;
  junit?: string;
  verbose?: boolean;
}

function count(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^[0-9]{1,9}$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}

export async function conformanceCommand(args: ConformanceArgs): Promise<number> {
  const url = args.url ?? process.env.GREENLINE_URL ?? 'http://127.0.0.1:8080';
  const token = args.token ?? process.env.GREENLINE_TOKEN;
  if (token === undefined || token === '') throw new UsageError('conformance needs --token (or $GREENLINE_TOKEN)');
  if (!/^https?:\/\//.test(url)) throw new UsageError('--url must be an http(s) URL');
  const parts = (args.only ?? 'paths,interleavings,spec').split(',').map((part) => part.trim());
  for (const part of parts)
    if (!['paths', 'interleavings', 'spec'].includes(part))
      throw new UsageError(`--only: unknown part "${part}" (paths, interleavings, spec)`);
  // Loaded when asked for: the other commands do not pay for xstate/graph and fast-check at start.
  const { runConformance } = await import('../conformance/run.js');
  const { junitReport, printReport } = await import('../conformance/report.js');
  const options = {
    url,
    token,
    runs: count(args.runs, 'runs', 50),
    seed: count(args.seed, 'seed', 1),
    waitMs: count(args.wait, 'wait', 30) * 1000,
    allPaths: args.allPaths === true,
    parts: parts as Part[],
    log: (line: string) => console.error(line),
  };
  let result: Awaited<ReturnType<typeof runConformance>>;
  try {
    result = await runConformance(options);
  } catch (error) {
    // The server could not be reached (or stopped answering): no finding about it, say so.
    const cause =
      error instanceof Error
        ? `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ''}`
        : String(error);
    console.error(`greenline: conformance could not talk to ${url}: ${cause}`);
    return 1;
  }
  console.log(printReport(result, args.verbose === true));
  if (args.junit !== undefined) await writeFile(args.junit, junitReport(result));
  return result.failures.length === 0 ? 0 : 1;
}
