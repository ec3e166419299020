/**
 * JUnit XML parsing (fast-xml-parser), covering what real runners write: a `testsuites` or a `testsuite` root,
 * suites nested at any depth, surefire's `flakyFailure`/`flakyError` (failed attempts of a test that then passed)
 * and `rerunFailure`/`rerunError` (further failed attempts of a failing test), several result elements in one test
 * case (the most severe counts), tst's `status="disabled"`, missing attributes, XML entities and character
 * references, CDATA, a byte-order mark and any unicode. A file that is not well-formed XML, or whose root is not a
 * JUnit element, is rejected with a ReportError naming the file.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** The outcome of one attempt (one `testcase` element, or one retry inside it). */
export type Outcome = 'passed' | 'failed' | 'error' | 'skipped';

/** One `testcase` element. */
export interface ParsedCase {
  name: string;
  classname: string;
  /** The `file` attribute of the case, else of the nearest suite that has one, else "". */
  file: string;
  /** The name of the suite the case sits in ("" when it has none). */
  parent: string;
  line?: number;
  durationMs?: number;
  /** The case's result: its most severe result element (error > failure > skipped), else passed. */
  outcome: Outcome;
  /** Failed attempts before this one, from `flakyFailure`/`flakyError`/`rerunFailure`/`rerunError`. */
  retriedFailures: number;
  /** Failure messages of this case, the case's own first, then its retries'. */
  messages: string[];
  /** True when the case has neither a name nor a classname: counted, but it cannot be told apart from others. */
  anonymous: boolean;
}

/** What suites declare for tests they do not list (a suite with counts and no `testcase`). */
export interface DeclaredCounts {
  tests: number;
  skipped: number;
  failures: number;
  errors: number;
}

export interface ParsedReport {
  file: string;
  /** Leaf suites: those with test cases or without child suites. */
  suites: number;
  cases: ParsedCase[];
  declared: DeclaredCounts;
}

export class ReportError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`report ${JSON.stringify(file)} is not a valid JUnit XML report: ${reason}`);
    this.name = 'ReportError';
  }
}

const ARRAY_TAGS = new Set([
  'testsuite',
  'testcase',
  'failure',
  'error',
  'skipped',
  'flakyFailure',
  'flakyError',
  'rerunFailure',
  'rerunError',
]);

const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const ENTITY = /&(?:(lt|gt|amp|quot|apos)|#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6}));/g;

/** Decodes XML's predefined entities and character references in one pass (so `&amp;#65;` stays `&#65;`). */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(
    ENTITY,
    (match, named: string | undefined, decimal: string | undefined, hex: string | undefined) => {
      if (named !== undefined) return NAMED_ENTITIES[named] ?? match;
      const codePoint = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex ?? '', 16);
      if (codePoint >= 0xd800 && codePoint <= 0xdfff) return '\ufffd'; // not a character: a lone surrogate
      return codePoint <= 0x10ffff && codePoint > 0 ? String.fromCodePoint(codePoint) : match;
    },
  );
}

const TEXT = '#text';
const CDATA = '#cdata';
const ATTRS = '$';

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  attributesGroupName: ATTRS,
  textNodeName: TEXT,
  cdataPropName: CDATA,
  // Entities are decoded by decodeEntities: the parser's own decoding leaves most character references as they are.
  processEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  removeNSPrefix: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  maxNestedTags: 256,
  isArray: (name, _path, _leaf, isAttribute) => !isAttribute && ARRAY_TAGS.has(name),
  tagValueProcessor: (_name, value) => decodeEntities(value),
  attributeValueProcessor: (_name, value) => decodeEntities(value),
});

type XmlNode = Record<string, unknown>;

const isNode = (value: unknown): value is XmlNode =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function children(node: XmlNode, tag: string): XmlNode[] {
  const value = node[tag];
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  // An empty element parses as "" without alwaysCreateTextNode.
  return list.map((item) => (isNode(item) ? item : { [TEXT]: typeof item === 'string' ? item : '' }));
}

function attr(node: XmlNode, name: string): string | undefined {
  const attrs = node[ATTRS];
  if (!isNode(attrs)) return undefined;
  const value = attrs[name];
  return typeof value === 'string' ? value : undefined;
}

function text(node: XmlNode): string {
  const parts: string[] = [];
  for (const key of [TEXT, CDATA]) {
    const value = node[key];
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'string' && item !== '') parts.push(item);
    }
  }
  return parts.join('\n').trim();
}

function count(node: XmlNode, name: string): number {
  const value = Number.parseInt(attr(node, name) ?? '', 10);
  return Number.isFinite(value) && value > 0 ? value : 0;
}

function seconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value.replace(/,/g, ''));
  return Number.isFinite(number) && number >= 0 ? Math.round(number * 1000) : undefined;
}

/** The first line worth showing of a result element: its message attribute, else its text. */
function messageOf(result: XmlNode): string {
  const message = (attr(result, 'message') ?? '').trim();
  if (message !== '') return message;
  const type = (attr(result, 'type') ?? '').trim();
  const body = text(result);
  const firstLine =
    body
      .split(/\r?\n/)
      .find((line) => line.trim() !== '')
      ?.trim() ?? '';
  return firstLine !== '' ? firstLine : type;
}

/**
 * The longest test name, class name, suite name and file path an upload may hold (characters): a test's identity is
 * made of them and each is stored with every test. A longer one rejects the report.
 */
