/**
 * Times for people: relative to now in words (Intl.RelativeTimeFormat), the exact time on hover (the title of a
 * <time> element, in UTC), and durations. A relative time is marked `data-relative`, a duration still running
 * `data-since`: the page's script (web/assets/dashboard.js, which words them the same way) keeps them current between
 * redraws.
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

/** A duration still running, from `since` (ms) to now, marked `data-since`: the page's script keeps it counting. */
function running(since: number, now: number): Html {
  return html`<span data-since="${new Date(since).toISOString()}">${formatDuration(Math.max(0, now - since))}</span>`;
}

/** How long since a time in ms (a PR's readyAt), counting on; a dash when there is none. */
export function formatDurationSince(since: number | null, now: number): Html {
  return since === null ? html`—` : running(since, now);
}

/** A duration between two ISO times, as "4 min 12 s", or until now (counting on); a dash when either is unknown. */
export function durationBetween(from: string | null, to: string | null, now: number): Html {
  const start = from === null ? Number.NaN : Date.parse(from);
  const end = to === null ? now : Date.parse(to);
  if (!Number.isFinite(start) || !Number.isFinite(end)) return html`—`;
  return to === null ? running(start, now) : html`${formatDuration(Math.max(0, end - start))}`;
}
