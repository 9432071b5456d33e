/**
 * Secrets in what goes into an export: found, reported, and masked in the exported copy.
 *
 * NDJSON (conversation, transcripts): each line that is JSON is scanned as its decoded string
 * values, so a secret is seen as the program saw it (a private key's `\n` escapes are newlines)
 * and a match cannot run past the end of its string into the JSON around it. Masking replaces it
 * with `[REDACTED:<kind>]` inside that string and re-encodes that string only: every other byte
 * of the line stays, and the line stays valid JSON. A line that is not JSON is scanned and masked
 * as text. Plain text (patches, tool outputs) is scanned as it is.
 *
 * Streamed fragments (`stream_event` deltas) are joined per content block and masked across the
 * lines they span (secret-stream.ts), in a first pass over the file.
 *
 * Files are processed in batches of lines, never whole, so a large transcript costs a few MB; a
 * line of many MB (a 50 MB tool input) is never held: it is scanned and masked from its bytes in the
 * file, a window at a time (huge-line.ts).
 */
import { createWriteStream, promises as fs } from "node:fs";
import { once } from "node:events";
import { BoundedLineFramer, type LongLine } from "../claude/ndjson.js";
import { FileLine } from "../claude/long-line.js";
import { decodeToken, isJsonLine, rawIndex, stringTokens } from "./json-strings.js";
import { detectSecrets, type SecretSpan } from "./secret-detect.js";
import { StreamedSecrets } from "./secret-stream.js";
import { itemAt } from "./joined-texts.js";
import { HUGE_LINE, hugeLineSpans, maskedParts, skeletonOf, textIndexes } from "./huge-line.js";

export interface SecretFinding {
  kind: string;
  /** The name the caller gave the file (its path in the archive). */
  file: string;
  /** 1-based line number. */
  line: number;
  /** Where it is in that line's text, 0-based, end exclusive (UTF-16 units, as JavaScript counts). */
  start: number;
  end: number;
  /** The turn the line belongs to, when the caller can tell. */
  turn?: number;
}

export interface ScanOptions {
  /** The name findings carry. */
  file: string;
  /** The turn of a 1-based line number, for the report. */
  turnOfLine?: (line: number) => number | undefined;
}

/** Lines per detection call: enough to amortize secretlint's setup, small enough to keep memory flat. */
const BATCH_CHARS = 4 * 1024 * 1024;

/** What the export puts where the secret was. */
export function placeholder(kind: string): string {
  return `[REDACTED:${kind}]`;
}

export async function scanNdjsonFile(file: string, options: ScanOptions): Promise<SecretFinding[]> {
  const streamed = await streamedSecrets(file);
  const findings: SecretFinding[] = [];
  await eachBatch(file, async (lines, firstLine) => {
    for (const { line, spans } of await scanLines(lines, firstLine, streamed))
      findings.push(...report(spans, line.text, firstLine + line.index, options));
    for (const [i, raw] of lines.entries())
      if (raw instanceof FileLine)
        findings.push(...hugeReport(raw, (await hugeLineSpans(raw)).spans, firstLine + i, options));
  });
  return findings;
}

/** Copy `file` to `dest` with every secret masked (dest must not exist). Returns what was masked. */
export async function maskNdjsonFile(file: string, dest: string, options: ScanOptions): Promise<SecretFinding[]> {
  const streamed = await streamedSecrets(file);
  const findings: SecretFinding[] = [];
  const maskHuge = async (raw: FileLine, line: number) => {
    const { spans } = await hugeLineSpans(raw);
    findings.push(...hugeReport(raw, spans, line, options));
    return maskedParts(raw, spans, placeholder);
  };
  // Written a line at a time: a large buffer gathers them into few writes (see rewrite-lines.ts).
  const out = createWriteStream(dest, { flags: "wx", highWaterMark: 1 << 20 });
  const closed = once(out, "close");
  try {
    await eachBatch(file, async (lines, firstLine, unterminated) => {
      const masked = new Map<number, string>();
      for (const { line, spans } of await scanLines(lines, firstLine, streamed)) {
        findings.push(...report(spans, line.text, firstLine + line.index, options));
        masked.set(line.index, line.json ? maskJsonLine(line.text, spans) : maskText(line.text, spans));
      }
      for (const [i, raw] of lines.entries()) {
        const last = unterminated && i === lines.length - 1;
        if (raw instanceof FileLine) {
          // Each piece is the line's buffer, read over for the next piece: written out before that.
          for (const piece of await maskHuge(raw, firstLine + i)) await writeNow(out, piece);
        } else {
          const part = masked.get(i);
          const bytes = part === undefined ? raw : Buffer.from(part + (raw[raw.length - 1] === 0x0d ? "\r" : ""));
          if (!out.write(bytes)) await once(out, "drain");
        }
        if (!last && !out.write(NEWLINE)) await once(out, "drain");
      }
    });
  } finally {
    out.end();
    await closed;
  }
  return findings;
}

/** Scan plain text (a patch, a tool output). */
export async function scanText(data: Buffer | string, options: ScanOptions): Promise<SecretFinding[]> {
  const text = typeof data === "string" ? data : data.toString("utf8");
  return findingsIn(text, await detectSecrets(text), options);
}

