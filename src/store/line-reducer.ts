/**
 * Lines split out of a stream of chunks, each long one reduced as it passes: every JSON string
 * value past `keptStringBytes` is cut there (at a whole character, never inside an escape) and
 * ends in CUT_MARK, so a 50 MB tool input becomes a line of a few kilobytes that still parses,
 * the whole is never in memory, and a reader tells a cut text from a whole one. Each line says where it starts in the stream and how long it really is, so its whole
 * can be read again from there, a piece at a time.
 */
const LF = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const U = 0x75;
/** What ends a cut string once parsed: U+FFFF, a noncharacter, which no text of a session holds. */
export const CUT_MARK = "\uffff";
const CUT_ESCAPE = Buffer.from("\\uffff");

export interface ReduceLimits {
  /** Lines up to this long are kept whole. */
  lineBytes: number;
  /** What a longer line keeps of each string value… */
  keptStringBytes: number;
  /** …but of Claude's text and thinking (`"text":`, `"thinking":`), shown whole as markdown, this much. */
  keptTextBytes: number;
}

/**
 * What a reader reads of a long line: a first view (a page, a replay) at most 16 KB of each string
 * of a line over 64 KB, "Show all" 256 KB of each string of a line over 1 MB; Claude's own text
 * and thinking, shown whole as markdown, up to 4 MB.
 */
export const FIRST_VIEW_LIMITS: ReduceLimits = {
  lineBytes: 64 << 10,
  keptStringBytes: 16 << 10,
  keptTextBytes: 4 << 20,
};
export const FULL_VIEW_LIMITS: ReduceLimits = {
  lineBytes: 1 << 20,
  keptStringBytes: 256 << 10,
  keptTextBytes: 4 << 20,
};

/** Keys whose string values are Claude's words: kept longer (keptTextBytes). */
const TEXT_KEYS = new Set(["text", "thinking"]);

export interface SplitLine {
  /** The line without its "\n": whole, or reduced. */
  bytes: Buffer;
  /** Where it starts in the stream. */
  byte: number;
  /** Its length in the stream (without the "\n"). */
  length: number;
  /** Some string of it was cut. */
  reduced: boolean;
}

export class LineReducer {
  private pending: Buffer[] = [];
  private pendingLength = 0;
  private lineStart: number;
  private reducer: StringCutter | null = null;

  constructor(
    private readonly limits: ReduceLimits,
    /** The stream offset of the first byte pushed. */
    start: number,
  ) {
    this.lineStart = start;
  }

  push(chunk: Buffer, onLine: (line: SplitLine) => void): void {
    let start = 0;
    for (let newline = chunk.indexOf(LF); newline !== -1; newline = chunk.indexOf(LF, start)) {
      this.take(chunk, start, newline);
      this.finishLine(onLine, 1);
      start = newline + 1;
    }
    if (start < chunk.length) this.take(chunk, start, chunk.length);
  }

  /** At the end of the stream: the last line if it had no "\n". */
  end(onLine: (line: SplitLine) => void): void {
    if (this.pendingLength > 0 || this.reducer) this.finishLine(onLine, 0);
  }

  private take(chunk: Buffer, from: number, to: number): void {
    if (from === to) return;
    if (this.reducer) return this.reducer.feed(chunk, from, to);
    this.pending.push(chunk.subarray(from, to));
    this.pendingLength += to - from;
    if (this.pendingLength <= this.limits.lineBytes) return;
    this.reducer = new StringCutter(this.limits.keptStringBytes, this.limits.keptTextBytes);
    for (const part of this.pending) this.reducer.feed(part, 0, part.length);
    this.pending = [];
  }

  private finishLine(onLine: (line: SplitLine) => void, newline: number): void {
    const r = this.reducer;
    const length = r ? r.seen : this.pendingLength;
    // Copied: a view would keep the whole chunk it came from alive.
    const bytes = r ? Buffer.concat(r.out) : Buffer.concat(this.pending);
    onLine({ bytes, byte: this.lineStart, length, reduced: r?.cut ?? false });
    this.lineStart += length + newline;
    this.pending = [];
    this.pendingLength = 0;
    this.reducer = null;
  }
}

