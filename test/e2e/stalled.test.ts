/** A client that stalls in the middle of its request body holds nothing for good, and SIGTERM still completes. */
import { connect, type Socket } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { startServer, stop, withDataDir, type Running } from './process.js';

const running: Running[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(running.splice(0).map((server) => stop(server, 'SIGKILL')));
});

/** Opens a connection and sends the headers of a POST and half of its body, then nothing more. */
async function stalledRequest(
  server: Running,
): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const { hostname, port } = new URL(server.url);
  const socket = connect({ host: hostname, port: Number(port) });
  sockets.push(socket);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const token = /^\s+(glt_[A-Za-z0-9_-]+)$/m.exec(server.stdout())?.[1] ?? '';
  socket.write(
    `POST /v1/getQueue HTTP/1.1\r\nhost: x\r\nx-api-token: ${token}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"repo":`,
  );
  return { socket, received: () => received, closed };
}

test('a stalled request body is answered 408 and its connection closed after GREENLINE_REQUEST_TIMEOUT', async () => {
  await withDataDir(async (dir) => {
    const server = await startServer({
      GREENLINE_DATA: dir,
      GREENLINE_PROVIDER: 'sim',
      GREENLINE_REQUEST_TIMEOUT: '1',
    });
    running.push(server);
    const stalled = await stalledRequest(server);
    await stalled.closed;
    expect(stalled.received()).toMatch(/^HTTP\/1\.1 408/);
    expect(await stop(server)).toEqual({ code: 0, signal: null });
  });
});

test('SIGTERM completes while a client stalls mid-body: its connection is closed after GREENLINE_SHUTDOWN_GRACE', async () => {
  await withDataDir(async (dir) => {
    const server = await startServer({
      GREENLINE_DATA: dir,
      GREENLINE_PROVIDER: 'sim',
      GREENLINE_REQUEST_TIMEOUT: '3600',
      GREENLINE_SHUTDOWN_GRACE: '1',
    });
    running.push(server);
    const stalled = await stalledRequest(server);
    // The request is in flight (its headers arrived) when the signal comes.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await stop(server)).toEqual({ code: 0, signal: null });
    await stalled.closed;
    expect(server.stdout()).toContain('greenline: stopped');
  });
});
