/**
 * The queue settings form (updateQueue) and the reading of what it posts. The form posts every setting; what it
 * posts becomes an updateQueue body, which the API's own schema then validates (so the form refuses exactly what the
 * API refuses, with the same messages).
 */
import {
  DIRECT_MERGE_MODES,
  MERGE_METHODS,
  OPTIMIZATION_MODES,
  PARALLEL_BASES,
  type QueueRecord,
} from '../engine/model/queues.js';
import { QUEUE_MODES } from '../machines/vocabulary.js';
import { html, type Html } from './html.js';
import { queuePath } from './queueAccess.js';

const NUMBERS = [
  'concurrency',
  'bisectionConcurrency',
  'testingTimeoutMinutes',
  'pendingFailureDepth',
  'batchingMaxWaitTimeMinutes',
  'batchingMinSize',
  'batchingMaxSize',
  'adaptiveWindowFloor',
  'speculationRunsPercent',
] as const;
const BOOLEANS = [
  'batch',
  'canOptimisticallyMerge',
  'createPrsForTestingBranches',
  'commentsEnabled',
  'commandsEnabled',
  'statusCheckEnabled',
  'adaptiveWindow',
] as const;
const CHOICES = {
  mode: QUEUE_MODES,
  directMergeMode: DIRECT_MERGE_MODES,
  optimizationMode: OPTIMIZATION_MODES,
  mergeMethod: MERGE_METHODS,
  parallelBases: PARALLEL_BASES,
} as const;

/** The updateQueue fields a form posts (without the queue's identity). A number field left empty is not changed. */
export function settingsFromForm(form: URLSearchParams, queue: QueueRecord): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const last = (name: string) => form.getAll(name).at(-1);
  for (const name of NUMBERS) {
    const text = last(name)?.trim();
    if (text === undefined || text === '') continue;
    // Digits become a number; anything else is passed on for the schema to refuse by name.
    body[name] = /^\d+$/.test(text) ? Number(text) : text;
  }
  for (const name of BOOLEANS) {
    const value = last(name);
    // Anything but true or false is passed on for the schema to refuse by name.
    if (value !== undefined) body[name] = value === 'true' ? true : value === 'false' ? false : value;
  }
  for (const name of Object.keys(CHOICES)) {
    const value = last(name);
    if (value !== undefined && value !== '') body[name] = value;
  }
  const statuses = last('requiredStatuses');
  if (statuses !== undefined) {
    const list = statuses
      .split(',')
      .map((status) => status.trim())
      .filter((status) => status !== '');
    if (list.length > 0) body.requiredStatuses = list;
    else if (queue.requiredStatuses !== null) body.deleteRequiredStatuses = true;
  }
  return body;
}

function numberField(queue: QueueRecord, name: (typeof NUMBERS)[number], label: string): Html {
  // Bisection concurrency follows concurrency until set, the largest batch is the minimum until set, and a
  // pending failure depth of 0 is off (the API takes 1 and up): left empty, each stays as it is.
  const value =
    name === 'bisectionConcurrency' || name === 'batchingMaxSize'
      ? (queue.settings[name] ?? '')
      : name === 'pendingFailureDepth' && queue.settings[name] === 0
        ? ''
        : (queue.settings[name] ?? '');
  const hint =
    name === 'bisectionConcurrency'
      ? html` placeholder="follows concurrency"`
      : name === 'pendingFailureDepth'
        ? html` placeholder="off"`
        : name === 'batchingMaxSize'
          ? html` placeholder="the minimum size"`
          : '';
  return html`<label>${label}<input name="${name}" inputmode="numeric" value="${value}"${hint}></label>`;
}

function booleanField(queue: QueueRecord, name: (typeof BOOLEANS)[number], label: string): Html {
  const on = queue.settings[name] === true;
  return html`<label>${label}<select name="${name}"><option value="true"${on ? html` selected` : ''}>on</option><option value="false"${on ? '' : html` selected`}>off</option></select></label>`;
}

function choiceField(queue: QueueRecord, name: keyof typeof CHOICES, label: string): Html {
  const current = queue.settings[name] ?? (name === 'parallelBases' ? 'transitive' : undefined);
  return html`<label>${label}<select name="${name}">${CHOICES[name].map((option) => html`<option${option === current ? html` selected` : ''}>${option}</option>`)}</select></label>`;
}

export function settingsForm(queue: QueueRecord): Html {
  return html`<details class="settings"><summary>Settings (updateQueue)</summary>
<form method="post" action="${queuePath(queue)}/settings" class="settings-form"><div class="settings-grid">
${choiceField(queue, 'mode', 'Mode')}${choiceField(queue, 'parallelBases', 'Parallel bases')}${numberField(queue, 'concurrency', 'Concurrency')}${numberField(queue, 'bisectionConcurrency', 'Bisection concurrency')}
${numberField(queue, 'testingTimeoutMinutes', 'Testing timeout (minutes)')}${numberField(queue, 'pendingFailureDepth', 'Pending failure depth')}
${numberField(queue, 'batchingMinSize', 'Batching minimum size')}${numberField(queue, 'batchingMaxSize', 'Batching maximum size')}${numberField(queue, 'batchingMaxWaitTimeMinutes', 'Batching max wait (minutes)')}
${choiceField(queue, 'directMergeMode', 'Direct merge')}${choiceField(queue, 'optimizationMode', 'Optimization')}${choiceField(queue, 'mergeMethod', 'Merge method')}
<label>Required statuses (comma-separated)<input name="requiredStatuses" value="${(queue.requiredStatuses ?? []).join(', ')}"></label>
${booleanField(queue, 'batch', 'Batch')}${booleanField(queue, 'canOptimisticallyMerge', 'Optimistic merge')}${booleanField(queue, 'createPrsForTestingBranches', 'PRs for testing branches')}
${booleanField(queue, 'commentsEnabled', 'Comments')}${booleanField(queue, 'commandsEnabled', 'Commands')}${booleanField(queue, 'statusCheckEnabled', 'Status check')}
${booleanField(queue, 'adaptiveWindow', 'Adaptive window')}${numberField(queue, 'adaptiveWindowFloor', 'Adaptive window floor')}${numberField(queue, 'speculationRunsPercent', 'Speculation budget (% of PRs)')}
</div><p><button type="submit" class="primary">Save settings</button></p></form></details>`;
}
