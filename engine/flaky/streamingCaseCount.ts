/**
 * The test-case limit of an upload, checked while its JSON body is still arriving: the bytes of each chunk are walked
 * once, the JSON's structure is followed (objects, arrays, strings and their escapes), and inside the strings at
 * `reports[*].xml` the `<testcase` start tags are counted as ingestLimits.ts counts them in the parsed text (outside
 * comments, CDATA sections, processing instructions and declarations). So an upload one case over the limit is
 * refused as soon as the chunk holding that case arrives, not after the whole body is read and parsed.
 *
 * The string's JSON escapes are undone before the tags are looked for (Go's encoder writes `<` as `\u003c`), so the
 * count is the one the parsed upload gives. Bytes are walked, not decoded text: every byte the walk looks for is
 * ASCII, and no byte of a multi-byte UTF-8 character is ASCII.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LT = 0x3c;

/** What, after a `<`, skips to where (as in ingestLimits.ts). */
const SKIPS: readonly (readonly [Buffer, Buffer])[] = [
  [Buffer.from('<!--'), Buffer.from('-->')],
  [Buffer.from('<![CDATA['), Buffer.from(']]>')],
  [Buffer.from('<?'), Buffer.from('?>')],
  [Buffer.from('<!'), Buffer.from('>')],
];
const TESTCASE = Buffer.from('<testcase');
/** The most bytes from a `<` needed to tell what it starts: `<![CDATA[`, or `<testcase` and the byte after it. */
const LOOKAHEAD = TESTCASE.length + 1;

/** Whether `data` holds `pattern` at `at`. */
function holds(data: Buffer, at: number, pattern: Buffer): boolean {
  if (at + pattern.length > data.length) return false;
  for (let i = 0; i < pattern.length; i++) if (data[at + i] !== pattern[i]) return false;
  return true;
}

/** After `<testcase`: whether the name ends there (as ingestLimits.ts: whitespace, `/`, `>` or the end of the text). */
function nameEnds(data: Buffer, at: number): boolean {
  const code = data[at];
  return (
    code === undefined ||
    code === 0x20 ||
    code === 0x09 ||
    code === 0x0a ||
    code === 0x0d ||
    code === 0x2f ||
    code === 0x3e
  );
}

/** `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`: the byte after the backslash → the byte it stands for. */
const ESCAPES = new Map<number, number>([
  [0x22, 0x22],
  [0x5c, 0x5c],
  [0x2f, 0x2f],
  [0x62, 0x08],
  [0x66, 0x0c],
  [0x6e, 0x0a],
  [0x72, 0x0d],
  [0x74, 0x09],
]);

/**
 * A JSON string's escapes undone, piece by piece (an escape cut by the end of a piece is finished by the next). A
 * `\uXXXX` of a character that is not ASCII becomes one byte 0x80: nothing looked for is, so its bytes do not matter.
 */
class JsonUnescaper {
  private partial: Buffer = Buffer.alloc(0);

  decode(piece: Buffer): Buffer {
    const data = this.partial.length === 0 ? piece : Buffer.concat([this.partial, piece]);
    this.partial = Buffer.alloc(0);
    let slash = data.indexOf(BACKSLASH);
    if (slash === -1) return data;
    const out = Buffer.allocUnsafe(data.length);
    let written = 0;
    let from = 0;
    while (slash !== -1) {
      written += data.copy(out, written, from, slash);
      const kind = data[slash + 1];
      if (kind === undefined || (kind === 0x75 && slash + 6 > data.length)) {
        this.partial = Buffer.from(data.subarray(slash));
        return out.subarray(0, written);
      }
      if (kind === 0x75) {
        const unit = Number.parseInt(data.toString('latin1', slash + 2, slash + 6), 16);
        out[written++] = Math.min(unit, 0x80);
        from = slash + 6;
      } else {
        out[written++] = ESCAPES.get(kind) ?? kind;
        from = slash + 2;
      }
      slash = data.indexOf(BACKSLASH, from);
    }
    written += data.copy(out, written, from);
    return out.subarray(0, written);
  }
}

/** Counts `<testcase` tags in the (JSON-escaped) text of one report's `xml`, fed in pieces. */
class XmlTagCounter {
  count = 0;
  /** The end of the region being skipped (a comment's `-->`…), or undefined between tags. */
  private skipEnd: Buffer | undefined;
  /** Bytes of the last piece held back: the start of a tag, or the part of a skip's end, the next piece completes. */
  private carry: Buffer = Buffer.alloc(0);
  private readonly unescaper = new JsonUnescaper();

