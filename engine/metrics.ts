/**
 * Prometheus metrics, rendered with prom-client into a registry made for one scrape, so that a scrape shows exactly
 * the queues its token may see.
 */
import { Gauge, Registry } from 'prom-client';
import type { QueueRecord } from './queues.js';

export interface RenderedMetrics {
  contentType: string;
  text: string;
}

export async function renderMetrics(queues: QueueRecord[]): Promise<RenderedMetrics> {
  const registry = new Registry();
  const info = new Gauge({
    name: 'greenline_queue_info',
    help: 'One series per queue, always 1, labelled with the queue state and mode.',
    labelNames: ['repo_host', 'repo', 'branch', 'state', 'mode'] as const,
    registers: [registry],
  });
  for (const queue of queues) {
    info.set(
      {
        repo_host: queue.repo.host,
        repo: `${queue.repo.owner}/${queue.repo.name}`,
        branch: queue.branch,
        state: queue.state,
        mode: queue.settings.mode,
      },
      1,
    );
  }
  return { contentType: registry.contentType, text: await registry.metrics() };
}
