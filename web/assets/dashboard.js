// The dashboard's one script: it listens to the server's committed changes (server-sent events, coalesced by the
// server) and asks htmx to redraw the live region of the page when a change concerns it. No polling: a redraw
// happens only when the engine committed something, or when the stream opens at another version of the feed than the
// page was made at (what was committed before the stream opened, or across a restart of the service, was not sent).
(function () {
  'use strict';
  let source = null;
  let retryMs = 500;

  // One redraw at a time; changes that arrive during one ask for one more after it (coalescing on this side too).
  let drawing = false;
  let again = false;
  /** The feed's version this page shows: as made, then as each change event says. */
  let version = null;

  function redraw(queueIds) {
    const live = document.getElementById('live');
    if (live === null || !live.dataset.live || typeof htmx === 'undefined') return;
    const wanted = live.dataset.live;
    if (wanted !== 'all' && queueIds !== null && !queueIds.includes(wanted)) return;
    if (drawing) {
      again = true;
      return;
    }
    drawing = true;
    // The page's own address, answered in full; only its live region is taken.
    htmx
      .ajax('GET', location.pathname + location.search, { target: '#live', select: '#live', swap: 'outerHTML' })
      .finally(function () {
        drawing = false;
        if (again) {
          again = false;
          redraw(null);
        }
      });
  }

  function connect() {
    if (document.querySelector('header nav') === null) return; // the sign-in page has nothing live
    source = new EventSource('/events');
    source.addEventListener('open', function () {
      retryMs = 500;
      document.documentElement.dataset.live = 'connected';
    });
    source.addEventListener('hello', function (event) {
      if (version === null) {
        const live = document.getElementById('live');
        version = live === null ? '' : live.dataset.version || '';
      }
      let now = null;
      try {
        now = JSON.parse(event.data).version;
      } catch (_) {
        now = null;
      }
      // The feed moved on since this page was made (or the service restarted): redraw once.
      if (now !== version) redraw(null);
      version = now;
    });
    source.addEventListener('changed', function (event) {
      let ids = null;
      try {
        const data = JSON.parse(event.data);
        ids = data.queues;
        version = data.version;
      } catch (_) {
        ids = null;
      }
      redraw(ids);
    });
    // The session ended (signed out elsewhere, expired, token revoked): the server says so and ends the stream
    // (it never refuses one: the browser would log that as an error). Stop listening and show the sign-in page.
    source.addEventListener('signed-out', function () {
      source.close();
      source = null;
      document.documentElement.dataset.live = 'signed-out';
      redraw(null);
    });
    source.addEventListener('error', function () {
      if (source === null) return;
      document.documentElement.dataset.live = 'reconnecting';
      // The browser retries by itself while the stream is only interrupted; once it gives up (the service was down
      // and answered nothing), start a new stream after a growing delay.
      if (source.readyState === EventSource.CLOSED) {
        source = null;
        setTimeout(connect, retryMs);
        retryMs = Math.min(retryMs * 2, 10000);
      }
    });
  }

  // What a person opened in the live region (a confirmation, the full chart) stays open across a redraw: such
  // disclosures have an id, and those open just before the swap are opened again just after it.
  let opened = [];
  document.addEventListener('htmx:beforeSwap', function (event) {
    const target = event.detail.target;
    if (target === null || target.id !== 'live') return;
    opened = Array.prototype.map.call(target.querySelectorAll('details[open][id]'), function (details) {
      return details.id;
    });
  });
  document.addEventListener('htmx:afterSwap', function () {
    opened.forEach(function (id) {
      const details = document.getElementById(id);
      if (details !== null && details.tagName === 'DETAILS') details.open = true;
    });
    opened = [];
    restartClock();
  });

  // Relative times ("3 minutes ago", "in 2 hours") and durations still running ("4 min 12 s" in the queue) stay current
  // between redraws, worded as the server words them (web/time.ts and web/stats.ts: the same units,
  // Intl.RelativeTimeFormat), from the server's clock (the live region's data-now, when the page was drawn) rather
  // than this browser's, which may be off. Every second while one shows seconds (a few hundred at most: a longer page
  // every 5 s), else every 30 seconds.
  const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  const UNITS = [
    ['day', 86400000],
    ['hour', 3600000],
    ['minute', 60000],
    ['second', 1000],
  ];
  function words(delta) {
    if (Math.abs(delta) < 1000) return 'now';
    for (let index = 0; index < UNITS.length; index++) {
      const unit = UNITS[index];
      if (Math.abs(delta) >= unit[1] || unit[0] === 'second')
        return RELATIVE.format(Math.round(delta / unit[1]), unit[0]);
    }
    return 'now';
  }
  function duration(ms) {
    const seconds = Math.round(ms / 1000);
    if (seconds < 60) return `${seconds} s`;
    const minutes = Math.floor(seconds / 60);
    if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
    return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
  }
  let offset = 0;
  let clock = null;
  function tick() {
    const now = Date.now() + offset;
    let seconds = false;
    const relatives = document.querySelectorAll('time[data-relative]');
    relatives.forEach(function (element) {
      const at = Date.parse(element.getAttribute('datetime') || '');
      if (!Number.isFinite(at)) return;
      const text = words(at - now);
      if (element.textContent !== text) element.textContent = text;
      if (Math.abs(at - now) < 60000) seconds = true;
    });
    const runnings = document.querySelectorAll('[data-since]');
    runnings.forEach(function (element) {
      const since = Date.parse(element.getAttribute('data-since') || '');
      if (!Number.isFinite(since)) return;
      const text = duration(Math.max(0, now - since));
      if (element.textContent !== text) element.textContent = text;
      if (now - since < 3600000) seconds = true;
    });
    const many = relatives.length + runnings.length > 300;
    clock = setTimeout(tick, seconds ? (many ? 5000 : 1000) : 30000);
  }
  function restartClock() {
    const live = document.getElementById('live');
    const drawnAt = live === null ? Number.NaN : Number(live.dataset.now);
    if (Number.isFinite(drawnAt) && drawnAt > 0) offset = drawnAt - Date.now();
    if (clock !== null) clearTimeout(clock);
    tick();
  }

  document.addEventListener('DOMContentLoaded', connect);
  document.addEventListener('DOMContentLoaded', restartClock);
})();
