/** The stand-in's pull requests: get, list, open, update (close) and merge them. */
import type { GitHubStandIn, Pull } from './standIn.js';
import type { StandInBodies } from './standInBodies.js';
import { invalid, NOT_FOUND, type Answer } from './standInAnswers.js';

export class StandInPulls {
  constructor(
    private readonly standIn: GitHubStandIn,
    private readonly bodies: StandInBodies,
  ) {}

  answer(
    operationId: string,
    params: Record<string, string | undefined>,
    input: Record<string, unknown>,
    query: URLSearchParams,
  ): Answer | undefined {
    switch (operationId) {
      case 'pulls/get': {
        const pull = this.standIn.pulls.get(Number(params.pull_number));
        return pull === undefined ? NOT_FOUND : { status: 200, body: this.bodies.pullBody(pull) };
      }
      case 'pulls/update': {
        const pull = this.standIn.pulls.get(Number(params.pull_number));
        if (pull === undefined) return NOT_FOUND;
        if (input.state === 'closed') pull.state = 'closed';
        return { status: 200, body: this.bodies.pullBody(pull) };
      }
      case 'pulls/list': {
        const head = query.get('head')?.replace(/^[^:]*:/, '');
        const state = query.get('state') ?? 'open';
        const found = [...this.standIn.pulls.values()].filter(
          (pull) => (head === undefined || pull.headRef === head) && (state === 'all' || pull.state === state),
        );
        return { status: 200, body: found.map((pull) => this.bodies.pullBody(pull)) };
      }
      case 'pulls/create': {
        const headRef = String(input.head);
        const head = this.standIn.head(headRef);
        if (head === undefined || this.standIn.head(String(input.base)) === undefined)
          return invalid('Validation Failed');
        const number = Math.max(0, ...this.standIn.pulls.keys()) + 1;
        const pull: Pull = {
          number,
          title: String(input.title),
          author: 'greenline[bot]',
          head,
          headRef,
          base: String(input.base),
          draft: input.draft === true,
          state: 'open',
          merged: false,
          mergeableComputed: false,
        };
        this.standIn.pulls.set(number, pull);
        return { status: 201, body: this.bodies.pullBody(pull) };
      }
      case 'pulls/merge': {
        const pull = this.standIn.pulls.get(Number(params.pull_number));
        if (pull === undefined) return NOT_FOUND;
        if (input.sha !== undefined && input.sha !== pull.head)
          return {
            status: 409,
            body: {
              message: 'Head branch was modified. Review and try the merge again.',
              documentation_url: 'https://docs.github.com/rest',
            },
          };
        const base = this.standIn.head(pull.base)!;
        const merged = this.standIn.git.mergeFiles(base, pull.head);
        if (pull.state !== 'open' || 'conflicts' in merged)
          return {
            status: 405,
            body: { message: 'Pull Request is not mergeable', documentation_url: 'https://docs.github.com/rest' },
          };
        const parents = input.merge_method === 'squash' || input.merge_method === 'rebase' ? [base] : [base, pull.head];
        const commit = this.standIn.git.commit(
          merged.files,
          parents,
          `${pull.title} (#${pull.number})`,
          'greenline[bot]',
        );
        this.standIn.setRef(`heads/${pull.base}`, commit.sha);
        pull.state = 'closed';
        pull.merged = true;
        return { status: 200, body: { sha: commit.sha, merged: true, message: 'Pull Request successfully merged' } };
      }
      default:
        return undefined;
    }
  }
}
