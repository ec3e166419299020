/** CPU seconds of processes from /proc (Linux), and the processes of a PostgreSQL server: for the PostgreSQL benches. */
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

const TICK = 100; // clock ticks per second (USER_HZ on Linux)

/** CPU seconds (user + system) a process used so far, or 0 when it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICK;
  } catch {
    return 0;
  }
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
