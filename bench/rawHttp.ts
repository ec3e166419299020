/**
 * A raw HTTP/1.1 client over a socket: the request line and headers go out exactly as written (an absolute-form
 * target, `%2e%2e`, a NUL escape: nothing normalises them on the way), and every response comes back, interim
 * ones (`100 Continue`) included. For the path tests, the fuzzers and the `Expect: 100-continue` tests.
 */
import net from 'node:net';

export interface RawResponse {
  /** Every status line's code, in order: `[100, 413]` for an interim then a final answer. */
  statuses: number[];
  /** The final answer's status (0 when none came), headers (lower-case names) and body. */
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The socket ended with an error (ECONNRESET…) before or after the answer. */
  error?: string;
}

/** Parses what came back on a connection: interim answers, then the final one (its body to the end). */
export function parseResponses(data: Buffer): Omit<RawResponse, 'error'> {
  const text = data.toString('latin1');
  const statuses: number[] = [];
  let at = 0;
  for (;;) {
    const end = text.indexOf('\r\n\r\n', at);
    if (end === -1) return { statuses, status: 0, headers: {}, body: '' };
    const [statusLine = '', ...lines] = text.slice(at, end).split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
    statuses.push(status);
    at = end + 4;
    if (status >= 100 && status < 200) continue;
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let body = Buffer.from(text.slice(at), 'latin1');
    if (headers['transfer-encoding'] === 'chunked') {
      const parts: Buffer[] = [];
      for (let offset = 0; ; ) {
        const lineEnd = body.indexOf('\r\n', offset);
        const size = lineEnd === -1 ? 0 : Number.parseInt(body.subarray(offset, lineEnd).toString('latin1'), 16);
        if (!(size > 0)) break;
        parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
        offset = lineEnd + 2 + size + 2;
      }
      body = Buffer.concat(parts);
    } else if (headers['content-length'] !== undefined) {
      body = body.subarray(0, Number(headers['content-length']));
    }
    return { statuses, status, headers, body: body.toString('utf8') };
  }
}

/**
 * Sends `head` (request line and headers, without the blank line) then `body`, and reads until the server closes
 * (send `Connection: close`) or `timeoutMs` passes.
 */
export function rawRequest(
  port: number,
  head: string,
  body: string | Buffer = '',
  timeoutMs = 10_000,
): Promise<RawResponse> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let error: string | undefined;
    const finish = () => {
      clearTimeout(timer);
      resolve({ ...parseResponses(Buffer.concat(chunks)), ...(error === undefined ? {} : { error }) });
    };
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error = err.code ?? err.message;
    });
    socket.on('close', finish);
    socket.write(`${head}\r\n\r\n`);
    if (body.length > 0) socket.write(body);
  });
}
