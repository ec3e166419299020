/**
 * Key validation and the byte encoding both stores order keys by.
 *
 * Each part is a tag byte followed by its body:
 *   number: 0x01, then the integer as 8 bytes big-endian (unsigned);
 *   string: 0x02, then its UTF-8 bytes, then 0x00 (strings may not contain NUL, so the terminator is unambiguous).
 * Comparing encodings byte by byte (memcmp, LMDB's default) gives exactly the documented order: the tag puts every
 * number before every string, big-endian integers compare numerically, terminated UTF-8 compares by bytes with a
 * shorter string first, and a key that is a proper prefix of another encodes to a proper byte prefix of it.
 * Because every part is self-delimiting, the keys that start with a prefix P are exactly those whose encoding starts
 * with encode(P): the range from encode(P) (inclusive) to the shortest byte string above all of its extensions.
 */
import { InvalidKeyError } from './store.js';
import type { Key, KeyPart, ScanOptions } from './store.js';

const TAG_NUMBER = 0x01;
const TAG_STRING = 0x02;
const TWO_32 = 0x1_0000_0000;
/** LMDB's default maximum key size; enforced for every store so that they all accept the same keys. */
export const MAX_KEY_BYTES = 1978;
const LONE_SURROGATE = /\p{Surrogate}/u;

function describe(part: unknown): string {
  if (typeof part === 'string') return JSON.stringify(part);
  return typeof part === 'number' || typeof part === 'bigint' || typeof part === 'boolean' ? String(part) : typeof part;
}

export function checkPart(part: unknown): asserts part is KeyPart {
  if (typeof part === 'string') {
    if (part.includes('\0')) throw new InvalidKeyError(`key part ${describe(part)} contains NUL`);
    if (LONE_SURROGATE.test(part)) throw new InvalidKeyError(`key part ${describe(part)} is not valid Unicode`);
    return;
  }
  if (typeof part === 'number' && Number.isSafeInteger(part) && part >= 0) return;
  throw new InvalidKeyError(`key part ${describe(part)} is not a string or a non-negative safe integer`);
}

export function checkKey(key: unknown): asserts key is Key {
  if (!Array.isArray(key) || key.length === 0) throw new InvalidKeyError('a key must be a non-empty array of parts');
  for (const part of key) checkPart(part);
}

/** Validates `key` and returns its encoding. `allowEmpty` is for a scan prefix, which may be `[]` (everything). */
export function encodeKey(key: unknown, allowEmpty = false): Buffer {
  if (allowEmpty && Array.isArray(key) && key.length === 0) return Buffer.alloc(0);
  checkKey(key);
  let size = 0;
  for (const part of key) size += typeof part === 'number' ? 9 : 2 + Buffer.byteLength(part, 'utf8');
  if (size > MAX_KEY_BYTES) throw new InvalidKeyError(`key is ${size} bytes encoded, more than ${MAX_KEY_BYTES}`);
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const part of key) {
    if (typeof part === 'number') {
      out[at] = TAG_NUMBER;
      out.writeUInt32BE(Math.floor(part / TWO_32), at + 1);
      out.writeUInt32BE(part % TWO_32, at + 5);
      at += 9;
    } else {
      out[at] = TAG_STRING;
      at += 1 + out.write(part, at + 1, 'utf8');
      out[at++] = 0;
    }
  }
  return out;
}

/** ASCII without NUL: its UTF-8 bytes are its code units, and it holds neither NUL nor a surrogate. */
function isPlainAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0 || code > 0x7f) return false;
  }
  return true;
}

/**
 * `encodeKey(key)` as a latin1 string (one code unit per byte), made without a Buffer when every string part is
 * ASCII, as keys almost always are: the memory store orders its rows by this string.
 */
