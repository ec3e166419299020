/**
 * The test's page, where every listing's `html_url` points: `GET /tests/<id>`. A browser cannot send the
 * `x-api-token` header on a link, so the page itself holds no data: it asks for a token once (kept in the tab's
 * sessionStorage), fetches `POST /v1/flaky-tests/get-test` with it, and draws what it gets with textContent only.
 */
const STYLE = `
body { font: 15px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; color: #1f2328; }
h1 { font-size: 1.4rem; word-break: break-all; } dt { font-weight: 600; } dd { margin: 0 0 .5rem 0; }
.status { display: inline-block; padding: 0 .5rem; border-radius: 1rem; background: #eee; text-transform: uppercase; }
.flaky { background: #fff1c2; } .broken { background: #ffd7d5; } .healthy { background: #d3f5d9; }
table { border-collapse: collapse; width: 100%; } td, th { border-bottom: 1px solid #ddd; padding: .25rem .5rem; text-align: left; }
form { display: none; } .error { color: #b42318; }`;

const SCRIPT = `
const id = location.pathname.split('/').filter(Boolean).pop();
const form = document.querySelector('form'), out = document.querySelector('main');
const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = String(text); if (cls) e.className = cls; return e; };
async function load() {
  const token = sessionStorage.getItem('greenline-token');
  if (!token) { form.style.display = 'block'; return; }
  const response = await fetch('/v1/flaky-tests/get-test', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-token': token }, body: JSON.stringify({ test_id: id }) });
  const body = await response.json();
  if (response.status === 401) { sessionStorage.removeItem('greenline-token'); form.style.display = 'block'; }
  if (!response.ok) { out.replaceChildren(el('p', body.error?.message ?? response.statusText, 'error')); return; }
  form.style.display = 'none';
  const dl = el('dl');
  const row = (term, value) => { dl.append(el('dt', term), el('dd', value === '' ? '—' : value)); };
  const status = el('span', body.status.value, 'status ' + body.status.value);
  row('Repository', body.repository.host + '/' + body.repository.owner + '/' + body.repository.name);
  row('File', body.file_path); row('Class', body.classname); row('Suite', body.parent); row('Variant', body.variant);
  row('Status reason', body.status.reason + ' (since ' + body.status.timestamp + ')');
  row('Quarantined', body.quarantined ? 'yes (' + body.quarantine_setting + ')' : 'no');
  row('Failure rate', (100 * body.failure_rate_last_24h).toFixed(1) + '% last 24 h, ' + (100 * body.failure_rate_last_7d).toFixed(1) + '% last 7 days');
  row('Pull requests impacted, last 7 days', body.pull_requests_impacted_last_7d);
  row('Code owners', body.codeowners.join(', '));
  const table = el('table');
  table.append(el('tr')); table.rows[0].append(el('th', 'Most common failures'), el('th', 'Count'), el('th', 'Last'));
  for (const failure of body.most_common_failures) { const tr = el('tr'); tr.append(el('td', failure.summary), el('td', failure.occurrence_count), el('td', failure.last_occurrence)); table.append(tr); }
  const heading = el('h1', body.name + ' '); heading.append(status);
  out.replaceChildren(heading, dl, table);
}
form.addEventListener('submit', (event) => { event.preventDefault(); sessionStorage.setItem('greenline-token', form.token.value); load(); });
load();`;

export const TEST_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Test — Greenline</title><style>${STYLE}</style></head>
<body><form><label>API token <input name="token" type="password" autocomplete="off" required></label> <button>Show</button></form>
<main><p>Loading…</p></main><script>${SCRIPT}</script></body></html>
`;