  /** `last`: the string ends with this piece (what is held back then is not a tag). */
  feed(raw: Buffer, last: boolean): void {
    const piece = this.unescaper.decode(raw);
    const data = this.carry.length === 0 ? piece : Buffer.concat([this.carry, piece]);
    this.carry = Buffer.alloc(0);
    let at = 0;
    while (at < data.length) {
      if (this.skipEnd !== undefined) {
        const end = data.indexOf(this.skipEnd, at);
        if (end === -1) {
          if (!last) this.carry = Buffer.from(data.subarray(Math.max(at, data.length - (this.skipEnd.length - 1))));
          return;
        }
        at = end + this.skipEnd.length;
        this.skipEnd = undefined;
        continue;
      }
      const lt = data.indexOf(LT, at);
      if (lt === -1) return;
      if (!last && data.length - lt < LOOKAHEAD) {
        // Too near the end of the piece to tell what it starts: looked at again with the next one.
        this.carry = Buffer.from(data.subarray(lt));
        return;
      }
      const skip = SKIPS.find(([open]) => holds(data, lt, open));
      if (skip !== undefined) {
        this.skipEnd = skip[1];
        at = lt + skip[0].length;
      } else if (holds(data, lt, TESTCASE) && nameEnds(data, lt + TESTCASE.length)) {
        this.count += 1;
        at = lt + TESTCASE.length;
      } else {
        at = lt + 1;
      }
    }
  }
}

type Frame = { type: 'object'; key: string | undefined } | { type: 'array' };

/**
 * Follows an upload's JSON body chunk by chunk and counts the test cases of its reports so far (`count`). A body that
 * is not JSON is left to the parser to refuse: the walk goes on without counting anything wrong.
 */
export class StreamingCaseCounter {
  private readonly stack: Frame[] = [];
  private inString = false;
  private stringIsKey = false;
  /** A backslash ended the last chunk inside a string: the next byte is escaped. */
  private escaped = false;
  /** The key being read (only short ones are kept: the keys that matter are `reports` and `xml`). */
  private key: number[] | undefined;
  private xml: XmlTagCounter | undefined;
  private counted = 0;

  /** Test cases seen so far in every report's `xml`. */
  get count(): number {
    return this.counted + (this.xml?.count ?? 0);
  }

  /** Whether the string starting now is a report's `xml`: the stack is [{reports}, [ ], {xml}]. */
  private atXml(): boolean {
    const [top, list, report] = this.stack;
    return (
      this.stack.length === 3 &&
      top?.type === 'object' &&
      top.key === 'reports' &&
      list?.type === 'array' &&
      report?.type === 'object' &&
      report.key === 'xml'
    );
  }

  write(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.inString) {
        at = this.inStringBytes(chunk, at);
        continue;
      }
      const code = chunk[at] as number;
      at += 1;
      if (code === QUOTE) {
        const top = this.stack.at(-1);
        this.inString = true;
        this.stringIsKey = top?.type === 'object' && top.key === undefined;
        this.key = this.stringIsKey ? [] : undefined;
        this.xml = !this.stringIsKey && this.atXml() ? new XmlTagCounter() : undefined;
      } else if (code === 0x7b) {
        this.stack.push({ type: 'object', key: undefined });
      } else if (code === 0x5b) {
        this.stack.push({ type: 'array' });
      } else if (code === 0x7d || code === 0x5d) {
        this.stack.pop();
        this.valueEnded();
      } else if (code === 0x2c) {
        this.valueEnded();
      }
    }
  }

  /** After a value in an object (a `,` or the end of a nested value): the next string is a key again. */
  private valueEnded(): void {
    const top = this.stack.at(-1);
    if (top?.type === 'object') top.key = undefined;
  }

  /** Walks a string's bytes from `at`; returns where the walk stops (the end of the string, or of the chunk). */
  private inStringBytes(chunk: Buffer, at: number): number {
    let from = at;
    if (this.escaped) {
      this.escaped = false;
      from += 1;
    }
    let end = -1;
    let search = from;
    while (search < chunk.length) {
      const quote = chunk.indexOf(QUOTE, search);
      if (quote === -1) break;
      let backslashes = 0;
      while (quote - backslashes - 1 >= from && chunk[quote - backslashes - 1] === BACKSLASH) backslashes += 1;
      if (backslashes % 2 === 0) {
        end = quote;
        break;
      }
      search = quote + 1;
    }
    const stop = end === -1 ? chunk.length : end;
    if (end === -1) {
      let trailing = 0;
      while (stop - trailing - 1 >= from && chunk[stop - trailing - 1] === BACKSLASH) trailing += 1;
      this.escaped = trailing % 2 === 1;
    }
    const piece = chunk.subarray(at, stop);
    if (this.xml !== undefined) this.xml.feed(piece, end !== -1);
    else if (this.key !== undefined && this.key.length + piece.length <= 16) this.key.push(...piece);
    else this.key = undefined;
    if (end === -1) return chunk.length;
    this.inString = false;
    if (this.stringIsKey) {
      const top = this.stack.at(-1);
      if (top?.type === 'object') top.key = this.key === undefined ? '' : Buffer.from(this.key).toString('latin1');
    } else if (this.xml !== undefined) {
      this.counted += this.xml.count;
      this.xml = undefined;
    }
    return end + 1;
  }
}
