/**
 * Renders a snapshot through prom-client, into a registry made for one scrape, so that a scrape shows exactly the
 * queues its token may see and nothing is kept between scrapes.
 *
 * The documented `mq_*` series carry exactly the documented labels (repo, branch, queue_type): two queues of one
 * organization for the same owner/name and branch on two hosts add up in them (filter with repoHost to tell them
 * apart); the `greenline_*` series carry repo_host as well. Every queue shows every `mq_*` series of both queue
 * types, at 0 when nothing happened, so dashboards see a stable set of series.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { FAMILIES, type Family } from './families.js';
import type { MetricsSnapshot, QueueSample } from './collect.js';
import { CONCLUSIONS, QUEUE_TYPES, RESCUES, RUN_ENDINGS, type QueueType } from './records.js';
import { StoredHistogram } from './storedHistogram.js';

export interface RenderedMetrics {
  contentType: string;
  text: string;
}

type Labels = Record<string, string>;

function registryFor() {
  const registry = new Registry();
  const options = (f: Family) => ({ name: f.name, help: f.help, labelNames: [...f.labels], registers: [registry] });
  const gauge = (f: Family) => new Gauge(options(f));
  const counter = (f: Family) => new Counter(options(f));
  const histogram = (f: Family) => new Histogram({ ...options(f), buckets: [...(f.buckets ?? [])] });
  const stored = (f: Family) => new StoredHistogram(f, registry);
  const m = {
    depth: gauge(FAMILIES.depth),
    awaitingMergeability: gauge(FAMILIES.awaitingMergeability),
    testingSlots: gauge(FAMILIES.testingSlots),
    conclusions1h: gauge(FAMILIES.conclusions1h),
    restarts1h: gauge(FAMILIES.restarts1h),
    wait1h: histogram(FAMILIES.wait1h),
    test1h: histogram(FAMILIES.test1h),
    timeInQueue1h: histogram(FAMILIES.timeInQueue1h),
    queueInfo: gauge(FAMILIES.queueInfo),
    runsStarted: counter(FAMILIES.runsStarted),
    runsFinished: counter(FAMILIES.runsFinished),
    runSeconds: counter(FAMILIES.runSeconds),
    bisections: counter(FAMILIES.bisections),
    conclusions: counter(FAMILIES.conclusions),
    restarts: counter(FAMILIES.restarts),
    optimisticMerges: counter(FAMILIES.optimisticMerges),
    directMerges: counter(FAMILIES.directMerges),
    rescues: counter(FAMILIES.rescues),
    quarantinedFailures: counter(FAMILIES.quarantinedFailures),
    wait: stored(FAMILIES.wait),
    test: stored(FAMILIES.test),
    timeInQueue: stored(FAMILIES.timeInQueue),
    batchSize: stored(FAMILIES.batchSize),
    runsPerMerge1h: gauge(FAMILIES.runsPerMerge1h),
    secondsPerMerge1h: gauge(FAMILIES.secondsPerMerge1h),
    batchSize1h: histogram(FAMILIES.batchSize1h),
    events: counter(FAMILIES.events),
    eventLag: gauge(FAMILIES.eventLag),
    outboxEffects: gauge(FAMILIES.outboxEffects),
    actors: gauge(FAMILIES.actors),
    webhookDeliveries: counter(FAMILIES.webhookDeliveries),
    webhookPending: gauge(FAMILIES.webhookPending),
    storeSize: gauge(FAMILIES.storeSize),
  } satisfies Record<keyof typeof FAMILIES, Gauge | Counter | Histogram | StoredHistogram>;
  return { registry, m };
}

type Metrics = ReturnType<typeof registryFor>['m'];

const mqLabels = (sample: QueueSample, type: QueueType): Labels => ({
  repo: `${sample.queue.repo.owner}/${sample.queue.repo.name}`,
  branch: sample.queue.branch,
  queue_type: type,
});

const queueLabels = (sample: QueueSample): Labels => ({
  repo_host: sample.queue.repo.host,
  repo: `${sample.queue.repo.owner}/${sample.queue.repo.name}`,
  branch: sample.queue.branch,
});

/** Every documented series of the queue, at 0 (histograms: empty). */
function zeroDocumented(m: Metrics, sample: QueueSample): void {
  for (const type of QUEUE_TYPES) {
    const labels = mqLabels(sample, type);
    for (const gauge of [m.depth, m.awaitingMergeability, m.testingSlots, m.restarts1h]) gauge.inc(labels, 0);
    for (const conclusion of CONCLUSIONS) m.conclusions1h.inc({ ...labels, conclusion }, 0);
    for (const histogram of [m.wait1h, m.test1h, m.timeInQueue1h]) histogram.zero(labels);
  }
}

