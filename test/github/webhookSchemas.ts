/**
 * GitHub's webhook payloads as a validator, from its official description (`@octokit/openapi-webhooks`, OpenAPI
 * 3.1): each delivery the tests send, after whatever edits the test made to GitHub's example, must be a payload GitHub
 * could send for its event and action (`issue_comment` + `created` is `issue-comment-created`).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats = addFormatsModule as unknown as AddFormats;

interface Document {
  webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: unknown } } } } }>;
  components: Record<string, unknown>;
}

export class GitHubWebhookSchemas {
  private readonly document: Document;
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor() {
    const require = createRequire(import.meta.url);
    this.document = JSON.parse(
      readFileSync(require.resolve('@octokit/openapi-webhooks/generated/api.github.com.json'), 'utf8'),
    ) as Document;
    // GitHub's own keywords and examples are not JSON Schema.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, discriminator: false });
    addFormats(this.ajv);
    this.ajv.addSchema({ components: this.document.components }, 'webhooks');
  }

  /**
   * Why GitHub could not send this payload for the event, leaving out what `baseline` (the example it was made from)
   * has wrong already: GitHub's examples predate fields its description now requires, so what is checked is that an
   * edit made nothing GitHub could not send. Undefined when nothing is wrong.
   */
  check(name: string, payload: unknown, baseline?: unknown): string | undefined {
    const known = baseline === undefined ? new Set<string>() : new Set(this.problems(name, baseline));
    const problems = this.problems(name, payload).filter((problem) => !known.has(problem));
    return problems.length === 0 ? undefined : problems.slice(0, 4).join('; ');
  }

  private problems(name: string, payload: unknown): string[] {
    const action = (payload as { action?: unknown } | null)?.action;
    const base = name.replace(/_/g, '-');
    const key =
      typeof action === 'string' && this.document.webhooks[`${base}-${action.replace(/_/g, '-')}`] !== undefined
        ? `${base}-${action.replace(/_/g, '-')}`
        : base;
    const hook = this.document.webhooks[key];
    if (hook === undefined) return [`no webhook ${key} in GitHub's description`];
    let validate = this.validators.get(key);
    if (validate === undefined) {
      const schema = JSON.parse(
        JSON.stringify(hook.post.requestBody.content['application/json'].schema).replace(
          /"\$ref":"#\/components\//g,
          '"$ref":"webhooks#/components/',
        ),
      );
      validate = this.ajv.compile(schema);
      this.validators.set(key, validate);
    }
    if (validate(payload)) return [];
    return (validate.errors ?? []).map((error) => `${error.instancePath || '(payload)'} ${error.message ?? ''}`);
  }
}

let shared: GitHubWebhookSchemas | undefined;

/** One validator for the process (compiling GitHub's description takes a while). */
export function webhookSchemas(): GitHubWebhookSchemas {
  shared ??= new GitHubWebhookSchemas();
  return shared;
}
