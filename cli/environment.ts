import { HOSTS } from '../hosts/index.js';

/** The environment `greenline serve` reads, as `--help` lists it (config.ts reads and checks it). */
export const ENVIRONMENT: Record<string, string> = {
  HOST: 'address to listen on (default 127.0.0.1)',
  PORT: 'port to listen on (default 8080; 0 picks a free one)',
  GREENLINE_DATA: 'data folder; the LMDB store lives in it (default ./.greenline)',
  GREENLINE_SESSION_KEY_FILE:
    'the key dashboard sessions are signed with, made 0600 at the first start; never in the store or a backup (default GREENLINE_DATA/session.key)',
  GREENLINE_STORE:
    'postgres://USER:PASSWORD@HOST:PORT/DATABASE: keep the store in PostgreSQL instead, shared by several processes (docs/postgres.md)',
  GREENLINE_LEASE_MS:
    'GREENLINE_STORE=postgres: how long a process drives a queue without renewing its lease, the failover time, in ms (default 5000)',
  GREENLINE_API_TOKENS: 'API tokens as "org:token,org2:token2" (default: none; see below)',
  GREENLINE_PUBLIC_URL:
    'the address people use to reach this service, for links in responses (default http://HOST:PORT)',
  GREENLINE_PROVIDER: `the git host: ${HOSTS.slice(0, -1)
    .map((host) => host.summary)
    .join(', ')} or ${HOSTS[HOSTS.length - 1]?.summary}`,
  // Each host's own variables, as it declares them (hosts/<host>/host.ts).
  ...Object.assign({}, ...HOSTS.map((host) => host.environment)),
  GREENLINE_SIM_CI:
    'a synthetic CI that reports on every test run: "1", or "pass=0.9,median=2,p90=4,seed=1" (default: off; statuses come through setCommitStatus)',
  GREENLINE_LOG_LEVEL: 'fatal, error, warn, info, debug, trace or silent (default info); logs go to stderr as JSON',
  GREENLINE_REQUEST_TIMEOUT:
    'seconds a client has to send a whole request, body included, before it is answered 408 and closed (default 60)',
  GREENLINE_IDLE_TIMEOUT:
    'seconds a connection may stay silent (sending and receiving nothing) before it is closed (default 120)',
  GREENLINE_KEEP_ALIVE_TIMEOUT: 'seconds an idle keep-alive connection is kept open between requests (default 5)',
  GREENLINE_SHUTDOWN_GRACE:
    'seconds SIGTERM waits for requests in flight; then uploads still running are stopped (503 upload_interrupted: the same upload sent again completes it) and the connections left are closed (default 10)',
  GREENLINE_MAX_DB_SIZE:
    'the most the store may hold, in bytes or with K, M, G (e.g. 20G); at it, writes are refused with 507 storage_full while reads go on (default: no limit but the disk)',
  GREENLINE_LMDB_SYNC:
    "batch: every request's writes run in LMDB's batched transactions, synced off the event loop, each answer sent only once its write is on disk, and safe from a power loss; group: commits synced in groups off the event loop, as fast, but a power loss between a commit and its sync can corrupt the store on file systems that do not write pages in order (see Durability in the README); each: every commit synced on its own, on the event loop, before it is answered (default batch)",
  GREENLINE_RATE_LIMIT:
    'requests per minute per valid token to every route (the API, the dashboard, sign-in, unknown paths); per address without a valid token; over it, 429 with retry-after (default 6000)',
  GREENLINE_RETAIN_PRS_DAYS:
    'days ended PRs (merged, failed, cancelled), their timelines and ended test runs are kept (default 90; 0 keeps them forever)',
  GREENLINE_RETAIN_EVENTS_DAYS:
    'days queue event logs are kept; settings changes are kept for good (default 90; 0 forever)',
  GREENLINE_RETAIN_RESULTS_DAYS:
    'days flaky-test results (uploads, per-commit results, failures) are kept (default 30; 0 forever)',
  GREENLINE_RETAIN_DELIVERIES_DAYS:
    'days webhook delivery ids are kept to apply a redelivery once (default 30; 0 forever)',
  GREENLINE_RETENTION_SWEEP:
    'seconds between retention sweeps, which delete what is older in batches (default 3600; 0: no sweep)',
  GREENLINE_WEBHOOKS_ALLOW_PRIVATE:
    '1: outgoing webhook endpoints may be loopback, private or link-local addresses (tests, a private network that means it); refused otherwise, against SSRF (default 0)',
  GREENLINE_SCRAPE_RATE_LIMIT:
    'requests per minute per token (or address) to the metrics scrape and /healthz, /readyz (default 600)',
};

/** What `--help` says of the hosts, each as it declares it. */
export const HOSTS_HELP = HOSTS.flatMap((host) => (host.help === undefined ? [] : [host.help])).join('\n\n');
