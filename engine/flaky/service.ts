/**
 * The flaky-test capability's façade: what the API calls. All state is in the store; each call that changes state is
 * one store transaction. Data is scoped to the caller's organization (`org`, from the API token); the request's
 * `org_url_slug` must name that organization: for any other slug the listings are empty and the other calls answer
 * 404, whether or not such an organization exists.
 */
import type { Clock } from '../runtime/clock.js';
import { engineError } from '../model/errors.js';
import type { Store } from '../store/store.js';
import { repoId as repoIdOf, type RepoRef } from './identity.js';
import { prepareUpload, type PrepareInput } from './prepare.js';
import { prepareOffThread } from './prepareOffThread.js';
import { resultOf, type UploadMeta, type UploadResult } from './ingest.js';
import { interruptedError, uploadInBatches, uploadNow } from './ingestBatches.js';
import { storedUpload, uploadIdentity, type UploadIdentity } from './uploadIdentity.js';
import {
  listFailing,
  listQuarantined,
  listUnhealthy,
  testDetail,
  type FailingQuery,
  type FailingRow,
  type Listing,
  type PageQuery,
  type QuarantinedRow,
  type TestRow,
  type UnhealthyQuery,
} from './listings.js';
import { tokenSecret } from './pageToken.js';
import { isQuarantined, quarantineVerdict, type QuarantineVerdict } from './quarantine.js';
import type { FlakyTestRecord, QuarantineOverride } from './records.js';
import { withDefaults, type RepoSettings, type SettingsPatch } from './settings.js';
import { refreshRepo, updateRepoSettings } from './repoChanges.js';
import { saveTest, type ChangeContext } from './transitions.js';

export interface UploadInput extends Omit<UploadMeta, 'reports'> {
  reports: { file: string; xml: string }[];
  /** The repository's root on the runner: absolute test file paths under it become relative to it. */
  repoRoot?: string;
  /** The client's name for the upload (`upload_key`): sent again, it is the same upload (uploadIdentity.ts). */
  uploadKey?: string;
}

export { MAX_TEST_CASES_PER_UPLOAD } from './prepare.js';

function preparation(input: UploadInput): PrepareInput {
  return {
    repo: input.repo,
    variant: input.variant,
    reports: input.reports,
    ...(input.repoRoot === undefined ? {} : { repoRoot: input.repoRoot }),
  };
}

function metaOf(input: UploadInput): UploadMeta {
  const { repoRoot: _repoRoot, uploadKey: _uploadKey, ...rest } = input;
  return { ...rest, reports: input.reports.map((report) => report.file) };
}

export function sameOrg(org: string, slug: string | undefined): boolean {
  return slug === undefined || slug.toLowerCase() === org.toLowerCase();
}

export class FlakyTests {
  constructor(
    readonly store: Store,
    readonly clock: Clock,
  ) {}

  private now(): number {
    return Math.floor(this.clock.now());
  }

  /**
   * Parses every report first (an invalid one rejects the whole upload), then stores it (ingestBatches.ts). An
   * upload stored before under the same identity (uploadIdentity.ts) is answered as it was, without parsing it again.
   */
  upload(org: string, input: UploadInput, slug?: string): UploadResult {
    if (!sameOrg(org, slug)) throw engineError('org_not_found', { slug: slug as string });
    const identity = uploadIdentity(input, input.uploadKey);
    const stored = this.storedResult(org, input, identity);
    if (stored !== undefined) return stored;
    return uploadNow(this.store, org, metaOf(input), prepareUpload(preparation(input)), () => this.now(), { identity });
  }

