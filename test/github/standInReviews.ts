/**
 * The stand-in's reviews and review requirements: a PR's reviews, classic branch protection's required approving
 * review count (404 without it, as GitHub answers), and rulesets' `pull_request` rules.
 */
import type { Answer } from './standInAnswers.js';
import { paged } from './standInPaging.js';

export class StandInReviews {
  /** Reviews by PR number, oldest first. */
  readonly byPull = new Map<
    number,
    { login: string; state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED' }[]
  >();
  /** Classic branch protection's required approving review count, by branch. */
  readonly protection = new Map<string, number>();
  /** Rulesets' `pull_request` rule's required approving review count, by branch. */
  readonly rulesets = new Map<string, number>();

  constructor(
    private readonly base: () => string,
    private readonly user: (login: string) => Record<string, unknown>,
  ) {}

  review(number: number, login: string, state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED'): void {
    this.byPull.set(number, [...(this.byPull.get(number) ?? []), { login, state }]);
  }

  /** The `pull_request` rule of the branch's rulesets, when it has one. */
  rules(branch: string): Record<string, unknown>[] {
    const count = this.rulesets.get(branch);
    if (count === undefined) return [];
    return [
      {
        type: 'pull_request',
        ruleset_source_type: 'Repository',
        ruleset_source: 'Codertocat/Hello-World',
        ruleset_id: 43,
        parameters: {
          dismiss_stale_reviews_on_push: false,
          require_code_owner_review: false,
          require_last_push_approval: false,
          required_approving_review_count: count,
          required_review_thread_resolution: false,
        },
      },
    ];
  }

  answer(operationId: string, params: Record<string, string | undefined>, query: URLSearchParams): Answer | undefined {
    const root = `${this.base()}/repos/Codertocat/Hello-World`;
    switch (operationId) {
      case 'repos/get-pull-request-review-protection': {
        const count = this.protection.get(params.branch ?? '');
        // GitHub answers 404 without the protection (and 403 without `administration: read`), though it documents only 200.
        if (count === undefined)
          return {
            status: 404,
            body: { message: 'Branch not protected', documentation_url: 'https://docs.github.com/rest' },
            githubWide: true,
          };
        return {
          status: 200,
          body: {
            url: `${root}/branches/${params.branch}/protection/required_pull_request_reviews`,
            dismiss_stale_reviews: false,
            require_code_owner_reviews: false,
            required_approving_review_count: count,
          },
        };
      }
      case 'pulls/list-reviews': {
        const number = Number(params.pull_number);
        const all = (this.byPull.get(number) ?? []).map((review, index) => ({
          id: 7000 + index,
          node_id: `PRR_${number}_${index}`,
          user: this.user(review.login),
          body: '',
          state: review.state,
          commit_id: null,
          html_url: `https://github.com/Codertocat/Hello-World/pull/${number}#pullrequestreview-${7000 + index}`,
          pull_request_url: `${root}/pulls/${number}`,
          _links: {
            html: { href: `https://github.com/Codertocat/Hello-World/pull/${number}` },
            pull_request: { href: `${root}/pulls/${number}` },
          },
          submitted_at: '2026-01-01T00:00:00Z',
          author_association: 'COLLABORATOR',
        }));
        return paged(all, query, `${root}/pulls/${number}/reviews`);
      }
      default:
        return undefined;
    }
  }
}
