/**
 * Pagination as GitHub does it: `per_page` (default 30, capped at 100 whatever is asked) and `page` (from 1), and a
 * `link` header naming the next and last pages, which `octokit.paginate` follows.
 */
import type { Answer } from './standInAnswers.js';

export const MAX_PER_PAGE = 100;

export function pageOf(query: URLSearchParams, defaultPerPage = 30): { page: number; perPage: number } {
  const page = Math.max(1, Number(query.get('page') ?? '1') || 1);
  const perPage = Math.min(
    MAX_PER_PAGE,
    Math.max(1, Number(query.get('per_page') ?? String(defaultPerPage)) || defaultPerPage),
  );
  return { page, perPage };
}

/** The `link` header for page `page` of `total` items at `url` (empty when there is one page). */
export function linkHeader(
  url: string,
  query: URLSearchParams,
  page: number,
  perPage: number,
  total: number,
): Record<string, string> {
  const last = Math.max(1, Math.ceil(total / perPage));
  const at = (n: number) => {
    const next = new URLSearchParams(query);
    next.set('page', String(n));
    next.set('per_page', String(perPage));
    return `<${url}?${next.toString()}>`;
  };
  const links: string[] = [];
  if (page < last) links.push(`${at(page + 1)}; rel="next"`, `${at(last)}; rel="last"`);
  if (page > 1) links.push(`${at(1)}; rel="first"`, `${at(page - 1)}; rel="prev"`);
  return links.length === 0 ? {} : { link: links.join(', ') };
}

/** One page of a list answer, with its `link` header. */
export function paged(all: unknown[], query: URLSearchParams, url: string): Answer {
  const { page, perPage } = pageOf(query);
  return {
    status: 200,
    body: all.slice((page - 1) * perPage, page * perPage),
    headers: linkHeader(url, query, page, perPage, all.length),
  };
}
