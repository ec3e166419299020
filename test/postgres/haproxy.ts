/**
 * A real load balancer in front of several `greenline serve` processes: Debian's haproxy (which .ci/run installs when
 * missing), round robin over the processes, health-checked on `/readyz`, a request to a process that is gone sent to
 * another (`option redispatch`, `retries`). Its front listens on a loopback port the kernel picks (port 0): this
 * process binds it and hands the socket to haproxy (`bind fd@3`), so nothing guesses a free port. The configuration
 * is the one docs/postgres.md gives operators, with the backends filled in. When haproxy cannot be found,
 * `startHaproxy` returns the reason and tests skip, saying so.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Front {
  /** The front's address: http://127.0.0.1:PORT. */
  url: string;
  child: ChildProcess;
  /** What haproxy printed: its alerts and the health checks' changes of state. */
  output(): string;
  /** Stops haproxy and removes its folder. */
  stop(): Promise<void>;
}

export function findHaproxy(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  return dirs.map((dir) => join(dir, 'haproxy')).find((path) => existsSync(path));
}

export interface FrontOptions {
  /**
   * Health checks of `/readyz` every so many ms (default 1000); `false`: none, a process is left out only while it
   * refuses connections (the benchmark: a process slow to answer a check under load is not taken out of the count).
   */
  checkMs?: number | false;
}

/** The haproxy.cfg for these backends (`bind` given: `fd@3` here; an address such as `:8080` for an operator). */
export function haproxyConfig(bind: string, backends: readonly string[], options: FrontOptions = {}): string {
  const check = options.checkMs ?? 1000;
  const servers = backends
    .map((url, i) => `  server greenline${i + 1} ${new URL(url).host}${check === false ? '' : ' check'}`)
    .join('\n');
  return `global
  maxconn 4096
  log stderr format raw local0 notice


defaults
  mode http
  log global
  option http-keep-alive
  # A request whose process went away (connection refused or reset before an answer) goes to another one.
  option redispatch
  retries 3
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout http-request 30s
  timeout http-keep-alive 60s
  # Server-sent events (the dashboard's /events) stay open for long.
  timeout tunnel 1h

frontend greenline
  bind ${bind}
  default_backend greenline

backend greenline
  balance roundrobin
  # A process answers /readyz 200 while it can read the store; one that fails three checks in a row gets no requests
  # until it passes one. A process that is gone refuses connections: its requests go to another one at once.
  option httpchk GET /readyz
  timeout check 5s
  default-server inter ${check === false ? 1000 : check}ms fall 3 rise 1
  http-reuse safe
${servers}
`;
}

async function listening(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ port: 0, host: '127.0.0.1', backlog: 1024 }, () => resolve(server));
  });
}

/** Starts haproxy before `backends` (their URLs), or returns why it cannot be had here. */
export async function startHaproxy(
  backends: readonly string[],
  options: FrontOptions = {},
): Promise<Front | { unavailable: string }> {
  const bin = findHaproxy();
  if (bin === undefined) return { unavailable: 'no haproxy found; install it (apt-get install haproxy)' };
  const dir = mkdtempSync(join(tmpdir(), 'greenline-haproxy-'));
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(config, haproxyConfig('fd@3', backends, options));
  const socket = await listening();
  const address = socket.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const fd = (socket as unknown as { _handle: { fd: number } })._handle.fd;
  // -db: in the foreground, no daemon; -W off. The socket is the child's fd 3.
  const child = spawn(bin, ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe', fd] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // haproxy has its own copy of the socket now; this process's is closed (it never accepts on it).
  socket.close();
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', () => child.kill('SIGKILL'));
  // Ready once it answers through the front (any status: the backends may not be ready yet).
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`haproxy exited: ${output}`);
    }
    try {
      await fetch(`${url}/healthz`);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  return { url, child, output: () => output, stop };
}
