/**
 * A webhook receiver on loopback, as a customer would write one: it verifies each delivery with the Standard
 * Webhooks library (the endpoint's secret, the `webhook-id`, `webhook-timestamp` and `webhook-signature` headers),
 * dedupes by `webhook-id` (deliveries are at least once), and keeps the events it accepted in arrival order. It can
 * be taken down (the port closed: connections refused) and brought up again on the same port, answer an error
 * status, or hold requests unanswered.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  id: string;
  type: string;
  data: { pr?: { number: number; reason: string | null; state: string }; state?: string; queue?: unknown };
  timestamp: string;
}

export class Receiver {
  private server: Server | undefined;
  port = 0;
  secret = '';
  /** Events accepted, deduped by webhook-id, in arrival order. */
  readonly events: Received[] = [];
  /** Every request that arrived, duplicates and refusals included. */
  readonly arrivals: { id: string; verified: boolean; body: string }[] = [];
  status = 200;
  /** While set, requests are held unanswered; `onHeld` is told of each one. */
  hold = false;
  onHeld: (() => void) | undefined;
  private readonly held: ServerResponse[] = [];

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  /** Requests held and still open (their sender has not given up on them). */
  get waiting(): number {
    return this.held.length;
  }

  get duplicates(): number {
    return this.arrivals.filter((a) => a.verified).length - this.events.length;
  }

  async up(): Promise<void> {
    const server = createServer((request, response) => void this.take(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Closes the port: deliveries meet a refused connection. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const response of [...this.held]) response.destroy();
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async take(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const id = String(request.headers['webhook-id'] ?? '');
    let verified = false;
    let event: Received | undefined;
    try {
      const parsed = new Webhook(this.secret).verify(body, request.headers as Record<string, string>) as Omit<
        Received,
        'id'
      >;
      event = { id, ...parsed };
      verified = true;
    } catch {
      verified = false;
    }
    this.arrivals.push({ id, verified, body });
    if (!verified) {
      response.writeHead(401).end('bad signature');
      return;
    }
    if (this.hold) {
      this.held.push(response);
      response.on('close', () => this.held.splice(this.held.indexOf(response), 1));
      this.onHeld?.();
      return;
    }
    if (this.status >= 200 && this.status < 300 && event !== undefined && !this.events.some((seen) => seen.id === id))
      this.events.push(event);
    response
      .writeHead(this.status, { 'content-type': 'text/plain' })
      .end(this.status < 300 ? 'ok' : 'receiver says no');
  }

  /** The event types each PR received, in arrival order. */
  byPr(): Map<number, string[]> {
    const map = new Map<number, string[]>();
    for (const event of this.events) {
      const number = event.data.pr?.number;
      if (number === undefined) continue;
      map.set(number, [...(map.get(number) ?? []), event.type.replace('pull_request.', '')]);
    }
    return map;
  }
}
