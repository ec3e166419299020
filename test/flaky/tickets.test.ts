/** get-test-details and link-ticket-to-test-case (the hosted service's endpoints), and `ticket` in the listings. */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { expectErrorBody, makeApi, TOKENS, type Api } from '../api/harness.js';
import { DAY, listBody, REPO, uploadBody } from './helpers.js';

let api: Api;
let id: string;
beforeEach(async () => {
  api = await makeApi();
  expect(
    (await api.post('flaky-tests/upload', uploadBody([{ name: 'shaky', outcome: 'failed', file: 'src/a.test.ts' }])))
      .statusCode,
  ).toBe(200);
  const listed = await api.post('flaky-tests/list-failing-tests', window());
  id = (listed.json() as { tests: { id: string }[] }).tests[0]!.id;
});
afterEach(async () => {
  await api.close();
});

const NOW = Date.parse('2026-11-22T12:00:00.000Z');
function window() {
  return listBody({ start_time: new Date(NOW - DAY).toISOString(), end_time: new Date(NOW + DAY).toISOString() });
}
const rows = async (path: string, body: unknown) =>
  (await api.post(path, body)).json() as { tests: Record<string, unknown>[] };
const failingRow = async () => (await rows('flaky-tests/list-failing-tests', window())).tests[0]!;

describe('flaky-tests/get-test-details', () => {
  test('answers the test inside {test: …}', async () => {
    const response = await api.post('flaky-tests/get-test-details', { repo: REPO, org_url_slug: 'acme', test_id: id });
    expect(response.statusCode).toBe(200);
    const body = response.json() as { test: Record<string, unknown> };
    expect(Object.keys(body)).toEqual(['test']);
    expect(body.test).toMatchObject({ id, name: 'shaky', file_path: 'src/a.test.ts', quarantined: false });
    expect(body.test).not.toHaveProperty('ticket');
  });

  test('404 for another repository, another organization or an unknown test; 400 for a bad id', async () => {
    const other = { ...REPO, name: 'gadgets' };
    expectErrorBody(
      await api.post('flaky-tests/get-test-details', { repo: other, org_url_slug: 'acme', test_id: id }),
      404,
      'not_found',
    );
    expectErrorBody(
      await api.post('flaky-tests/get-test-details', { repo: REPO, test_id: id }, TOKENS.globex),
      404,
      'not_found',
    );
    const unknown = '01234567-0123-0123-0123-0123456789ab';
    expectErrorBody(await api.post('flaky-tests/get-test-details', { repo: REPO, test_id: unknown }), 404, 'not_found');
    expectErrorBody(await api.post('flaky-tests/get-test-details', { repo: REPO, test_id: 'nope' }), 400);
  });
});

describe('flaky-tests/link-ticket-to-test-case', () => {
  test('links a ticket; the listings and the details then carry it; linking again replaces it', async () => {
    expect(await failingRow()).not.toHaveProperty('ticket');
    const linked = await api.post('flaky-tests/link-ticket-to-test-case', {
      repo: REPO,
      test_case_id: id,
      external_ticket_id: 'KAN-123',
      ticket_url: 'https://acme.atlassian.net/browse/KAN-123',
    });
    expect(linked.statusCode).toBe(200);
    const ticket = { html_url: 'https://acme.atlassian.net/browse/KAN-123', external_id: 'KAN-123' };
    expect(linked.json()).toEqual({ test_case_id: id, external_ticket_id: 'KAN-123', ticket });
    expect((await failingRow()).ticket).toEqual(ticket);
    const details = (await api.post('flaky-tests/get-test-details', { repo: REPO, test_id: id })).json() as {
      test: { ticket: unknown };
    };
    expect(details.test.ticket).toEqual(ticket);

    // Without an address (the hosted service's request has none, its integration finds it), rows show no ticket:
    // the hosted document requires ticket.html_url to be a URI. The link is stored and replaces the one before.
    const byId = await api.post('flaky-tests/link-ticket-to-test-case', {
      repo: REPO,
      test_case_id: id,
      external_ticket_id: 'TRUNK-9',
    });
    expect(byId.json()).toEqual({ test_case_id: id, external_ticket_id: 'TRUNK-9' });
    expect(await failingRow()).not.toHaveProperty('ticket');
  });

  test('bad input is a 400; an unknown test or another organization a 404', async () => {
    const body = { repo: REPO, test_case_id: id, external_ticket_id: 'KAN-1' };
    expectErrorBody(await api.post('flaky-tests/link-ticket-to-test-case', { ...body, external_ticket_id: '' }), 400);
    expectErrorBody(await api.post('flaky-tests/link-ticket-to-test-case', { ...body, ticket_url: 'not a url' }), 400);
    expectErrorBody(
      await api.post('flaky-tests/link-ticket-to-test-case', { ...body, ticket_url: 'javascript:alert(1)' }),
      400,
    );
    expectErrorBody(
      await api.post('flaky-tests/link-ticket-to-test-case', {
        ...body,
        test_case_id: '01234567-0123-0123-0123-0123456789ab',
      }),
      404,
    );
    expectErrorBody(await api.post('flaky-tests/link-ticket-to-test-case', body, TOKENS.globex), 404);
    expectErrorBody(await api.post('flaky-tests/link-ticket-to-test-case', { ...body, org_url_slug: 'globex' }), 404);
  });
});
