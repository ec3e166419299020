/**
 * Times for people: relative to now in words (Intl.RelativeTimeFormat), the exact time on hover (the title of a
 * <time> element, in UTC), and durations. A relative time is marked `data-relative`: the page's script
 * (web/assets/dashboard.js, which words it the same way) keeps its words current between redraws.
 */
import { html, type Html } from './html.js';
import { formatDuration } from './stats.js';

const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];

/** "3 minutes ago", "in 2 hours", "now". */
export function relative(at: number, now: number): string {
  const delta = at - now;
  if (Math.abs(delta) < 1000) return 'now';
  for (const [unit, ms] of UNITS) {
    if (Math.abs(delta) >= ms || unit === 'second') return RELATIVE.format(Math.round(delta / ms), unit);
  }
  return 'now';
}

/** The exact time as people read it: 2026-11-22 12:00:05 UTC. */
export function exact(at: number): string {
  return `${new Date(at)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, '')} UTC`;
}

/** A <time> in words relative to now (kept current by the page's script), the exact time (or `title`) on hover. */
export function relativeTime(at: number, now: number, title = exact(at)): Html {
  return html`<time datetime="${new Date(at).toISOString()}" data-relative title="${title}">${relative(at, now)}</time>`;
}

/** A <time> in words relative to now, the exact time on hover. */
export function timeAgo(iso: string, now: number): Html {
  const at = Date.parse(iso);
  if (!Number.isFinite(at)) return html`<span class="muted">—</span>`;
  return relativeTime(at, now);
}

/** How long since a time in ms (a PR's readyAt), or a dash when there is none. */
export function formatDurationSince(since: number | null, now: number): string {
  return since === null ? '—' : formatDuration(Math.max(0, now - since));
}

/** A duration between two ISO times (or until now), as "4 min 12 s"; a dash when either is unknown. */
export function durationBetween(from: string | null, to: string | null, now: number): string {
  const start = from === null ? Number.NaN : Date.parse(from);
  const end = to === null ? now : Date.parse(to);
  if (!Number.isFinite(start) || !Number.isFinite(end)) return '—';
  return formatDuration(Math.max(0, end - start));
}
