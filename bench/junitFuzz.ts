/** Hostile JUnit files for the fuzzer (fuzzCore.ts): entity expansion, deep nesting, gigantic attributes, odd bytes. */
import fc from 'fast-check';

const laughs = `<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]><testsuite name="&d;"><testcase classname="c" name="&d;"/></testsuite>`;
const external = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><testsuite><testcase classname="c" name="&e;"/></testsuite>`;
const deep = (n: number) =>
  `${'<testsuite name="s">'.repeat(n)}<testcase classname="c" name="t"/>${'</testsuite>'.repeat(n)}`;

/** Valid JUnit the mutations start from. */
const base = fc
  .array(
    fc.record({
      name: fc.string({ maxLength: 20 }),
      classname: fc.string({ maxLength: 20 }),
      outcome: fc.constantFrom('', '<failure message="m"/>', '<error/>', '<skipped/>', '<flakyFailure/>'),
    }),
    { maxLength: 8 },
  )
  .map(
    (cases) =>
      `<testsuites><testsuite name="s">${cases.map((c) => `<testcase classname="${escapeXml(c.classname)}" name="${escapeXml(c.name)}">${c.outcome}</testcase>`).join('')}</testsuite></testsuites>`,
  );

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
}

export const hostileJunit: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    laughs,
    external,
    deep(100_000),
    deep(1000),
    '',
    '<',
    '<testsuite',
    '<?xml version="1.0"?>',
    '<testsuite><testcase/></testsuite>',
  ),
  fc.constant(`<testsuite><testcase classname="c" name="${'x'.repeat(2_000_000)}"/></testsuite>`),
  fc.constant(
    `<testsuite><testcase classname="c" name="t"><failure message="${'m'.repeat(5_000_000)}"/></testcase></testsuite>`,
  ),
  fc.constant(`<testsuite>${'<testcase classname="c" name="t" '.concat('a="1" '.repeat(50_000), '/>')}</testsuite>`),
  fc.constant('<testsuite><testcase classname="\ud800" name="\u0000\uffff"/></testsuite>'),
  base,
  fc
    .tuple(base, fc.nat(), fc.string({ unit: 'binary', maxLength: 30 }))
    .map(([xml, at, junk]) => xml.slice(0, at % (xml.length + 1)) + junk + xml.slice(at % (xml.length + 1))),
  fc.string({ unit: 'binary', maxLength: 300 }),
);