function addQueue(m: Metrics, sample: QueueSample, now: number): void {
  const queue = queueLabels(sample);
  const { totals } = sample;
  for (const type of QUEUE_TYPES) {
    const labels = mqLabels(sample, type);
    m.depth.inc(labels, sample.depth[type]);
    m.awaitingMergeability.inc(labels, sample.awaitingMergeability[type]);
    m.testingSlots.inc(labels, sample.testing[type]);
    m.batchSize1h.zero({ ...queue, queue_type: type });

    const typed = { ...queue, queue_type: type };
    m.runsStarted.inc(typed, totals.runsStarted[type]);
    for (const status of RUN_ENDINGS) {
      m.runsFinished.inc({ ...typed, status }, totals.runsFinished[type][status]);
      m.runSeconds.inc({ ...typed, status }, totals.runMs[type][status] / 1000);
    }
    for (const conclusion of CONCLUSIONS)
      m.conclusions.inc({ ...typed, conclusion }, totals.conclusions[type][conclusion]);
    m.restarts.inc(typed, totals.restarts[type]);
    m.quarantinedFailures.inc(typed, totals.quarantinedFailures[type]);
    const histograms = totals.histograms[type];
    m.wait.add(typed, histograms.waitSeconds);
    m.test.add(typed, histograms.testSeconds);
    m.timeInQueue.add(typed, histograms.timeInQueueSeconds);
    m.batchSize.add(typed, histograms.batchSize);
  }
  m.bisections.inc(queue, totals.bisections);
  m.optimisticMerges.inc(queue, totals.optimisticMerges);
  m.directMerges.inc(queue, totals.directMerges);
  for (const outcome of RESCUES) m.rescues.inc({ ...queue, outcome }, totals.rescues[outcome]);

  // The window: counts added up here, histogram observations one by one.
  const documented = { main: mqLabels(sample, 'main'), bisection: mqLabels(sample, 'bisection') };
  const typed = { main: { ...queue, queue_type: 'main' }, bisection: { ...queue, queue_type: 'bisection' } };
  const concluded = { main: { merged: 0, failed: 0, cancelled: 0 }, bisection: { merged: 0, failed: 0, cancelled: 0 } };
  const restarted = { main: 0, bisection: 0 };
  let runsFinished = 0;
  let runMs = 0;
  for (const entry of sample.window) {
    const labels = documented[entry.type];
    switch (entry.kind) {
      case 'concluded':
        concluded[entry.type][entry.conclusion]++;
        if (entry.inQueueMs !== null) m.timeInQueue1h.observe(labels, entry.inQueueMs / 1000);
        if (entry.testMs !== null) m.test1h.observe(labels, entry.testMs / 1000);
        break;
      case 'waited':
        m.wait1h.observe(labels, entry.waitMs / 1000);
        break;
      case 'restarted':
        restarted[entry.type]++;
        break;
      case 'runStarted':
        m.batchSize1h.observe(typed[entry.type], entry.size);
        break;
      case 'runFinished':
        runsFinished++;
        runMs += entry.runMs;
        break;
    }
  }
  for (const type of QUEUE_TYPES) {
    m.restarts1h.inc(documented[type], restarted[type]);
    for (const conclusion of CONCLUSIONS)
      m.conclusions1h.inc({ ...documented[type], conclusion }, concluded[type][conclusion]);
  }
  const merged = concluded.main.merged + concluded.bisection.merged;
  if (merged > 0) {
    m.runsPerMerge1h.set(queue, runsFinished / merged);
    m.secondsPerMerge1h.set(queue, runMs / 1000 / merged);
  }

  m.queueInfo.set({ ...queue, state: sample.queue.state, mode: sample.queue.settings.mode }, 1);
  m.events.inc(queue, sample.queue.runtime.counters.event);
  m.outboxEffects.set(queue, sample.outboxEffects);
  if (sample.outboxEffects === 0) m.eventLag.set(queue, 0);
  else if (sample.oldestEffectAt !== null) m.eventLag.set(queue, Math.max(0, now - sample.oldestEffectAt) / 1000);
  m.actors.set({ ...queue, kind: 'pull_request' }, sample.enqueued);
  m.actors.set({ ...queue, kind: 'test_run' }, sample.activeRuns);
}

export async function renderSnapshot(snapshot: MetricsSnapshot): Promise<RenderedMetrics> {
  const { registry, m } = registryFor();
  // Zero every documented series first: queues that share documented labels (same owner/name on two hosts) add up.
  for (const sample of snapshot.queues) zeroDocumented(m, sample);
  for (const sample of snapshot.queues) addQueue(m, sample, snapshot.now);
  m.storeSize.set(snapshot.storeSizeBytes);
  for (const [outcome, count] of Object.entries(snapshot.webhooks.outcomes))
    m.webhookDeliveries.inc({ outcome }, count);
  m.webhookPending.set(snapshot.webhooks.pending);
  return { contentType: registry.contentType, text: await registry.metrics() };
}
