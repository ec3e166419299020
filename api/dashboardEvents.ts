/**
 * The dashboard's live feed: one server-sent-event stream per open page, fed by the commits to every queue
 * (`engine.onCommit`: this process's inputs, and on PostgreSQL what every other process commits, which it hears by
 * LISTEN/NOTIFY), so a page shows a change whichever process behind the load balancer committed it. Changes are coalesced: a stream gets at most one `changed` event per
 * COALESCE_MS, naming the queues that changed since the last one, and only queues of its session's organization.
 *
 * A stream is never refused: a browser logs an EventSource answered with anything but 200 as an error. A session that
 * has ended (token revoked, time up, signed out) gets a `signed-out` event and the end of the stream instead, at once
 * when it asks without one, or at its next change or heartbeat; the page then stops listening (web/assets/dashboard.js).
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Engine } from '../engine/engine.js';

export const COALESCE_MS = 200;
const HEARTBEAT_MS = 25_000;

interface Client {
  org: string;
  /** The session's token and end: a stream outlives neither (checked at each event). */
  tokenId: string;
  expiresAt: number;
  response: ServerResponse;
  pending: Set<string>;
  timer: unknown;
}

/** How a stream's coalescing window is timed (tests pass their own, to close a window when they choose). */
export interface CoalesceTimer {
  start(flush: () => void, ms: number): unknown;
  stop(handle: unknown): void;
}

const REAL_TIMER: CoalesceTimer = {
  start: (flush, ms) => setTimeout(flush, ms),
  stop: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export class DashboardEvents {
  private readonly clients = new Set<Client>();
  private readonly orgOfQueue = new Map<string, string>();
  private readonly unsubscribe: () => void;
  private readonly heartbeat: NodeJS.Timeout;
  /** This process's feed (a restart starts another), and the changes it has seen (commits, what-ifs ended): its version. */
  private readonly epoch = randomUUID().slice(0, 8);
  private commits = 0;

  constructor(
    private readonly engine: Engine,
    private readonly timer: CoalesceTimer = REAL_TIMER,
  ) {
    this.unsubscribe = engine.onCommit((queueId) => this.changed(queueId));
    // A comment now and then keeps proxies from closing an idle stream, and finds streams whose reader is gone.
    this.heartbeat = setInterval(() => {
      for (const client of [...this.clients]) if (this.stillSignedIn(client)) client.response.write(': keep-alive\n\n');
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  get size(): number {
    return this.clients.size;
  }

  /** Where the feed is: a page made at another version has missed changes (commits, or a restart) when it connects. */
  get version(): string {
    return `${this.epoch}:${this.commits}`;
  }

  /**
   * Takes over a response as an event stream for a session's organization until the browser goes away, the service
   * closes, or the session ends (its token revoked, its time up): then it is told `signed-out` and closed, and so is
   * a reconnection without the session.
   */
  open(session: { org: string; tokenId: string; expiresAt: number }, response: ServerResponse): void {
    startStream(response);
    // Reconnect quickly after an interruption (a restart of the service); say where the feed is now.
    response.write('retry: 1000\n\n');
    response.write(`event: hello\ndata: ${JSON.stringify({ version: this.version })}\n\n`);
    const client: Client = {
      org: session.org,
      tokenId: session.tokenId,
      expiresAt: session.expiresAt,
      response,
      pending: new Set(),
      timer: undefined,
    };
    this.clients.add(client);
    response.on('close', () => this.drop(client));
  }

  private orgOf(queueId: string): string | undefined {
    let org = this.orgOfQueue.get(queueId);
    if (org === undefined) {
      org = this.engine.queueOrg(queueId);
      if (org !== undefined) this.orgOfQueue.set(queueId, org);
    }
    return org;
  }

  /** Something a queue's pages show changed outside the engine (a "what if" comparison ended): they redraw. */
  touch(queueId: string): void {
    this.changed(queueId);
  }

  private changed(queueId: string): void {
    this.commits++;
    if (this.clients.size === 0) return;
    const org = this.orgOf(queueId);
    for (const client of this.clients) {
      if (client.org !== org) continue;
      client.pending.add(queueId);
      client.timer ??= this.timer.start(() => this.flush(client), COALESCE_MS);
    }
  }

  /** Whether the client's session still stands; if not, it is told so and its stream ends. */
  private stillSignedIn(client: Client): boolean {
    const token = this.engine.token(client.tokenId);
    if (token !== undefined && token.org === client.org && client.expiresAt > Date.now()) return true;
    this.drop(client);
    client.response.end(SIGNED_OUT);
    return false;
  }

  private flush(client: Client): void {
    client.timer = undefined;
    if (!this.stillSignedIn(client)) return;
    const queues = [...client.pending];
    client.pending.clear();
    client.response.write(`event: changed\ndata: ${JSON.stringify({ queues, version: this.version })}\n\n`);
  }

  private drop(client: Client): void {
    if (client.timer !== undefined) this.timer.stop(client.timer);
    this.clients.delete(client);
  }

  /** A stream asked for without a valid session: answered (200), told `signed-out`, and ended. */
  signedOut(response: ServerResponse): void {
    startStream(response);
    response.end(SIGNED_OUT);
  }

  /** Ends every stream (the service is closing); the browsers reconnect to the next start. */
  close(): void {
    this.unsubscribe();
    clearInterval(this.heartbeat);
    for (const client of [...this.clients]) {
      this.drop(client);
      client.response.end();
    }
  }
}

/** The event that tells a page its session has ended: it stops listening and shows the sign-in page. */
const SIGNED_OUT = 'event: signed-out\ndata: {}\n\n';

function startStream(response: ServerResponse): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
}