/** A JSON line fed in parts, every string value cut at `keep` bytes. */
class StringCutter {
  readonly out: Buffer[] = [];
  seen = 0;
  cut = false;
  private inString = false;
  private skipping = false;
  /** In a kept string: -1 just after a backslash, n > 0 hex digits of \\u left. */
  private escape = 0;
  private kept = 0;
  /** Backslashes just before the current point, while skipping. */
  private run = 0;
  /** What this string keeps, and the start of what it holds (to know it as the next value's key). */
  private keep = 0;
  private head = "";
  /** The last string closed (when short), and whether a ":" came after it: the next string is its value. */
  private key = "";
  private colon = false;

  constructor(
    private readonly keepString: number,
    private readonly keepText: number,
  ) {}

  feed(b: Buffer, from: number, to: number): void {
    this.seen += to - from;
    let i = from;
    while (i < to) {
      if (!this.inString) {
        const q = b.indexOf(QUOTE, i);
        const end = q === -1 || q >= to ? to : q;
        if (!this.colon && b.subarray(i, end).includes(0x3a)) this.colon = true;
        if (end === to) return this.emit(b, i, to);
        this.emit(b, i, q + 1);
        this.keep = this.colon && TEXT_KEYS.has(this.key) ? this.keepText : this.keepString;
        this.head = "";
        this.inString = true;
        this.skipping = false;
        this.escape = 0;
        this.kept = 0;
        i = q + 1;
      } else if (this.skipping) {
        i = this.skip(b, i, to);
      } else {
        i = this.keepPart(b, i, to);
      }
    }
  }

  private emit(b: Buffer, from: number, to: number): void {
    if (to > from) this.out.push(Buffer.from(b.subarray(from, to)));
  }

  /** Kept string content up to the cut; returns where it stopped. */
  private keepPart(b: Buffer, from: number, to: number): number {
    for (let i = from; i < to; i++) {
      const c = b[i]!;
      if (this.escape === -1) this.escape = c === U ? 4 : 0;
      else if (this.escape > 0) this.escape--;
      else if (c === QUOTE) {
        this.emit(b, from, i + 1);
        this.inString = false;
        this.key = this.head;
        this.colon = false;
        return i + 1;
      } else if (this.kept >= this.keep && (c & 0xc0) !== 0x80) {
        // At a whole character, outside any escape: the rest of this string is left out.
        this.emit(b, from, i);
        this.out.push(CUT_ESCAPE);
        this.skipping = true;
        this.cut = true;
        this.run = 0;
        return i;
      } else if (c === BACKSLASH) this.escape = -1;
      if (this.kept < 16) this.head += String.fromCharCode(c);
      this.kept++;
    }
    this.emit(b, from, to);
    return to;
  }

  /** Skipped string content up to its closing quote (emitted); returns where it stopped. */
  private skip(b: Buffer, from: number, to: number): number {
    for (let at = from; ;) {
      const q = b.indexOf(QUOTE, at);
      if (q === -1 || q >= to) {
        this.run = backslashesBefore(b, to, at, this.run);
        return to;
      }
      if (backslashesBefore(b, q, at, this.run) % 2 === 0) {
        this.emit(b, q, q + 1);
        this.inString = false;
        this.key = "";
        this.colon = false;
        return q + 1;
      }
      this.run = 0;
      at = q + 1;
    }
  }
}

/** Backslashes right before `end`, looking back to `from`; `carried` more when all from `from` on are. */
function backslashesBefore(b: Buffer, end: number, from: number, carried: number): number {
  let k = 0;
  while (end - 1 - k >= from && b[end - 1 - k] === BACKSLASH) k++;
  return end - k === from ? k + carried : k;
}
