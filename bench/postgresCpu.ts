/** CPU seconds of processes from /proc (Linux), and the processes of a PostgreSQL server: for the PostgreSQL benches. */
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

const TICK = 100; // clock ticks per second (USER_HZ on Linux)

/** CPU seconds (user + system) a process (or, with `of`, thread `pid` of process `of`) used so far, or 0 when it is gone. */
export function cpuSeconds(pid: number, of?: number): number {
  try {
    const stat = readFileSync(of === undefined ? `/proc/${pid}/stat` : `/proc/${of}/task/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICK;
  } catch {
    return 0;
  }
}

/** CPU seconds (user + system) each thread of a process used so far, by thread id; empty when it is gone. */
export function threadCpuSeconds(pid: number): Map<number, number> {
  const threads = new Map<number, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) threads.set(Number(tid), cpuSeconds(Number(`${tid}`), pid));
  } catch {
    // gone
  }
  return threads;
}

/**
 * Context switches of a process so far, all its threads: voluntary (a thread went to sleep: each blocking round trip
 * of the store puts the main thread, its worker and a backend to sleep once) and involuntary (preempted).
 */
export function contextSwitches(pid: number): { voluntary: number; involuntary: number } {
  const total = { voluntary: 0, involuntary: 0 };
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      total.voluntary += Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0);
      total.involuntary += Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0);
    }
  } catch {
    // gone
  }
  return total;
}

/** The PostgreSQL server's processes: its postmaster (the parent of a backend) and every child of it. */
export async function databasePids(url: string | undefined): Promise<number[]> {
  if (url === undefined) return [];
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const backend = Number((await client.query('SELECT pg_backend_pid() AS pid')).rows[0]?.pid);
    const parentOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
    const postmaster = parentOf(backend);
    const children = readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter((pid) => {
        try {
          return parentOf(pid) === postmaster;
        } catch {
          return false;
        }
      });
    return [postmaster, ...children];
  } finally {
    await client.end();
  }
}
