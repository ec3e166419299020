/**
 * An upload's identity, so that sending it again (after a timeout, a 503 at shutdown, a crash of the service) never
 * counts it twice: the client's `upload_key` when it sends one, else the digest of the upload's content (every field
 * and every report, byte for byte). The identity is kept in `flakyUploadKeys` with the upload's sequence number, in
 * the transaction that stores the upload's first batch; the upload record keeps how many of its batches are stored
 * (`progress`), each batch counted in the transaction that stores it. The same upload again:
 *   - fully stored: nothing is counted again, and the stored upload is answered (`already_stored`);
 *   - partly stored: the batches not yet stored are stored (the same tests in the same order: the same content);
 *   - not stored (refused, or cut short while being parsed): it is a new upload.
 * A content digest is a retry only within RETRY_WINDOW_MS of the stored upload's arrival: the same report received a
 * day later (a job whose output carries no time) is a run of its own. An `upload_key` holds as long as its upload is
 * kept; the same key with other content is refused (409 upload_key_conflict).
 */
import { createHash } from 'node:crypto';
import { engineError } from '../model/errors.js';
import type { ReadTx } from '../store/store.js';
import { DAY_MS } from './buckets.js';
import { repoId as repoIdOf, type RepoRef } from './identity.js';
import type { UploadMeta } from './ingest.js';
import type { FlakyUploadRecord } from './records.js';

export const RETRY_WINDOW_MS = DAY_MS;
export const MAX_UPLOAD_KEY_CHARS = 200;

export interface UploadIdentity {
  /** `key:<upload_key>` or `sha256:<digest>`. */
  key: string;
  /** SHA-256 of the content, hex. */
  digest: string;
  /** True when the client named the upload (upload_key): it holds past RETRY_WINDOW_MS. */
  named: boolean;
}

/** What identifies the content of an upload: every field that changes what is stored. */
export type UploadContent = Omit<UploadMeta, 'reports'> & {
  repoRoot?: string;
  reports: readonly { file: string; xml: string }[];
};

/** The digest of an upload's content: each report's text is preceded by its length, so no two contents share one. */
export function uploadDigest(content: UploadContent): string {
  const hash = createHash('sha256');
  const { repo, sha, branch, prNumber, variant, jobUrl, timestamp, codeowners, repoRoot, reports } = content;
  hash.update(
    JSON.stringify([
      repoIdOf(repo),
      sha,
      branch,
      prNumber ?? null,
      variant,
      jobUrl ?? null,
      timestamp ?? null,
      codeowners ?? null,
      repoRoot ?? null,
    ]),
  );
  for (const { file, xml } of reports) {
    hash.update(JSON.stringify([file, xml.length]));
    hash.update(xml);
  }
  return hash.digest('hex');
}

export function uploadIdentity(content: UploadContent, uploadKey?: string): UploadIdentity {
  const digest = uploadDigest(content);
  return uploadKey === undefined
    ? { key: `sha256:${digest}`, digest, named: false }
    : { key: `key:${uploadKey}`, digest, named: true };
}

/**
 * The upload stored under this identity, if it still counts as the same upload (see above); 409 when the client's
 * key names an upload of other content. Read inside the transaction that would begin the upload.
 */
export function storedUpload(
  tx: ReadTx,
  org: string,
  repo: RepoRef,
  identity: UploadIdentity,
  now: number,
): FlakyUploadRecord | undefined {
  const repoKey = repoIdOf(repo);
  const seq = tx.get('flakyUploadKeys', [org, repoKey, identity.key]);
  const stored = seq === undefined ? undefined : tx.get('flakyUploads', [org, repoKey, seq]);
  if (stored === undefined) return undefined;
  if (stored.digest !== identity.digest) {
    throw engineError('upload_key_conflict', { key: identity.key.slice(4), upload: stored.id });
  }
  const partial = stored.progress !== undefined;
  return partial || identity.named || now - stored.receivedAt < RETRY_WINDOW_MS ? stored : undefined;
}
