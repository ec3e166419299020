/**
 * Words a page breaks in the middle (at a narrow width): every word of letters in the page's text (tables included:
 * a table too wide scrolls sideways in its box rather than breaking its words), outside drawings and code, whose
 * letters the browser laid out on more than one line.
 */
import type { Page } from 'playwright-core';

const SCRIPT = `(() => {
  const broken = [];
  const walker = document.createTreeWalker(document.querySelector('main') || document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (parent === null || parent.closest('svg, code, script, style, .visually-hidden, details:not([open]) > :not(summary)')) continue;
    for (const match of node.textContent.matchAll(/[A-Za-z]{2,}/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const tops = new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)));
      if (tops.size > 1) broken.push(match[0]);
    }
  }
  return broken;
})()`;

export function brokenWords(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(SCRIPT);
}
