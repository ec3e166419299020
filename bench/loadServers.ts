/**
 * The child processes of bench:load and the benches that share its set-up: a bare Fastify route as the baseline of
 * requests/s under the same connections, the address a child prints once it listens, and a process's resident memory.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import autocannon from 'autocannon';

export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** Requests per second of a bare Fastify route (in a child process, as the service is) under `connections`. */
export async function runBare(options: { seconds: number; connections: number }): Promise<number> {
  const script = `import Fastify from 'fastify';
const app = Fastify();
app.post('/bare', async () => ({}));
const address = await app.listen({ host: '127.0.0.1', port: 0 });
console.log('listening on ' + address);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: new URL('..', import.meta.url).pathname,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const url = await listening(child);
    const result = await autocannon({
      url: `${url}/bare`,
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
      connections: options.connections,
      duration: options.seconds,
    });
    return result.requests.average;
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

/** The service's (or the bare route's) address, once the child says it listens. */
export function listening(child: ReturnType<typeof spawn>): Promise<string> {
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) {
        clearInterval(timer);
        resolve(match[1] as string);
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`the server exited (${code}) before listening:\n${out}`));
    });
  });
}