  /**
   * The same as `upload`, with the parsing on a worker thread and the storing in batches with the event loop free
   * between them (what the API calls): other requests go on meanwhile. `interruptUploads` stops it (503).
   */
  async uploadOffThread(org: string, input: UploadInput, slug?: string): Promise<UploadResult> {
    if (!sameOrg(org, slug)) throw engineError('org_not_found', { slug: slug as string });
    const identity = uploadIdentity(input, input.uploadKey);
    const stored = this.storedResult(org, input, identity);
    if (stored !== undefined) return stored;
    const { signal } = this.stopping;
    const upload = prepareOffThread(preparation(input), signal, () => interruptedError(undefined)).then((aggregated) =>
      uploadInBatches(this.store, org, metaOf(input), aggregated, () => this.now(), { identity, signal }),
    );
    this.uploading.add(upload);
    try {
      return await upload;
    } finally {
      this.uploading.delete(upload);
    }
  }

  /** The answer to an upload stored in full before under this identity; undefined when it is to be (re)stored. */
  private storedResult(org: string, input: UploadInput, identity: UploadIdentity): UploadResult | undefined {
    const stored = this.store.read((tx) => storedUpload(tx, org, input.repo, identity, this.now()));
    return stored === undefined || stored.progress !== undefined ? undefined : resultOf(stored, true);
  }

  /** Uploads being parsed or stored (a client may have left: they still end); shutdown waits for them. */
  private readonly uploading = new Set<Promise<unknown>>();
  private readonly stopping = new AbortController();

  /** Stops uploads in progress (a parse ends its worker; a store stops before its next transaction) and to come: 503. */
  interruptUploads(): void {
    this.stopping.abort();
  }

  /** Resolves once no upload is in progress (before the store closes). */
  async settleUploads(): Promise<void> {
    while (this.uploading.size > 0) await Promise.allSettled([...this.uploading]);
  }

  /**
   * Re-evaluates the repository's flaky and broken tests at the current time (pass-on-retry expiry, rates whose
   * failures aged out of their window) and stores the ones whose status changed. Cheap when nothing changed: one
   * read of the unhealthy tests, no write. Returns how many tests changed.
   */
  refresh(org: string, repo: RepoRef): number {
    return refreshRepo(this.store, org, repo, this.now());
  }

  private listing<Q extends PageQuery, R>(
    org: string,
    slug: string,
    query: Q,
    list: (tx: Parameters<Parameters<Store['read']>[0]>[0], secret: Buffer, now: number) => Listing<R>,
  ): Listing<R> {
    const secret = tokenSecret(this.store);
    if (!sameOrg(org, slug)) {
      // Another organization's slug: answer as for a repository without data, after checking the token like any.
      return this.store.read((tx) => list(tx, secret, this.now()));
    }
    this.refresh(org, query.repo);
    return this.store.read((tx) => list(tx, secret, this.now()));
  }

  listFailing(org: string, slug: string, query: FailingQuery): Listing<FailingRow> {
    if (query.start < 0 || query.end < query.start) throw engineError('invalid_time_range');
    const scope = sameOrg(org, slug) ? org : `\u0001other:${slug}`;
    return this.listing(org, slug, query, (tx, secret, now) => listFailing(tx, scope, query, secret, now));
  }

  listUnhealthy(org: string, slug: string, query: UnhealthyQuery): Listing<TestRow> {
    const scope = sameOrg(org, slug) ? org : `\u0001other:${slug}`;
    return this.listing(org, slug, query, (tx, secret, now) => listUnhealthy(tx, scope, query, secret, now));
  }

  listQuarantined(org: string, slug: string, query: PageQuery): Listing<QuarantinedRow> {
    const scope = sameOrg(org, slug) ? org : `\u0001other:${slug}`;
    return this.listing(org, slug, query, (tx, secret, now) => listQuarantined(tx, scope, query, secret, now));
  }

  /** Sets or clears (null) a test's manual quarantine override. */
  setQuarantine(
    org: string,
    slug: string,
    repo: RepoRef,
    testId: string,
    setting: QuarantineOverride | null,
  ): { test: FlakyTestRecord; quarantined: boolean } {
    const { saved, settings } = this.changeTest(org, slug, repo, testId, (before, now) => {
      const after: FlakyTestRecord = { ...before };
      if (setting === null) delete after.override;
      else after.override = { setting, at: now };
      return after;
    });
    return { test: saved, quarantined: isQuarantined(saved, settings) };
  }