export function encodeKeyLatin1(key: unknown): string {
  if (!Array.isArray(key) || key.length === 0) return latin1Of(encodeKey(key));
  let out = '';
  let size = 0;
  for (const part of key) {
    if (typeof part === 'number' && Number.isSafeInteger(part) && part >= 0) {
      const high = Math.floor(part / TWO_32);
      const low = part % TWO_32;
      out += String.fromCharCode(
        TAG_NUMBER,
        high >>> 24,
        (high >>> 16) & 0xff,
        (high >>> 8) & 0xff,
        high & 0xff,
        low >>> 24,
        (low >>> 16) & 0xff,
        (low >>> 8) & 0xff,
        low & 0xff,
      );
      size += 9;
    } else if (typeof part === 'string' && isPlainAscii(part)) {
      out += `\x02${part}\x00`;
      size += part.length + 2;
    } else {
      return latin1Of(encodeKey(key));
    }
  }
  if (size > MAX_KEY_BYTES) return latin1Of(encodeKey(key));
  return out;
}

const latin1Of = (bytes: Buffer): string => bytes.toString('latin1');

export function decodeKey(bytes: Uint8Array): KeyPart[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: KeyPart[] = [];
  let at = 0;
  while (at < buf.length) {
    const tag = buf[at];
    if (tag === TAG_NUMBER && at + 9 <= buf.length) {
      parts.push(buf.readUInt32BE(at + 1) * TWO_32 + buf.readUInt32BE(at + 5));
      at += 9;
    } else if (tag === TAG_STRING) {
      const end = buf.indexOf(0, at + 1);
      if (end < 0) throw new Error('corrupt key: unterminated string');
      parts.push(buf.toString('utf8', at + 1, end));
      at = end + 1;
    } else {
      throw new Error(`corrupt key: bad tag ${String(tag)} at byte ${at}`);
    }
  }
  return parts;
}

/** The encoded range a scan covers: `lower` inclusive, `upper` exclusive (absent: unbounded), or null when empty. */
export interface ByteRange {
  lower?: Buffer;
  upper?: Buffer;
}

/** A scan's range as latin1 strings (one code unit per byte, so `<` is byte order), as the memory store keys rows. */
export interface TextRange {
  lower?: string;
  upper?: string;
}

/** `scanRange(options)` as latin1 strings, made without Buffers for ASCII keys (see encodeKeyLatin1). */
export function scanRangeLatin1(options: ScanOptions = {}): TextRange | null {
  const { prefix, start, end, limit } = options;
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 0)) {
    throw new RangeError(`scan limit must be a non-negative integer, got ${String(limit)}`);
  }
  let lower: string | undefined;
  let upper: string | undefined;
  if (prefix !== undefined && !(Array.isArray(prefix) && prefix.length === 0)) {
    lower = encodeKeyLatin1(prefix);
    upper = prefixEndLatin1(lower);
  }
  if (start !== undefined) {
    const s = encodeKeyLatin1(start);
    if (lower === undefined || s > lower) lower = s;
  }
  if (end !== undefined) {
    const e = encodeKeyLatin1(end);
    if (upper === undefined || e < upper) upper = e;
  }
  if (lower !== undefined && upper !== undefined && lower >= upper) return null;
  const range: TextRange = {};
  if (lower !== undefined) range.lower = lower;
  if (upper !== undefined) range.upper = upper;
  return range;
}

/** The smallest string of bytes greater than every one starting with `p` (undefined if there is none). */
function prefixEndLatin1(p: string): string | undefined {
  let i = p.length - 1;
  while (i >= 0 && p.charCodeAt(i) === 0xff) i--;
  if (i < 0) return undefined;
  return p.slice(0, i) + String.fromCharCode(p.charCodeAt(i) + 1);
}

/** A range of latin1 strings as the bytes they stand for (LMDB and PostgreSQL compare keys as bytes). */
export function byteRange(range: TextRange): ByteRange {
  return {
    ...(range.lower !== undefined && { lower: Buffer.from(range.lower, 'latin1') }),
    ...(range.upper !== undefined && { upper: Buffer.from(range.upper, 'latin1') }),
  };
}

/** The encoded range a scan covers, as bytes: scanRangeLatin1's, so that every store shares one definition of it. */
export function scanRange(options: ScanOptions = {}): ByteRange | null {
  const range = scanRangeLatin1(options);
  return range === null ? null : byteRange(range);
}
