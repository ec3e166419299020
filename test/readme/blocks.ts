/**
 * The shell blocks of a markdown file, in order: each ```sh fence, with the line it starts on. A block right after
 * `<!-- readme-test: skip: REASON -->` is not run, for the reason given.
 */
export interface ShellBlock {
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  skip?: string;
}

const MARKER = /^<!-- readme-test: skip: (.+?) -->$/;

export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  let pendingSkip: { reason: string; line: number } | undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const marker = MARKER.exec(line.trim());
    if (marker !== null) {
      pendingSkip = { reason: marker[1]!, line: index + 1 };
      continue;
    }
    const fence = /^(```+)(\S*)\s*$/.exec(line);
    if (fence === null) {
      if (line.trim() !== '' && pendingSkip !== undefined) {
        throw new Error(`line ${pendingSkip.line}: a readme-test marker must come right before a shell block`);
      }
      continue;
    }
    const close = lines.findIndex((candidate, at) => at > index && candidate.trim() === fence[1]);
    if (close < 0) throw new Error(`line ${index + 1}: a code block that never closes`);
    if (fence[2] === 'sh' || fence[2] === 'bash') {
      blocks.push({
        line: index + 1,
        code: lines.slice(index + 1, close).join('\n'),
        ...(pendingSkip === undefined ? {} : { skip: pendingSkip.reason }),
      });
    } else if (pendingSkip !== undefined) {
      throw new Error(`line ${pendingSkip.line}: a readme-test marker before a ${fence[2] || 'plain'} block`);
    }
    pendingSkip = undefined;
    index = close;
  }
  return blocks;
}

/** One bash script running the blocks in order, in one shell, stopping at the first command that fails. */
export function scriptOf(blocks: readonly ShellBlock[]): string {
  const parts = [
    'set -eEuo pipefail',
    `trap 'echo "::readme-failed line=$README_BLOCK command=$BASH_COMMAND" >&2' ERR`,
  ];
  for (const block of blocks) {
    if (block.skip !== undefined) continue;
    parts.push(`README_BLOCK=${block.line}; printf "\\n::readme-block line=%s\\n" ${block.line}`, block.code);
  }
  parts.push(`printf "\\n::readme-done\\n"`);
  return `${parts.join('\n')}\n`;
}