  /** Links a ticket to a test (replacing any linked before); 404 when the repository has no such test. */
  linkTicket(
    org: string,
    slug: string | undefined,
    repo: RepoRef,
    testId: string,
    ticket: { externalId: string; url?: string },
  ): FlakyTestRecord {
    return this.changeTest(org, slug, repo, testId, (before, now) => ({ ...before, ticket: { ...ticket, at: now } }))
      .saved;
  }

  /** Changes one test of a repository in one transaction (its lists follow); 404 when there is no such test. */
  private changeTest(
    org: string,
    slug: string | undefined,
    repo: RepoRef,
    testId: string,
    change: (before: FlakyTestRecord, now: number) => FlakyTestRecord,
  ): { saved: FlakyTestRecord; settings: RepoSettings } {
    const missing = () => engineError('test_not_found', { testId, repo: `${repo.host}/${repo.owner}/${repo.name}` });
    if (!sameOrg(org, slug)) throw missing();
    const id = repoIdOf(repo);
    const now = this.now();
    return this.store.write((tx) => {
      const before = tx.get('flakyTests', [org, id, testId]);
      const repoRecord = tx.get('flakyRepos', [org, id]);
      if (before === undefined || repoRecord === undefined) throw missing();
      const settings = withDefaults(repoRecord.settings);
      const context: ChangeContext = { tx, org, repoId: id, seq: repoRecord.seq + 1, now, settings };
      const saved = saveTest(context, before, change(before, now));
      tx.put('flakyRepos', [org, id], { ...repoRecord, seq: context.seq });
      return { saved, settings };
    });
  }

  getSettings(org: string, slug: string, repo: RepoRef): RepoSettings {
    if (!sameOrg(org, slug)) throw engineError('org_not_found', { slug: slug as string });
    return this.store.read((tx) => withDefaults(tx.get('flakyRepos', [org, repoIdOf(repo)])?.settings));
  }

  /**
   * Changes a repository's settings. Quarantine follows at once (turning auto-quarantine on or off moves the flaky
   * tests in or out); changed thresholds apply from each test's next upload and, for flaky and broken tests, from
   * the next listing.
   */
  updateSettings(org: string, slug: string, repo: RepoRef, patch: SettingsPatch): RepoSettings {
    if (!sameOrg(org, slug)) throw engineError('org_not_found', { slug: slug as string });
    return updateRepoSettings(this.store, org, repo, patch, this.now());
  }

  /** The merge queue's question, in a read transaction of its own (see quarantineVerdict for use inside one). */
  verdict(org: string, repo: RepoRef, sha: string): QuarantineVerdict | undefined {
    return this.store.read((tx) => quarantineVerdict(tx, org, repo, sha, this.now()));
  }

  /** The repositories of the organization with flaky-test data. */
  repositories(org: string): RepoRef[] {
    return this.store.read((tx) => [...tx.scan('flakyRepos', { prefix: [org] })].map(({ value }) => value.repo));
  }

  /** One test of the caller's organization by its id, for its page; 404 when there is none. */
  testDetail(org: string, slug: string, testId: string): { repo: RepoRef; row: FailingRow } {
    const found = sameOrg(org, slug) ? this.store.read((tx) => testDetail(tx, org, testId, this.now())) : undefined;
    if (found === undefined) throw engineError('test_not_found', { testId });
    return found;
  }

  getTest(org: string, repo: RepoRef, testId: string): FlakyTestRecord | undefined {
    return this.store.read((tx) => tx.get('flakyTests', [org, repoIdOf(repo), testId]));
  }
}

const services = new WeakMap<Store, FlakyTests>();

/** The service for a store (one per store, created on first use). */
export function flakyTestsFor(store: Store, clock: Clock): FlakyTests {
  let service = services.get(store);
  if (service === undefined || service.clock !== clock) {
    service = new FlakyTests(store, clock);
    services.set(store, service);
  }
  return service;
}
