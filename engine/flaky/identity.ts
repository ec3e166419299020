/**
 * Test identity: a test's id is a UUIDv5, in Greenline's own namespace, of its repository, file, classname, parent
 * suite, name and variant, so the same test gets the same id on every upload. Hosts, owners and repository names
 * are case-insensitive on every git host and are lower-cased first; the other parts are taken as written.
 */
import { v5 as uuidv5 } from 'uuid';

/** Greenline's namespace for test ids (a random UUID chosen once; never change it: every id derives from it). */
export const TEST_ID_NAMESPACE = '4f0c5d7e-9a1b-4c3d-8e2f-6a7b8c9d0e1f';
/** The namespace for repository ids, derived from the one above. */
export const REPO_ID_NAMESPACE = uuidv5('repositories', TEST_ID_NAMESPACE);

import type { RepoRef } from '../model/queues.js';

export type { RepoRef };

export interface TestIdentity {
  file: string;
  classname: string;
  parent: string;
  name: string;
  variant: string;
}

/** `host/owner/name`, lower-cased: how a repository is compared. */
export function repoSlug(repo: RepoRef): string {
  return `${repo.host}/${repo.owner}/${repo.name}`.toLowerCase();
}

/** A short, fixed-length id for a repository, used in store keys. */
export function repoId(repo: RepoRef): string {
  const slug = repoSlug(repo);
  let id = repoIds.get(slug);
  if (id === undefined) {
    id = uuidv5(slug, REPO_ID_NAMESPACE);
    // A hash per call adds up: the engine asks it of every PR that becomes ready. Bounded, as repositories are few.
    if (repoIds.size < MAX_CACHED_REPO_IDS) repoIds.set(slug, id);
  }
  return id;
}

const MAX_CACHED_REPO_IDS = 10_000;
const repoIds = new Map<string, string>();

/** The test's id. The parts are JSON-encoded together, so no choice of names can make two identities collide. */
export function testId(repo: RepoRef, test: TestIdentity): string {
  return uuidv5(
    JSON.stringify([repoSlug(repo), test.file, test.classname, test.parent, test.name, test.variant]),
    TEST_ID_NAMESPACE,
  );
}
