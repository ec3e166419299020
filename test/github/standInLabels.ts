/** The stand-in's labels on issues and pull requests: list, add (creating a label the repository lacks), remove. */
import type { Answer } from './standInAnswers.js';
import { paged } from './standInPaging.js';

export class StandInLabels {
  /** Label names by issue (PR) number, in the order they were added. */
  readonly byIssue = new Map<number, string[]>();
  private readonly ids = new Map<string, number>();

  constructor(private readonly base: () => string) {}

  of(number: number): string[] {
    return this.byIssue.get(number) ?? [];
  }

  answer(
    operationId: string,
    params: Record<string, string | undefined>,
    input: Record<string, unknown>,
    query = new URLSearchParams(),
  ): Answer | undefined {
    const number = Number(params.issue_number);
    const current = this.of(number);
    switch (operationId) {
      case 'issues/list-labels-on-issue':
        return paged(
          current.map((name) => this.body(name)),
          query,
          `${this.base()}/repos/Codertocat/Hello-World/issues/${number}/labels`,
        );
      case 'issues/add-labels': {
        const names = (Array.isArray(input.labels) ? input.labels : []).map(String);
        this.byIssue.set(number, [...current, ...names.filter((name) => !current.includes(name))]);
        return { status: 200, body: this.of(number).map((name) => this.body(name)) };
      }
      case 'issues/remove-label': {
        const name = params.name ?? '';
        if (!current.includes(name))
          return {
            status: 404,
            body: { message: 'Label does not exist', documentation_url: 'https://docs.github.com/rest' },
          };
        this.byIssue.set(
          number,
          current.filter((other) => other !== name),
        );
        return { status: 200, body: this.of(number).map((other) => this.body(other)) };
      }
      default:
        return undefined;
    }
  }

  private body(name: string): Record<string, unknown> {
    let id = this.ids.get(name);
    if (id === undefined) this.ids.set(name, (id = 5000 + this.ids.size));
    return {
      id,
      node_id: `LA_${id}`,
      url: `${this.base()}/repos/Codertocat/Hello-World/labels/${encodeURIComponent(name)}`,
      name,
      description: null,
      color: 'ededed',
      default: false,
    };
  }
}