export const MAX_IDENTITY_FIELD_CHARS = 1024;
/** Failure messages longer than this are cut before they are summarised (a summary is at most 300 characters). */
export const MAX_MESSAGE_CHARS = 4096;

function limited(file: string, what: string, value: string): string {
  if (value.length > MAX_IDENTITY_FIELD_CHARS) {
    throw new ReportError(
      file,
      `a ${what} is ${value.length} characters long; at most ${MAX_IDENTITY_FIELD_CHARS} are allowed`,
    );
  }
  return value;
}

function parseCase(node: XmlNode, parent: string, suiteFile: string, file: string): ParsedCase {
  const name = limited(file, 'test name', attr(node, 'name') ?? '');
  const classname = limited(file, 'test class name', attr(node, 'classname') ?? attr(node, 'class') ?? '');
  const errors = children(node, 'error');
  const failures = children(node, 'failure');
  const skipped = children(node, 'skipped');
  const status = (attr(node, 'status') ?? '').toLowerCase();
  let outcome: Outcome;
  if (errors.length > 0) outcome = 'error';
  else if (failures.length > 0) outcome = 'failed';
  else if (skipped.length > 0 || status === 'disabled' || status === 'notrun' || status === 'skipped')
    outcome = 'skipped';
  else outcome = 'passed';
  const retries = ['flakyFailure', 'flakyError', 'rerunFailure', 'rerunError'].flatMap((tag) => children(node, tag));
  const messages = [...(outcome === 'error' ? errors : outcome === 'failed' ? failures : []), ...retries]
    .map((result) => messageOf(result).slice(0, MAX_MESSAGE_CHARS))
    .filter((message) => message !== '');
  const line = Number.parseInt(attr(node, 'line') ?? '', 10);
  const parsed: ParsedCase = {
    name,
    classname,
    file: limited(file, 'test file path', attr(node, 'file') ?? attr(node, 'filepath') ?? suiteFile),
    parent: limited(file, 'suite name', parent),
    outcome,
    retriedFailures: retries.length,
    messages,
    anonymous:
      attr(node, 'name') === undefined && attr(node, 'classname') === undefined && attr(node, 'class') === undefined,
  };
  if (Number.isSafeInteger(line) && line >= 0) parsed.line = line;
  const durationMs = seconds(attr(node, 'time'));
  if (durationMs !== undefined) parsed.durationMs = durationMs;
  return parsed;
}

function walkSuite(suite: XmlNode, inheritedFile: string, out: ParsedReport): void {
  const name = attr(suite, 'name') ?? '';
  const file = attr(suite, 'file') ?? attr(suite, 'filepath') ?? inheritedFile;
  const inner = children(suite, 'testsuite');
  const cases = children(suite, 'testcase');
  for (const child of inner) walkSuite(child, file, out);
  for (const node of cases) out.cases.push(parseCase(node, name, file, out.file));
  if (cases.length > 0 || inner.length === 0) {
    out.suites += 1;
    if (cases.length === 0) {
      out.declared.tests += count(suite, 'tests');
      out.declared.skipped += count(suite, 'skipped') + count(suite, 'disabled');
      out.declared.failures += count(suite, 'failures');
      out.declared.errors += count(suite, 'errors');
    }
  }
}

function describeUnclosed(list: string): string {
  try {
    const tags = JSON.parse(list) as unknown;
    if (Array.isArray(tags) && tags.length > 0) return tags.map((tag) => `<${String(tag)}>`).join(', ');
  } catch {
    // fall through
  }
  return 'some elements';
}

/** Parses one report. Throws ReportError (naming `file`) when it is not well-formed JUnit XML. */
export function parseJUnitReport(file: string, xml: string): ParsedReport {
  const source = xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml;
  if (source.trim() === '') throw new ReportError(file, 'the file is empty');
  const valid = XMLValidator.validate(source);
  if (valid !== true) {
    const { line, col } = valid.err;
    const unclosed = /^Invalid '(\[.*\])' found\.$/.exec(valid.err.msg);
    const msg = unclosed ? `the file ends before ${describeUnclosed(unclosed[1] ?? '[]')} are closed` : valid.err.msg;
    const where =
      unclosed || line === undefined ? '' : col === undefined ? ` (line ${line})` : ` (line ${line}, column ${col})`;
    throw new ReportError(file, `not well-formed XML: ${msg}${where}`);
  }
  let document: XmlNode;
  try {
    document = parser.parse(source) as XmlNode;
  } catch (error) {
    throw new ReportError(file, `not well-formed XML: ${(error as Error).message}`);
  }
  const report: ParsedReport = {
    file,
    suites: 0,
    cases: [],
    declared: { tests: 0, skipped: 0, failures: 0, errors: 0 },
  };
  const roots = Object.keys(document).filter((key) => key !== TEXT && key !== CDATA);
  const root = roots[0];
  if (root === 'testsuites') {
    const [node] = children(document, 'testsuites');
    for (const suite of children(node ?? {}, 'testsuite')) walkSuite(suite, attr(node ?? {}, 'file') ?? '', report);
  } else if (root === 'testsuite') {
    const [node] = children(document, 'testsuite');
    if (node !== undefined) walkSuite(node, '', report);
  } else {
    throw new ReportError(
      file,
      root === undefined ? 'it has no root element' : `the root element is <${root}>, not <testsuites> or <testsuite>`,
    );
  }
  return report;
}
