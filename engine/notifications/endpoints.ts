/**
 * An organization's webhook endpoints: registered, changed, deleted, their secrets rotated. A secret is shown once
 * (when made); a rotated-out one keeps signing for ROTATION_OVERLAP_MS beside the new one. Endpoint writes keep
 * `webhookOrgs` (how many endpoints the organization has) in step, which queue transactions read to know whether to
 * note their events at all.
 */
import { randomBytes } from 'node:crypto';
import { type EngineError, engineError } from '../model/errors.js';
import type { Store, WriteTx } from '../store/store.js';
import { queueFilterKey, type EventType, type QueueRef } from './events.js';
import { NO_OUTCOMES, type EndpointKind, type EndpointRecord } from './records.js';
import { refusedUrl, type UrlPolicy } from './urlPolicy.js';

export const MAX_ENDPOINTS = 50;
/** How long a rotated-out secret still signs beside the new one: a day. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60_000;

export interface EndpointInput {
  kind?: EndpointKind;
  url: string;
  description?: string;
  eventTypes?: EventType[];
  queues?: QueueRef[];
  enabled?: boolean;
}

export type EndpointPatch = Partial<EndpointInput>;

/** Each queue once (a repository's host, owner and name compare without case, as the queue index's do). */
function distinctQueues(queues: QueueRef[]): QueueRef[] {
  const seen = new Map<string, QueueRef>();
  for (const queue of queues) {
    const ref = {
      repo: { host: queue.repo.host, owner: queue.repo.owner, name: queue.repo.name },
      targetBranch: queue.targetBranch,
    };
    if (!seen.has(queueFilterKey(ref))) seen.set(queueFilterKey(ref), ref);
  }
  return [...seen.values()];
}

export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

function checkUrl(url: string, policy: UrlPolicy): void {
  const refused = refusedUrl(url, policy);
  if (refused !== undefined) throw engineError('invalid_webhook_url', { refused });
}

function notFound(id: string): EngineError {
  return engineError('webhook_endpoint_not_found', { id });
}

export function requireEndpoint(tx: { get: WriteTx['get'] }, org: string, id: string): EndpointRecord {
  const endpoint = tx.get('webhookEndpoints', [org, id]);
  if (endpoint === undefined) throw notFound(id);
  return endpoint;
}

export function createEndpoint(
  store: Store,
  org: string,
  input: EndpointInput,
  now: number,
  policy: UrlPolicy,
): { endpoint: EndpointRecord; secret: string } {
  checkUrl(input.url, policy);
  const at = new Date(now).toISOString();
  const secret = newSecret();
  const endpoint: EndpointRecord = {
    id: `whe_${randomBytes(8).toString('hex')}`,
    org,
    kind: input.kind ?? 'webhook',
    url: input.url,
    description: input.description ?? '',
    eventTypes: [...new Set(input.eventTypes ?? [])],
    queues: distinctQueues(input.queues ?? []),
    enabled: input.enabled ?? true,
    secrets: [{ secret, createdAt: at }],
    nextSeq: 1,
    createdAt: at,
    updatedAt: at,
  };
  store.write((tx) => {
    const count = tx.count('webhookEndpoints', { prefix: [org] });
    if (count >= MAX_ENDPOINTS) throw engineError('too_many_webhook_endpoints', { max: MAX_ENDPOINTS });
    tx.put('webhookEndpoints', [org, endpoint.id], endpoint);
    setEndpointCount(tx, org, count + 1);
  });
  return { endpoint, secret };
}

export function listEndpoints(store: Store, org: string): EndpointRecord[] {
  return store.read((tx) => [...tx.scan('webhookEndpoints', { prefix: [org] })].map(({ value }) => value));
}

export function getEndpoint(store: Store, org: string, id: string): EndpointRecord {
  return store.read((tx) => requireEndpoint(tx, org, id));
}

export function updateEndpoint(
  store: Store,
  org: string,
  id: string,
  patch: EndpointPatch,
  now: number,
  policy: UrlPolicy,
): EndpointRecord {
  if (patch.url !== undefined) checkUrl(patch.url, policy);
  return store.write((tx) => {
    const endpoint = { ...requireEndpoint(tx, org, id), updatedAt: new Date(now).toISOString() };
    if (patch.kind !== undefined) endpoint.kind = patch.kind;
    if (patch.url !== undefined) endpoint.url = patch.url;
    if (patch.description !== undefined) endpoint.description = patch.description;
    if (patch.eventTypes !== undefined) endpoint.eventTypes = [...new Set(patch.eventTypes)];
    if (patch.queues !== undefined) endpoint.queues = distinctQueues(patch.queues);
    if (patch.enabled !== undefined) endpoint.enabled = patch.enabled;
    tx.put('webhookEndpoints', [org, id], endpoint);
    return endpoint;
  });
}

/** A new secret, shown once; the old one signs beside it for ROTATION_OVERLAP_MS, older ones stop. */
export function rotateSecret(
  store: Store,
  org: string,
  id: string,
  now: number,
): { endpoint: EndpointRecord; secret: string } {
  const secret = newSecret();
  const at = new Date(now).toISOString();
  const endpoint = store.write((tx) => {
    const current = requireEndpoint(tx, org, id);
    const [previous] = current.secrets;
    const kept =
      previous === undefined
        ? []
        : [
            {
              secret: previous.secret,
              createdAt: previous.createdAt,
              expiresAt: new Date(now + ROTATION_OVERLAP_MS).toISOString(),
            },
          ];
    const rotated = { ...current, secrets: [{ secret, createdAt: at }, ...kept], updatedAt: at };
    tx.put('webhookEndpoints', [org, id], rotated);
    return rotated;
  });
  return { endpoint, secret };
}

/** Deletes the endpoint with its messages (none of them is sent any more). */
export function deleteEndpoint(store: Store, org: string, id: string): void {
  store.write((tx) => {
    requireEndpoint(tx, org, id);
    tx.remove('webhookEndpoints', [org, id]);
    for (const { key } of [...tx.scan('webhookPending', { prefix: [id] })]) tx.remove('webhookPending', key);
    for (const { key } of [...tx.scan('webhookMessages', { prefix: [org, id] })]) tx.remove('webhookMessages', key);
    setEndpointCount(tx, org, tx.count('webhookEndpoints', { prefix: [org] }));
  });
}

/** Keeps the organization's endpoint count (its outcome counts stay for the metrics). */
function setEndpointCount(tx: WriteTx, org: string, endpoints: number): void {
  const current = tx.get('webhookOrgs', [org]);
  tx.put('webhookOrgs', [org], { endpoints, outcomes: current?.outcomes ?? { ...NO_OUTCOMES } });
}

/** The secrets that sign now: the current one and rotated-out ones not yet expired. */
export function signingSecrets(endpoint: EndpointRecord, now: number): string[] {
  return endpoint.secrets
    .filter((s) => s.expiresAt === undefined || Date.parse(s.expiresAt) > now)
    .map((s) => s.secret);
}
