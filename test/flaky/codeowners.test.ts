/** CODEOWNERS matching (GitHub's rules) and failure-message normalisation. */
import { describe, expect, test } from 'vitest';
import { normalizeFailureMessage, ownersOf, parseCodeowners } from '../../engine/flaky/index.js';

describe('CODEOWNERS', () => {
  // The example of GitHub's documentation, abridged.
  const rules = parseCodeowners(`# This is a comment.
*       @global-owner1 @global-owner2
*.js    @js-owner #This is an inline comment.
*.go docs@example.com
*.txt @octo-org/octocats
/build/logs/ @doctocat
docs/*  docs@example.com
apps/ @octocat
/docs/ @doctocat
/scripts/ @doctocat @octocat
**/logs @octocat
/apps/ @octocat
/apps/github
!negated @nobody
[ab].js @nobody
`);

  test.each([
    ['README.md', ['@global-owner1', '@global-owner2']],
    ['src/index.js', ['@js-owner']],
    ['main.go', ['docs@example.com']],
    ['build/logs/x.log', ['@octocat']], // `**/logs` comes after `/build/logs/`: the last match wins
    ['docs/getting-started.md', ['@doctocat']],
    ['docs/build-app/troubleshooting.md', ['@doctocat']],
    ['nested/apps/x.py', ['@octocat']],
    ['apps/github/x.rb', []], // a matching line without owners: no owners
    ['/scripts/deploy.sh', ['@doctocat', '@octocat']],
    ['./src/util.js', ['@js-owner']],
    ['', []],
  ])('%s → %j', (path, owners) => {
    expect(ownersOf(rules, path)).toEqual(owners);
  });

  test('an empty file owns nothing', () => {
    expect(ownersOf(parseCodeowners(''), 'a.js')).toEqual([]);
  });
});

describe('normalizeFailureMessage', () => {
  test.each([
    ['timeout after 5000ms', 'timeout after <n>ms'],
    ['at 2026-11-22T12:00:01.123Z the server said no', 'at <timestamp> the server said no'],
    ['deadline 2026-11-22 12:00:01+01:00 passed', 'deadline <timestamp> passed'],
    ['object at 0x7ffe1234 was freed', 'object at <address> was freed'],
    ['request 123e4567-e89b-12d3-a456-426614174000 failed', 'request <uuid> failed'],
    ['commit 9fceb02d0ae598e95dc970b74767f19372d61af8 missing', 'commit <hex> missing'],
    ['main.cpp:72: check_eq(3628800, 3628801)', 'main.cpp:<n>: check_eq(<n>, <n>)'],
    ['expected -1.5e3   but\n got 2', 'expected <n> but got <n>'],
    ['test_v2 failed', 'test_v2 failed'],
    ['', '(no failure message)'],
  ])('%j → %j', (message, normalized) => {
    expect(normalizeFailureMessage(message)).toBe(normalized);
  });

  test('long messages are cut', () => {
    expect(normalizeFailureMessage('x'.repeat(1000))).toHaveLength(300);
  });
});
