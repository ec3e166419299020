/** The webhook payloads the tests send are checked against GitHub's description after their edits. */
import { describe, expect, test } from 'vitest';
import { example } from './webhookExamples.js';
import { webhookSchemas } from './webhookSchemas.js';

describe("GitHub's webhook descriptions", () => {
  test('an edit that makes a payload GitHub could not send is named; the example as it is passes', () => {
    const original = example('issue_comment', 'created');
    expect(webhookSchemas().check('issue_comment', original, original)).toBeUndefined();
    const edited = structuredClone(original);
    edited.comment.body = 42;
    delete edited.issue.number;
    const problem = webhookSchemas().check('issue_comment', edited, original);
    expect(problem).toMatch(/\/comment\/body must be string/);
    expect(problem).toMatch(/\/issue must have required property 'number'/);
    expect(webhookSchemas().check('installation', { action: 'created', installation: { id: 1 } })).toMatch(
      /must have required property/,
    );
  });
});