/**
 * A file that is not NDJSON, scanned and (with `redact`) masked with one detection: its findings,
 * and the bytes to keep — the same bytes when nothing was masked (an image a tool saved stays as it is).
 */
export async function scanAndMaskText(
  data: Buffer,
  options: ScanOptions,
  redact: boolean,
): Promise<{ findings: SecretFinding[]; data: Buffer }> {
  const text = data.toString("utf8");
  const spans = await detectSecrets(text);
  return {
    findings: findingsIn(text, spans, options),
    data: redact && spans.length > 0 ? Buffer.from(maskText(text, spans)) : data,
  };
}

function findingsIn(text: string, spans: SecretSpan[], options: ScanOptions): SecretFinding[] {
  const findings: SecretFinding[] = [];
  for (const span of spans) {
    const lineStart = text.lastIndexOf("\n", span.start - 1) + 1;
    const lineEnd = text.indexOf("\n", span.start);
    const line = countNewlines(text, lineStart) + 1;
    const turn = options.turnOfLine?.(line);
    findings.push({
      kind: span.kind,
      file: options.file,
      line,
      start: span.start - lineStart,
      end: Math.min(span.end, lineEnd === -1 ? text.length : lineEnd) - lineStart,
      ...(turn === undefined ? {} : { turn }),
    });
  }
  return findings;
}

/** Plain text with every secret masked. */
export async function maskTextData(data: Buffer | string): Promise<{ data: Buffer; kinds: string[] }> {
  const text = typeof data === "string" ? data : data.toString("utf8");
  const spans = await detectSecrets(text);
  return { data: Buffer.from(maskText(text, spans)), kinds: spans.map((s) => s.kind) };
}

/** What the index records: per kind and file, how many and in which turns. */
export interface SecretSummary {
  kind: string;
  file: string;
  count: number;
  turns: number[];
}

export function summarizeFindings(findings: SecretFinding[]): SecretSummary[] {
  const groups = new Map<string, { kind: string; file: string; count: number; turns: Set<number> }>();
  for (const f of findings) {
    const key = `${f.file}\0${f.kind}`;
    const group = groups.get(key) ?? { kind: f.kind, file: f.file, count: 0, turns: new Set<number>() };
    group.count++;
    if (f.turn !== undefined) group.turns.add(f.turn);
    groups.set(key, group);
  }
  return [...groups.values()]
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0))
    .map((g) => ({ kind: g.kind, file: g.file, count: g.count, turns: [...g.turns].sort((a, b) => a - b) }));
}

const NEWLINE = Buffer.from("\n");

function writeNow(out: NodeJS.WritableStream, bytes: Buffer): Promise<void> {
  return new Promise((resolve, reject) => out.write(bytes, (error) => (error ? reject(error) : resolve())));
}

interface Line {
  /** Index in its batch. */
  index: number;
  text: string;
  json: boolean;
}

/** The first pass: every content block's streamed fragments joined and scanned; the edits by line. */
async function streamedSecrets(file: string): Promise<StreamedSecrets> {
  const streamed = new StreamedSecrets(placeholder);
  await eachBatch(file, async (lines, firstLine) => {
    for (const [i, raw] of lines.entries()) {
      if (!raw.includes(STREAM_EVENT)) continue;
      // A huge fragment is scanned on its own line (huge-line.ts): its block is cut there, not joined across it.
      if (raw instanceof FileLine) streamed.cut(skeletonOf(raw));
      else await streamed.line(raw.toString("utf8"), firstLine + i);
    }
  });
  await streamed.end();
  return streamed;
}

const STREAM_EVENT = Buffer.from('"stream_event"');

/**
 * One detection call over a batch: the JSON lines' string values and the other lines' text,
 * joined by newlines; plus the edits the streamed fragments of these lines need.
 */
async function scanLines(
  lines: Array<Buffer | FileLine>,
  firstLine: number,
  streamed: StreamedSecrets,
): Promise<Array<{ line: Line; spans: LineSpan[] }>> {
  const parts: string[] = [];
  const segments: Array<{ line: Line; from: number; to: number; token?: { start: number; end: number } }> = [];
  let offset = 0;
  const add = (line: Line, value: string, token?: { start: number; end: number }) => {
    segments.push({ line, from: offset, to: offset + value.length, token });
    parts.push(value);
    offset += value.length + 1;
  };
  const byIndex = new Map<number, Line>();
  for (const [index, raw] of lines.entries()) {
    if (raw instanceof FileLine) continue;
    const text = raw.toString("utf8", 0, raw[raw.length - 1] === 0x0d ? raw.length - 1 : raw.length);
    const json = isJsonLine(text);
    const line = { index, text, json };
    byIndex.set(index, line);
    if (streamed.covered.has(firstLine + index)) continue;
    if (!json) add(line, text);
    else
      for (const token of stringTokens(text))
        if (token.isValue) add(line, decodeToken(text.slice(token.start, token.end)), token);
  }
  const found = new Map<Line, LineSpan[]>();
  for (const span of await detectSecrets(parts.join("\n"))) {
    const segment = segments[itemAt(segments, span.start)]!;
    const spans = found.get(segment.line) ?? [];
    spans.push({
      kind: span.kind,
      start: span.start - segment.from,
      end: Math.min(span.end, segment.to) - segment.from,
      token: segment.token,
    });
    found.set(segment.line, spans);
  }
  for (const [index, line] of byIndex) {
    const edits = streamed.edits.get(firstLine + index);
    if (edits) found.set(line, [...(found.get(line) ?? []), ...edits]);
  }
  return [...found].map(([line, spans]) => ({ line, spans }));
}

