/**
 * The stand-in's checks API: check runs created and updated by the App (Greenline's `greenline` check run), and
 * listed for a commit. Bodies start from GitHub's `check_run` webhook example; GitHub caps a summary at 65535
 * characters and answers 422 beyond, as here. A `conclusion` makes the run `completed`.
 */
import type { Pull } from './standIn.js';
import { invalid, NOT_FOUND, type Answer } from './standInAnswers.js';
import { linkHeader, pageOf } from './standInPaging.js';
import { example } from './webhookExamples.js';

export interface CheckRun {
  id: number;
  name: string;
  headSha: string;
  status: string;
  conclusion: string | null;
  detailsUrl: string | null;
  externalId: string | null;
  title: string | null;
  summary: string | null;
  text: string | null;
  /** Every summary the run had, in order (what a developer saw over time). */
  history: { status: string; conclusion: string | null; title: string | null; summary: string | null }[];
}

const SUMMARY_LIMIT = 65535;

export class StandInChecks {
  readonly runs: CheckRun[] = [];

  constructor(
    private readonly base: () => string,
    private readonly pullsOf: (sha: string) => Pull[],
  ) {}

  /** The latest check run of that name on a commit. */
  latest(sha: string, name = 'greenline'): CheckRun | undefined {
    return this.runs.filter((run) => run.headSha === sha && run.name === name).at(-1);
  }

  answer(
    operationId: string,
    p: Record<string, string | undefined>,
    input: Record<string, unknown>,
    query: URLSearchParams,
  ): Answer | undefined {
    switch (operationId) {
      case 'checks/create': {
        const run: CheckRun = {
          id: 9000 + this.runs.length,
          name: String(input.name),
          headSha: String(input.head_sha),
          status: 'queued',
          conclusion: null,
          detailsUrl: null,
          externalId: null,
          title: null,
          summary: null,
          text: null,
          history: [],
        };
        const refused = this.apply(run, input);
        if (refused !== undefined) return refused;
        this.runs.push(run);
        return { status: 201, body: this.body(run) };
      }
      case 'checks/update': {
        const run = this.runs.find((candidate) => candidate.id === Number(p.check_run_id));
        if (run === undefined) return { ...NOT_FOUND, githubWide: true };
        const refused = this.apply(run, input);
        return refused ?? { status: 200, body: this.body(run) };
      }
      case 'checks/list-for-ref': {
        const name = query.get('check_name');
        const all = this.runs.filter((run) => run.headSha === p.ref && (name === null || run.name === name)).reverse();
        const { page, perPage } = pageOf(query);
        return {
          status: 200,
          body: {
            total_count: all.length,
            check_runs: all.slice((page - 1) * perPage, page * perPage).map((run) => this.body(run)),
          },
          headers: linkHeader(
            `${this.base()}/repos/Codertocat/Hello-World/commits/${p.ref}/check-runs`,
            query,
            page,
            perPage,
            all.length,
          ),
        };
      }
      default:
        return undefined;
    }
  }

  private apply(run: CheckRun, input: Record<string, unknown>): Answer | undefined {
    const output = input.output as { title?: string; summary?: string; text?: string } | undefined;
    if (output?.summary !== undefined && output.summary.length > SUMMARY_LIMIT)
      return invalid(`output.summary is longer than ${SUMMARY_LIMIT} characters`);
    if (output?.text !== undefined && output.text.length > SUMMARY_LIMIT)
      return invalid(`output.text is longer than ${SUMMARY_LIMIT} characters`);
    if (typeof input.status === 'string') run.status = input.status;
    if (typeof input.conclusion === 'string') {
      run.conclusion = input.conclusion;
      run.status = 'completed';
    } else if (run.status !== 'completed') run.conclusion = null;
    if (typeof input.details_url === 'string') run.detailsUrl = input.details_url;
    if (typeof input.external_id === 'string') run.externalId = input.external_id;
    if (output !== undefined) {
      run.title = output.title ?? run.title;
      run.summary = output.summary ?? run.summary;
      run.text = output.text ?? run.text;
    }
    run.history.push({ status: run.status, conclusion: run.conclusion, title: run.title, summary: run.summary });
    return undefined;
  }

  private body(run: CheckRun): Record<string, unknown> {
    const template = example('check_run', 'completed').check_run as Record<string, unknown>;
    const root = `${this.base()}/repos/Codertocat/Hello-World`;
    const pr = (pull: Pull) => ({
      id: pull.number,
      number: pull.number,
      url: `${root}/pulls/${pull.number}`,
      head: { ref: pull.headRef, sha: pull.head, repo: { id: 186853002, url: root, name: 'Hello-World' } },
      base: { ref: pull.base, sha: pull.head, repo: { id: 186853002, url: root, name: 'Hello-World' } },
    });
    return {
      ...template,
      id: run.id,
      node_id: `CR_${run.id}`,
      name: run.name,
      head_sha: run.headSha,
      url: `${root}/check-runs/${run.id}`,
      html_url: `https://github.com/Codertocat/Hello-World/runs/${run.id}`,
      details_url: run.detailsUrl,
      external_id: run.externalId,
      status: run.status,
      conclusion: run.conclusion,
      started_at: '2026-01-01T00:00:00Z',
      completed_at: run.status === 'completed' ? '2026-01-01T00:00:00Z' : null,
      output: {
        title: run.title,
        summary: run.summary,
        text: run.text,
        annotations_count: 0,
        annotations_url: `${root}/check-runs/${run.id}/annotations`,
      },
      pull_requests: this.pullsOf(run.headSha).map(pr),
    };
  }
}
