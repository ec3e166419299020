/**
 * What a git host declares to plug in (one folder each: hosts/<host>/host.ts, listed once in hosts/index.ts):
 * its configuration (the environment variables it reads, their help text and their zod validation), what it makes
 * of them, its inbound routes (webhooks), and its factory. The command line, the HTTP server and the engine name
 * no host: they ask the registry for the one GREENLINE_PROVIDER chose.
 */
import type { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import type { ErrorCode } from '../engine/model/errors.js';
import type { Scheduler } from '../engine/runtime/scheduler.js';
import type { CI, CiLogSource, GitHost } from '../engine/providers/types.js';

/** A request to an inbound route, its body as the sender sent it (a signature may be over the raw bytes). */
export interface InboundRequest {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** The answer: a refusal names its code of the error catalogue (engine/model/errors.ts), and is answered in its shape. */
export interface InboundAnswer {
  status: number;
  message: string;
  refusal?: ErrorCode;
}

/** A route a host receives on (a webhook): POST, no token (the host checks what it receives), the body as text. */
export interface InboundRoute {
  method: 'POST';
  path: string;
  handle(request: InboundRequest): Promise<InboundAnswer>;
}

/** What every host is opened with: the service's data folder, its clock, where people reach it, the CI asked for. */
export interface HostContext {
  dataDir: string;
  scheduler: Scheduler;
  publicUrl: () => string | undefined;
  /** The synthetic CI (GREENLINE_SIM_CI), when it is on: a host with a CI of its own leaves it be. */
  simCi: CI | undefined;
}

/** A host once connected to the engine: its inbound routes, and what runs in the background beside them. */
export interface ConnectedHost {
  routes: InboundRoute[];
  /** After the engine started: e.g. deliveries accepted before a stop are applied now. */
  start(): void;
  /** Before the engine stops. */
  stop(): void;
}

/** A host opened with its configuration: the git host, a CI of its own (and its logs), what it says at the start. */
export interface OpenHost {
  gitHost: GitHost;
  ci?: CI;
  ciLogs?: CiLogSource & { setPublicUrl(url: string): void };
  /** What the start line says of it ("repositories in …", "GitHub App … webhooks at …"), and of its CI. */
  where: string;
  /** Said once at the start (a secret readable by others, …). */
  warnings: string[];
  connect(engine: Engine, onError?: (message: string, error: unknown) => void): ConnectedHost;
  /** After the engine stopped: what it still runs ends. */
  close(): Promise<void>;
}

export interface HostPlugin<Settings extends object = object> {
  /** Its GREENLINE_PROVIDER value. */
  name: string;
  /** What GREENLINE_PROVIDER's help says of it. */
  summary: string;
  /** The environment variables it reads, with their help text, in the order `--help` lists them. */
  environment: Record<string, string>;
  /**
   * Their validation (zod, handed in by the caller, so that `--help` loads neither zod nor the engine), each optional:
   * checked at every start, whichever host is chosen.
   */
  schema(zod: typeof z): z.ZodRawShape;
  /** A paragraph of `--help` about it, if any. */
  help?: string;
  /**
   * Variables that mean nothing without this host, with why: set while another host is chosen, they stop the start.
   */
  onlyWith?: Record<string, string>;
  /**
   * Its settings from the checked variables (it is the chosen host); an Error's message says what is wrong. `simCi`:
   * the synthetic CI is on. The settings become fields of the service's configuration.
   */
  configure(values: Record<string, unknown>, common: { simCi: boolean }): Settings;
  /** Checks made before anything starts (a tool it needs); an Error's message is the whole story. */
  preflight?(settings: Settings): Promise<void>;
  open(settings: Settings, context: HostContext): Promise<OpenHost>;
}

/** A host declared in its own module: the type of its settings kept, for the registry's type of them. */
export function defineHost<Settings extends object>(plugin: HostPlugin<Settings>): HostPlugin<Settings> {
  return plugin;
}

/** Connected hosts with nothing inbound and nothing in the background. */
export const NOTHING_INBOUND: ConnectedHost = { routes: [], start: () => {}, stop: () => {} };
