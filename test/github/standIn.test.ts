/** The stand-in's own check: what GitHub would reject, or could not answer, is caught. */
import { describe, expect, test } from 'vitest';
import { GitHubOpenApi } from './githubOpenApi.js';
import { GitHubStandIn } from './standIn.js';

describe("the GitHub stand-in checks exchanges against GitHub's OpenAPI description", () => {
  const api = new GitHubOpenApi();

  test('operations are found by method and path, literal segments first, encoded slashes in parameters', () => {
    expect(api.match('POST', '/repos/o/r/git/refs')?.operationId).toBe('git/create-ref');
    expect(api.match('PATCH', '/repos/o/r/git/refs/heads%2Fgreenline%2Fmain%2Ftr_1')).toMatchObject({
      operationId: 'git/update-ref',
      params: { owner: 'o', repo: 'r', ref: 'heads/greenline/main/tr_1' },
    });
    expect(api.match('GET', '/repos/o/r/no-such-thing')).toBeUndefined();
  });

  test('request bodies GitHub would reject, and responses it could not send, are named', () => {
    const updateRef = api.match('PATCH', '/repos/o/r/git/refs/heads%2Fmain')!;
    expect(api.checkRequest(updateRef, { sha: 'abc', force: false })).toBeUndefined();
    expect(api.checkRequest(updateRef, { force: 'yes' })).toMatch(/sha|force/);
    expect(api.checkResponse(updateRef, 200, { ref: 'refs/heads/main' })).toMatch(/required property/);
    expect(api.checkResponse(updateRef, 418, undefined)).toMatch(/not documented/);
  });

  test('a request GitHub would reject is answered 422 and recorded as a violation', async () => {
    const github = new GitHubStandIn('unused');
    await github.listen();
    try {
      const response = await fetch(`${github.url}/repos/Codertocat/Hello-World/git/refs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ref: 'refs/heads/x' }),
      });
      expect(response.status).toBe(422);
      await fetch(`${github.url}/repos/Codertocat/Hello-World/made-up`);
      expect(github.violations).toHaveLength(2);
      expect(github.violations[0]).toMatch(/GitHub would reject the request: .*sha/);
      expect(github.violations[1]).toMatch(/no such operation/);
    } finally {
      await github.close();
    }
  });
});
