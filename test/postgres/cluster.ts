/**
 * A throwaway PostgreSQL cluster for tests: `initdb` into a temporary folder, `pg_ctl start` on a free loopback port
 * (its socket in that folder too), removed again by `stop()`. The binaries are Debian's (`postgresql`, which
 * .ci/run installs when missing) or any on the PATH. As root the server runs as the `postgres` user (PostgreSQL
 * refuses to run as root). When no binaries are found, `startPostgres` returns the reason and tests skip, saying so.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { CLUSTER_PREFIX, reapStaleClusters, recordOwner } from './staleClusters.js';

export interface PgCluster {
  /** A connection URL to the cluster's `postgres` database. */
  url: string;
  /** The folder of the server's binaries (psql among them). */
  bin: string;
  /** Creates a fresh database and returns its URL. */
  createDatabase(): Promise<string>;
  dropDatabase(url: string): Promise<void>;
  /** Stops the server (`pg_ctl stop -m fast`: sessions are ended) and keeps its data, for an outage. */
  halt(): void;
  /** Starts the halted server again on the same port and data. */
  resume(): void;
  stop(): Promise<void>;
}

function findBinDir(): string | undefined {
  const candidates: string[] = [];
  if (process.env.PG_BIN) candidates.push(process.env.PG_BIN);
  try {
    candidates.push(
      execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
    );
  } catch {
    // no pg_config on the PATH
  }
  if (existsSync('/usr/lib/postgresql')) {
    for (const version of readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))) {
      candidates.push(join('/usr/lib/postgresql', version, 'bin'));
    }
  }
  for (const dir of (process.env.PATH ?? '').split(':')) candidates.push(dir);
  return candidates.find((dir) => dir !== '' && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The uid/gid to run the server as when this process is root (the `postgres` user), else undefined. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

let serial = 0;

/**
 * Starts a cluster, or returns why one cannot be had here (tests then skip and print the reason). Tests run it
 * without fsync; `durable` keeps PostgreSQL's defaults (fsync on every commit, as LMDB does), for benchmarks.
 */
export async function startPostgres(options: { durable?: boolean } = {}): Promise<PgCluster | { unavailable: string }> {
  const bin = findBinDir();
  if (bin === undefined)
    return { unavailable: 'no PostgreSQL binaries (initdb, pg_ctl) found; install postgresql or set PG_BIN' };
  const user = serverUser();
  if (process.getuid?.() === 0 && user === undefined)
    return { unavailable: 'running as root and there is no postgres user to run the server' };
  reapStaleClusters(bin, user);
  const root = mkdtempSync(join(tmpdir(), CLUSTER_PREFIX));
  recordOwner(root);
  const data = join(root, 'data');
  if (user !== undefined) chownSync(root, user.uid, user.gid);
  const run = (tool: string, args: string[]) =>
    execFileSync(join(bin, tool), args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }),
      cwd: root,
    });
  const port = await freePort();
  const fast = options.durable === true ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off';
  const settings = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c max_connections=200${fast}`;
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    run('pg_ctl', ['-D', data, '-o', settings, '-l', join(root, 'server.log'), '-w', '-t', '60', 'start']);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`could not start PostgreSQL from ${bin}: ${(error as Error).message}\n${stderr}`);
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const admin = async <T>(fn: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };
  return {
    url,
    bin,
    async createDatabase() {
      const name = `greenline_test_${process.pid}_${++serial}`;
      await admin((client) => client.query(`CREATE DATABASE ${name}`));
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async dropDatabase(dbUrl: string) {
      const name = new URL(dbUrl).pathname.slice(1);
      await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
    halt() {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    },
    resume() {
      run('pg_ctl', ['-D', data, '-o', settings, '-l', join(root, 'server.log'), '-w', '-t', '60', 'start']);
    },
    async stop() {
      try {
        if (existsSync(join(data, 'postmaster.pid'))) run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
