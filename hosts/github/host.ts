/** GREENLINE_PROVIDER=github: Greenline as a GitHub App (docs/github.md; engine/providers/github/), declared for the registry (../index.ts). */
import { readFileSync } from 'node:fs';
import { defineHost } from '../hostPlugin.js';
import { GITHUB_WEBHOOKS_PATH, gitHubWebhookRoute } from './webhookRoute.js';

export interface GitHubConfig {
  appId: string;
  privateKey: string;
  /** Where the private key was read from (a warning names it when others may read it). */
  privateKeyFile: string;
  webhookSecret: string;
  apiUrl: string;
  /** The host name queues use in `repo.host`: github.com for api.github.com, else the API's host. */
  hostName: string;
}

const REQUIRED = [
  'GREENLINE_GITHUB_APP_ID',
  'GREENLINE_GITHUB_PRIVATE_KEY_FILE',
  'GREENLINE_GITHUB_WEBHOOK_SECRET',
] as const;

export const gitHubHostPlugin = defineHost<{ github: GitHubConfig }>({
  name: 'github',
  summary: 'github (a GitHub App)',
  environment: {
    GREENLINE_GITHUB_APP_ID: "GREENLINE_PROVIDER=github: the GitHub App's id",
    GREENLINE_GITHUB_PRIVATE_KEY_FILE:
      "GREENLINE_PROVIDER=github: the App's private key (a .pem file GitHub generated)",
    GREENLINE_GITHUB_WEBHOOK_SECRET: `GREENLINE_PROVIDER=github: the App's webhook secret (deliveries arrive at POST ${GITHUB_WEBHOOKS_PATH})`,
    GREENLINE_GITHUB_API_URL:
      'GREENLINE_PROVIDER=github: the REST API (default https://api.github.com; https://HOST/api/v3 for Enterprise Server)',
    GREENLINE_GITHUB_HOST:
      "GREENLINE_PROVIDER=github: the repo.host of its queues (default github.com, or the API URL's host)",
  },
  schema: (z) => ({
    GREENLINE_GITHUB_APP_ID: z
      .string()
      .regex(/^\d{1,12}$/, 'an App id is a number')
      .optional(),
    GREENLINE_GITHUB_PRIVATE_KEY_FILE: z.string().optional(),
    GREENLINE_GITHUB_WEBHOOK_SECRET: z.string().optional(),
    GREENLINE_GITHUB_API_URL: z.url({ protocol: /^https?$/ }).default('https://api.github.com'),
    GREENLINE_GITHUB_HOST: z
      .string()
      .regex(/^[a-z0-9.-]+$/i, 'a host name')
      .optional(),
  }),
  help: `GitHub mode (GREENLINE_PROVIDER=github): Greenline is a GitHub App; deliveries arrive at POST ${GITHUB_WEBHOOKS_PATH}, PRs
are queued with a comment "/greenline merge" (or the API). The App manifest and the setup: docs/github.md.`,

  configure(values) {
    const missing = REQUIRED.filter((name) => values[name] === undefined);
    if (missing.length > 0)
      throw new Error(`GREENLINE_PROVIDER=github needs ${missing.join(', ')} (see docs/github.md)`);
    const keyFile = values.GREENLINE_GITHUB_PRIVATE_KEY_FILE as string;
    let privateKey: string;
    try {
      privateKey = readFileSync(keyFile, 'utf8');
    } catch (error) {
      throw new Error(`GREENLINE_GITHUB_PRIVATE_KEY_FILE: cannot read ${keyFile}: ${(error as Error).message}`);
    }
    if (!/-----BEGIN (RSA )?PRIVATE KEY-----/.test(privateKey))
      throw new Error(`GREENLINE_GITHUB_PRIVATE_KEY_FILE: ${keyFile} is not a PEM private key`);
    const apiUrl = (values.GREENLINE_GITHUB_API_URL as string).replace(/\/+$/, '');
    const apiHost = new URL(apiUrl).host;
    const hostName =
      (values.GREENLINE_GITHUB_HOST as string | undefined) ?? (apiHost === 'api.github.com' ? 'github.com' : apiHost);
    return {
      github: {
        appId: values.GREENLINE_GITHUB_APP_ID as string,
        privateKey,
        privateKeyFile: keyFile,
        webhookSecret: values.GREENLINE_GITHUB_WEBHOOK_SECRET as string,
        apiUrl,
        hostName,
      },
    };
  },

  async open({ github }, context) {
    // Loaded when chosen: Octokit and the webhooks library are not for the other hosts' starts.
    const [{ GitHubApp }, { GitHubHost }, { GitHubWebhookReceiver }, { sharedSecretWarning }] = await Promise.all([
      import('../../engine/providers/github/client.js'),
      import('../../engine/providers/github/githubHost.js'),
      import('../../engine/providers/github/webhookReceiver.js'),
      import('../../engine/store/fileModes.js'),
    ]);
    const app = new GitHubApp({ appId: github.appId, privateKey: github.privateKey, baseUrl: github.apiUrl });
    const gitHost = new GitHubHost(app);
    const shared = sharedSecretWarning(github.privateKeyFile, "the GitHub App's private key");
    return {
      gitHost,
      ...(context.simCi === undefined ? {} : { ci: context.simCi }),
      where: `GitHub App ${github.appId} on ${github.apiUrl}, webhooks at ${GITHUB_WEBHOOKS_PATH}`,
      warnings: shared === undefined ? [] : [shared],
      connect(engine, onError) {
        const receiver = new GitHubWebhookReceiver(
          engine,
          app,
          gitHost,
          github.webhookSecret,
          github.hostName,
          onError,
          { publicUrl: context.publicUrl },
        );
        return { routes: [gitHubWebhookRoute(receiver)], start: () => receiver.start(), stop: () => receiver.stop() };
      },
      close: async () => {},
    };
  },
});