/** A secret inside one line: in a string token (decoded offsets) or in the line's text. */
interface LineSpan extends SecretSpan {
  token?: { start: number; end: number };
  /** Instead of the placeholder: a streamed fragment's part of a secret that began in an earlier one is removed (""). */
  replacement?: string;
}

function report(spans: LineSpan[], text: string, line: number, options: ScanOptions): SecretFinding[] {
  const turn = options.turnOfLine?.(line);
  // A secret spread over streamed fragments is counted once, where it starts.
  return spans
    .filter((s) => s.replacement !== "")
    .map((s) => {
      const raw = s.token ? text.slice(s.token.start, s.token.end) : "";
      const start = s.token ? s.token.start + rawIndex(raw, s.start) : s.start;
      const end = s.token ? s.token.start + rawIndex(raw, s.end) : s.end;
      return { kind: s.kind, file: options.file, line, start, end, ...(turn === undefined ? {} : { turn }) };
    });
}

/** A huge line's findings, placed in its text as the others' are. */
function hugeReport(
  raw: FileLine,
  spans: Array<{ kind: string; start: number; end: number }>,
  line: number,
  options: ScanOptions,
): SecretFinding[] {
  const turn = options.turnOfLine?.(line);
  // Spans are sorted and apart: their starts and ends ascend.
  const at = textIndexes(
    raw,
    spans.flatMap((s) => [s.start, s.end]),
  );
  return spans.map((s, i) => ({
    kind: s.kind,
    file: options.file,
    line,
    start: at[2 * i]!,
    end: at[2 * i + 1]!,
    ...(turn === undefined ? {} : { turn }),
  }));
}

function maskJsonLine(text: string, spans: LineSpan[]): string {
  const byToken = new Map<number, LineSpan[]>();
  for (const s of spans) byToken.set(s.token!.start, [...(byToken.get(s.token!.start) ?? []), s]);
  let out = "";
  let at = 0;
  for (const start of [...byToken.keys()].sort((a, b) => a - b)) {
    const tokenSpans = byToken.get(start)!;
    const end = tokenSpans[0]!.token!.end;
    out += text.slice(at, start) + JSON.stringify(maskText(decodeToken(text.slice(start, end)), tokenSpans));
    at = end;
  }
  return out + text.slice(at);
}

/** `text` with each span replaced by its placeholder (or its `replacement`); overlapping spans merge into the first. */
export function maskText(text: string, spans: ReadonlyArray<SecretSpan & { replacement?: string }>): string {
  let out = "";
  let at = 0;
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    if (s.end <= at) continue;
    out += text.slice(at, Math.max(at, s.start)) + (s.start >= at ? (s.replacement ?? placeholder(s.kind)) : "");
    at = s.end;
  }
  return out + text.slice(at);
}

/**
 * Read a file line by line and hand over batches of about BATCH_CHARS (lines without their "\n";
 * `unterminated` when the batch's last line is the file's and had none). A line over HUGE_LINE
 * comes as a FileLine, read from the file when it is looked at, never assembled.
 */
async function eachBatch(
  file: string,
  use: (lines: Array<Buffer | FileLine>, firstLine: number, unterminated: boolean) => Promise<void>,
): Promise<void> {
  const framer = new BoundedLineFramer(HUGE_LINE);
  const handle = await fs.open(file, "r");
  const line = (l: Buffer | LongLine) => (Buffer.isBuffer(l) ? l : new FileLine(handle.fd, l));
  let batch: Array<Buffer | FileLine> = [];
  let size = 0;
  let firstLine = 1;
  const flush = async (unterminated = false) => {
    if (batch.length === 0) return;
    const lines = batch;
    batch = [];
    size = 0;
    await use(lines, firstLine, unterminated);
    firstLine += lines.length;
  };
  try {
    for await (const chunk of handle.createReadStream({ highWaterMark: 1 << 20, autoClose: false, start: 0 })) {
      const lines: Array<Buffer | FileLine> = [];
      framer.push(chunk as Buffer, (l) => lines.push(line(l)));
      for (const l of lines) {
        batch.push(l);
        size += l.length;
      }
      if (size >= BATCH_CHARS) await flush();
    }
    let unterminated = false;
    framer.end((l) => {
      batch.push(line(l));
      unterminated = true;
    });
    await flush(unterminated);
  } finally {
    await handle.close();
  }
}

function countNewlines(text: string, before: number): number {
  let n = 0;
  for (let at = text.indexOf("\n"); at !== -1 && at < before; at = text.indexOf("\n", at + 1)) n++;
  return n;
}
