/**
 * A Slack incoming webhook's message for an event: Block Kit (a section with the event in mrkdwn, a context line
 * with the reason and the time) and a plain `text` fallback, which Slack shows in notifications. Text from outside
 * (titles, reasons, test names) is escaped as Slack asks (&, <, >), so it cannot make links or mentions.
 */
import type { PullRequestEventData, QueueEventData, TestEventData, WebhookEvent } from './events.js';

const mrkdwn = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

const HEADINGS: Record<WebhookEvent['type'], string> = {
  'pull_request.submitted': ':inbox_tray: Submitted',
  'pull_request.testing': ':hourglass_flowing_sand: Testing',
  'pull_request.passed': ':large_green_circle: Tests passed',
  'pull_request.merged': ':white_check_mark: Merged',
  'pull_request.failed': ':x: Removed: failed',
  'pull_request.cancelled': ':no_entry_sign: Cancelled',
  'queue.state_changed': ':traffic_light: Queue',
  'test.flaky': ':warning: Test became flaky',
  'test.broken': ':rotating_light: Test became broken',
  'test.quarantined': ':lock: Test quarantined',
};

function prLink(data: PullRequestEventData): string {
  const { repo } = data.queue;
  const name = `${repo.owner}/${repo.name}#${data.pr.number}`;
  // A link only where the host is a web host (a name with a dot); the text is escaped, the URL parts are not user prose.
  if (!repo.host.includes('.')) return mrkdwn(name);
  const url = `https://${repo.host}/${encodeURI(repo.owner)}/${encodeURI(repo.name)}/pull/${data.pr.number}`;
  return `<${url}|${mrkdwn(name)}>`;
}

function lines(event: WebhookEvent): { main: string; detail: string | undefined } {
  const heading = HEADINGS[event.type];
  if (event.type.startsWith('pull_request.')) {
    const data = event.data as PullRequestEventData;
    const title = data.pr.title === '' ? '' : ` ${mrkdwn(data.pr.title)}`;
    const main = `*${heading}* ${prLink(data)}${title} → \`${mrkdwn(data.queue.targetBranch)}\``;
    return { main, detail: data.pr.reason === null ? undefined : mrkdwn(data.pr.reason) };
  }
  if (event.type === 'queue.state_changed') {
    const data = event.data as QueueEventData;
    const { repo } = data.queue;
    return {
      main: `*${heading}* ${mrkdwn(`${repo.owner}/${repo.name}`)} \`${mrkdwn(data.queue.targetBranch)}\` is now *${data.state}* (was ${data.previousState})`,
      detail: undefined,
    };
  }
  const data = event.data as TestEventData;
  return {
    main: `*${heading}* \`${mrkdwn(data.test.name)}\` in ${mrkdwn(`${data.repo.owner}/${data.repo.name}`)}`,
    detail: mrkdwn(data.test.reason),
  };
}

/** The JSON body posted to a Slack incoming webhook for the event. */
export function slackBody(event: WebhookEvent): string {
  const { main, detail } = lines(event);
  const context = [
    detail,
    `<!date^${Math.floor(Date.parse(event.timestamp) / 1000)}^{date_short_pretty} {time}|${event.timestamp}>`,
  ].filter((x) => x !== undefined);
  return JSON.stringify({
    text: main,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: main } },
      { type: 'context', elements: context.map((text) => ({ type: 'mrkdwn', text })) },
    ],
  });
}
