/**
 * What `greenline --help` says of each command, apart from the commands' code: help (and --version) load this file
 * and nothing of the service (commands.ts loads a command's module only when it runs).
 */

export const BACKUP_HELP = `  greenline backup --to FILE             a consistent, compacted copy of the store, taken while the service runs;
                                         written 0600, with its SHA-256 in FILE.sha256
  greenline restore --from FILE          put a backup into an empty data folder (then start the service on it), once
                                         it matches FILE.sha256 and its length and header check
                                         (with GREENLINE_STORE=postgres://… both work on that database instead)
  greenline migrate --from DATA_DIR --to postgres://…
                                         copy a data folder's store (LMDB) into an empty PostgreSQL database`;

export const REPLAY_HELP = `  greenline replay LOG [--json]          feed a queue's event log (sim --out, or greenline events) back through the
                                         engine; reports the first event whose outcome differs (exit 1)
  greenline events --repo REPO [--branch NAME] [--org ORG] [--out FILE]
                                         export a queue's event log from the data folder (--data), for replay
                                         (default branch main, organization default; stdout unless --out)`;

export const SIM_HELP = `  greenline sim SCENARIO.json [--seed N] [--json] [--out DIR] [--recommend [--budget RUNS_PER_MERGE]]
                                         simulate a scenario's queue configurations on the real engine (virtual
                                         clock), beside the oracle and single-queue baselines; prints a table
      --seed N           the seed of the workload and CI (default: the scenario's, else 1)
      --json             print the report as JSON instead of a table
      --out DIR          also write report.json, charts (SVG), index.html and event logs (events/*.jsonl; the
                         single-queue baseline's in events/baselines/)
      --recommend        search the settings (mode, concurrency, batching, anti-flake, optimizationMode, adaptive
                         window, parallel bases) for the best P50 time to merge among those that keep up with
                         the load, and print it with the runners-up and why (or say that none keeps up)
      --budget N         with --recommend: at most N CI runs per merged PR
  greenline sim --from-queue HOST/OWNER/NAME@BRANCH | --from-log FILE [--write-scenario FILE] [--recommend]
                                         fit the workload to a queue's history (the data folder, or PostgreSQL
                                         with GREENLINE_STORE; or an exported event log) and print it with 95 %
                                         intervals; --recommend compares the current settings with the pick
      --write-scenario FILE  write the fitted scenario (for greenline sim FILE)
      --org ORG          the queue's organization (default: default)`;

export const UPLOAD_HELP = `  greenline upload --junit GLOB --repo REPO --sha SHA [options]
                                         upload JUnit XML reports of a CI job for flaky-test detection
      --junit GLOB       report files, e.g. 'reports/**/*.xml' (quote it; several globs: comma-separated)
      --repo REPO        host/owner/name, owner/name (host github.com) or the repository's https URL
      --sha SHA          the commit the tests ran on
      --branch NAME      the branch (default: $GITHUB_HEAD_REF, $GITHUB_REF_NAME, else main)
      --pr NUMBER        the pull request, when the job ran for one
      --variant NAME     the environment (OS, matrix cell) when one test runs in several
      --codeowners FILE  a CODEOWNERS file to upload with the reports
      --repo-root DIR    the repository's root on this runner: absolute test paths under it (mocha writes them)
                         are stored relative to it (default: the git work tree around the current folder, else it)
      --org SLUG         the organization (default: the token's)
      --url URL          the service (default: $GREENLINE_URL, else http://127.0.0.1:8080)
      --token TOKEN      the API token (default: $GREENLINE_TOKEN)`;

export const SESSION_HELP = `  greenline session rotate-key           a new key for dashboard sessions (GREENLINE_SESSION_KEY_FILE, else
                                         session.key in the data folder): every session ends at once, running
                                         service included; people sign in again`;

export const CHARTS_HELP =
  '  greenline charts [--out DIR]           write every lifecycle machine as Mermaid and SVG (default ./charts)';

export const SERVE_HELP =
  '  greenline serve                        run the service and its web dashboard at / (what npm start runs)';

export const TOKEN_HELP = `  greenline token create --org NAME [--scope read|write|admin]
                                         add an API token for an organization; prints the token once. read: queues,
                                         PRs, runs, metrics, flaky-test listings; write: also PR operations, statuses,
                                         impacted targets, uploads; admin (the default): also queue create, update,
                                         delete. Beyond its scope a call is 403 insufficient_scope
  greenline token list                   list tokens: id, organization, source, creation time, scope (never the token)
  greenline token revoke ID              remove a token`;

export const LOGIN_HELP = `  greenline login [--url URL] [--scope read|write|admin]
                                         sign this terminal in to a service (device authorization, RFC 8628): shows a
                                         code to enter at URL/device, signed in to the dashboard; keeps the token it
                                         gets in ~/.config/greenline/credentials.json (0600) for the commands below
  greenline logout [--url URL]           forget that token`;

export const CLIENT_HELP = `  greenline pr submit|cancel|restart|show NUMBER [--priority P] [--no-batch] [--timeline]
  greenline queue show|pause|resume|drain|create|delete
                                         the API from a terminal, with its words: submitPullRequest, cancelPullRequest,
                                         restartTestsOnPullRequest, getSubmittedPullRequest, getQueue, updateQueue
                                         (state), createQueue, deleteQueue; prints the answer as JSON
      --repo REPO        host/owner/name or owner/name (default: $GREENLINE_REPO, else the git remote origin)
      --branch NAME      the queue's branch (default: $GREENLINE_BRANCH, else main)
      --url URL          the service (default: $GREENLINE_URL, else the login's, else http://127.0.0.1:8080)
      --token TOKEN      the API token (default: $GREENLINE_TOKEN, else the login's)`;

export const CONFORMANCE_HELP = `  greenline conformance --url URL --token TOKEN [options]
                                         run the conformance suite generated from the lifecycle machines against a
                                         server of this API: paths to every state and edge, interleavings of many
                                         PRs with the safety properties (when it can steer CI through
                                         setCommitStatus), the spec's schemas, ranges, errors and paging; prints
                                         coverage and each failure as curl commands. Uses queues of repository
                                         github.com/conformance/widgets (an admin token), deleted afterwards
      --url URL          the service (default: $GREENLINE_URL, else http://127.0.0.1:8080)
      --token TOKEN      an admin API token (default: $GREENLINE_TOKEN)
      --runs N           interleavings to try (default 50)
      --seed N           their seed (default 1: the same run every time)
      --all-paths        every path of the transition cover (default: those that add an edge)
      --only PARTS       paths, interleavings, spec (comma-separated; default: all)
      --wait SECONDS     how long a state may take to be reached before it is a failure (default 30)
      --junit FILE       also write a JUnit XML report
      --verbose          list every edge not reachable through the API`;
