/**
 * Prometheus metrics (GET /v1/getMergeQueueMetrics): the documented `mq_*` families and Greenline's `greenline_*`
 * families, for the queues of one organization, rendered with prom-client per scrape. The engine records what they
 * need in each queue transaction (recorder.ts); a scrape reads it (collect.ts) and renders it (render.ts). Every
 * family is listed in families.ts and explained in docs/metrics.md.
 */
import type { Store } from '../store/store.js';
import { collectMetrics, type MetricsFilter } from './collect.js';
import { renderSnapshot, type RenderedMetrics } from './render.js';
import { sharedRender } from './sharedScrapes.js';

export type { MetricsFilter, MetricsSnapshot, QueueSample } from './collect.js';
export { collectMetrics } from './collect.js';
export { FAMILIES, FAMILY_LIST, DURATION_BUCKETS, BATCH_SIZE_BUCKETS } from './families.js';
export type { RenderedMetrics } from './render.js';
export { renderSnapshot } from './render.js';
export { WINDOW_MS } from './records.js';

import type { QueueRecord } from '../model/queues.js';
import type { WorkingSet } from '../runtime/workingSet.js';

export interface MetricsRequest {
  store: Store;
  /** The organization whose queues are shown; no other organization's queue ever is. */
  org: string;
  filter?: MetricsFilter;
  /** The engine's clock (ms): the one-hour windows end here. */
  now: number;
  /** A queue's working set when it is current: its PRs, runs and totals are read there instead of parsed again. */
  workingSet?: (queue: QueueRecord) => WorkingSet | undefined;
}

/** One scrape: collected and rendered together with the same scrapes that arrive in the same turn (sharedScrapes.ts). */
export function renderMetrics(request: MetricsRequest): Promise<RenderedMetrics> {
  return sharedRender(request, async (shared) =>
    renderSnapshot(collectMetrics(shared.store, shared.org, shared.filter ?? {}, shared.now, shared.workingSet)),
  );
}
