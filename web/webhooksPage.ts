/**
 * The organization's outgoing webhooks (admin scope): its endpoints with a form to add one, a secret shown once when
 * made or rotated, and one endpoint's deliveries with each attempt's answer and a redeliver button. Forms post to
 * the dashboard's webhook routes (api/webhookPages.ts), which go through the API's router.
 */
import type { Engine } from '../engine/engine.js';
import { EVENT_TYPES } from '../engine/notifications/events.js';
import type { EndpointRecord, MessageRecord } from '../engine/notifications/records.js';
import { html, type Html } from './html.js';
import { queueName } from './queueAccess.js';

export const WEBHOOKS_PATH = '/webhooks';

export function endpointPath(id: string): string {
  return `${WEBHOOKS_PATH}/${encodeURIComponent(id)}`;
}

/** A Slack incoming webhook's URL is its secret: only its host is shown. */
function shownUrl(endpoint: EndpointRecord): string {
  if (endpoint.kind !== 'slack') return endpoint.url;
  try {
    return `${new URL(endpoint.url).origin}/…`;
  } catch {
    return '…';
  }
}

function secretBlock(secret: string | undefined): Html {
  if (secret === undefined) return html``;
  return html`<section class="notice" role="status"><h2>Signing secret</h2><p>Shown this once: store it with the receiver, which verifies each delivery with it (Standard Webhooks).</p><p><code>${secret}</code></p></section>`;
}

function endpointRow(endpoint: EndpointRecord): Html {
  const events = endpoint.eventTypes.length === 0 ? 'all events' : endpoint.eventTypes.join(', ');
  const queues =
    endpoint.queues.length === 0
      ? 'all queues'
      : endpoint.queues.map((q) => `${q.repo.owner}/${q.repo.name} → ${q.targetBranch}`).join(', ');
  const path = endpointPath(endpoint.id);
  return html`<tr>
<td><a href="${path}">${endpoint.description === '' ? endpoint.id : endpoint.description}</a></td>
<td>${endpoint.kind}</td><td class="wrap">${shownUrl(endpoint)}</td><td class="wrap">${events}</td><td class="wrap">${queues}</td>
<td>${endpoint.enabled ? 'enabled' : 'disabled'}</td>
<td><form method="post" action="${path}/enabled"><input type="hidden" name="enabled" value="${endpoint.enabled ? 'false' : 'true'}"><button>${endpoint.enabled ? 'Disable' : 'Enable'}</button></form>
<form method="post" action="${path}/rotate"><button>Rotate secret</button></form>
<form method="post" action="${path}/delete"><label><input type="checkbox" name="confirm" value="yes" required> sure</label> <button>Delete</button></form></td>
</tr>`;
}

function createForm(engine: Engine, org: string): Html {
  const queues = engine.listQueues(org);
  return html`<form method="post" action="${WEBHOOKS_PATH}" class="settings"><h2>Add an endpoint</h2>
<label>URL <input name="url" type="url" required maxlength="2048" placeholder="https://example.com/greenline"></label>
<label>Kind <select name="kind"><option value="webhook">Standard Webhooks (signed JSON)</option><option value="slack">Slack incoming webhook</option></select></label>
<label>Description <input name="description" maxlength="500"></label>
<fieldset><legend>Events (none ticked: all)</legend>${EVENT_TYPES.map((type) => html`<label><input type="checkbox" name="eventTypes" value="${type}"> ${type}</label> `)}</fieldset>
<fieldset><legend>Queues (none ticked: all, and flaky-test events)</legend>${queues.map((queue) => html`<label><input type="checkbox" name="queues" value="${queue.id}"> ${queueName(queue)}</label> `)}</fieldset>
<button>Add</button></form>`;
}

export function webhooksBody(engine: Engine, org: string, secret?: string): Html {
  const endpoints = engine.webhooks.list(org);
  const stats = engine.webhooks.stats(org).outcomes;
  const table =
    endpoints.length === 0
      ? html`<p>No endpoint yet: nobody is told of anything unless they look.</p>`
      : html`<div class="scroll" tabindex="0" role="region" aria-label="endpoints"><table><caption>Endpoints</caption><thead><tr><th scope="col">Endpoint</th><th scope="col">Kind</th><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Queues</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead><tbody>${endpoints.map(endpointRow)}</tbody></table></div>`;
  return html`<h1>Webhooks</h1>${secretBlock(secret)}
<p>Attempts so far: ${stats.delivered} delivered, ${stats.retried} to be retried, ${stats.failed} given up.</p>
${table}${createForm(engine, org)}`;
}

function attemptCell(message: MessageRecord): Html {
  const last = message.log.at(-1);
  if (last === undefined) return html`<td>not tried yet</td><td></td><td></td>`;
  return html`<td>${last.status ?? 'no answer'}${last.manual === true ? ' (redelivered)' : ''}</td><td class="wrap"><code>${last.excerpt}</code></td><td>${last.durationMs} ms</td>`;
}

export function deliveriesBody(engine: Engine, org: string, endpointId: string, before?: string): Html {
  const endpoint = engine.webhooks.get(org, endpointId);
  const page = engine.webhooks.messages(org, endpointId, { take: 50, ...(before === undefined ? {} : { before }) });
  const rows = page.messages.map(
    (
      message,
    ) => html`<tr><td>${message.id}</td><td>${message.type}</td><td>${message.pr ?? ''}</td><td>${message.status}</td><td>${message.attempts}</td>${attemptCell(message)}
<td><form method="post" action="${WEBHOOKS_PATH}/deliveries/${encodeURIComponent(message.id)}/redeliver"><button>Redeliver</button></form></td></tr>`,
  );
  const next =
    page.next === undefined
      ? html``
      : html`<p><a href="${endpointPath(endpointId)}?before=${encodeURIComponent(page.next)}">Older deliveries</a></p>`;
  return html`<h1>Deliveries to ${endpoint.description === '' ? endpoint.id : endpoint.description}</h1>
<p><a href="${WEBHOOKS_PATH}">All endpoints</a></p>
${
  page.messages.length === 0
    ? html`<p>No delivery yet.</p>`
    : html`<div class="scroll" tabindex="0" role="region" aria-label="deliveries"><table><caption>Newest first</caption><thead><tr><th scope="col">Delivery</th><th scope="col">Event</th><th scope="col">PR</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Body</th><th scope="col">Duration</th><th scope="col">Action</th></tr></thead><tbody>${rows}</tbody></table></div>`
}${next}`;
}
