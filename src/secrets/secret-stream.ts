/**
 * Secrets in streamed fragments. claude runs with --include-partial-messages, so the
 * conversation holds each reply, thinking block and tool input as many `stream_event` lines,
 * each with one small delta (`text_delta`, `thinking_delta`, `input_json_delta`). No fragment is
 * long enough to match a pattern, yet joined they give the secret back. So each content block's
 * deltas are joined as claude meant them, scanned, and each secret is masked across the
 * fragments it spans: the fragment where it starts gets the placeholder, the others lose their
 * part of it. The lines stay (replay still plays the message as it streamed), valid JSON, with
 * every other byte as it was.
 *
 * A tool input's deltas join into JSON text; its string values are scanned decoded (a key's
 * `\n` escapes are newlines), and a secret's place is mapped back into the raw text.
 */
import { decodeToken, rawIndex, stringTokens } from "./json-strings.js";
import { detectSecrets } from "./secret-detect.js";

/** A change to one delta's string value: decoded offsets inside it, and what goes there. */
export interface DeltaEdit {
  /** The string token in the line (raw offsets, quotes included). */
  token: { start: number; end: number };
  start: number;
  end: number;
  kind: string;
  /** The placeholder where the secret starts, nothing in the fragments after. */
  replacement: string;
}

interface Fragment {
  line: number;
  token: { start: number; end: number };
  /** Where its decoded value starts in the block's joined text. */
  at: number;
  length: number;
}

interface Block {
  json: boolean;
  text: string;
  fragments: Fragment[];
}

const FIELDS: Record<string, string> = {
  text_delta: "text",
  thinking_delta: "thinking",
  input_json_delta: "partial_json",
};
/** Blocks are scanned together in batches of about this much text (secretlint's setup is per call). */
const BATCH_CHARS = 4 * 1024 * 1024;
/** Between two blocks in one scan: no pattern reaches across a NUL line. */
const SEPARATOR = "\n\u0000\n";

/** Follows a log's lines in order and collects, per 1-based line, the edits its deltas need. */
export class StreamedSecrets {
  readonly edits = new Map<number, DeltaEdit[]>();
  /** Delta lines whose block was scanned joined: the second pass need not scan them again (a delta line holds nothing else but ids). */
  readonly covered = new Set<number>();
  private open = new Map<string, Block>();
  private done: Block[] = [];
  private doneChars = 0;

  constructor(private placeholder: (kind: string) => string) {}

  /** One line of the log. Cheap for lines that are not stream events. */
  async line(text: string, line: number): Promise<void> {
    if (!text.includes('"stream_event"')) return;
    let parsed: {
      type?: unknown;
      event?: { type?: unknown; index?: unknown; delta?: Record<string, unknown> };
      session_id?: unknown;
      parent_tool_use_id?: unknown;
    };
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      return;
    }
    const event = parsed.event;
    if (parsed.type !== "stream_event" || !event) return;
    const stream = `${String(parsed.session_id)}\0${String(parsed.parent_tool_use_id)}`;
    const key = `${stream}\0${String(event.index)}`;
    if (event.type === "message_start") {
      for (const [k, block] of this.open) if (k.startsWith(`${stream}\0`)) this.finish(k, block);
    } else if (event.type === "content_block_stop") {
      const block = this.open.get(key);
      if (block) this.finish(key, block);
    } else if (event.type === "content_block_delta" && event.delta) {
      const field = FIELDS[String(event.delta.type)];
      const value = field ? event.delta[field] : undefined;
      if (typeof value !== "string" || value === "") return;
      const token = valueToken(text, field!, value);
      if (!token) return;
      const block = this.open.get(key) ?? { json: field === "partial_json", text: "", fragments: [] };
      block.fragments.push({ line, token, at: block.text.length, length: value.length });
      block.text += value;
      this.open.set(key, block);
    }
    if (this.doneChars >= BATCH_CHARS) await this.scan();
  }

  /**
   * A delta too large to join (its line is scanned alone, from its bytes): `skeleton` is its line
   * with the long values emptied. Its block is finished here; later deltas start a new one.
   */
  cut(skeleton: string | null): void {
    const parsed =
      skeleton === null
        ? null
        : (JSON.parse(skeleton) as { event?: { index?: unknown }; session_id?: unknown; parent_tool_use_id?: unknown });
    if (!parsed?.event) return;
    const key = `${String(parsed.session_id)}\0${String(parsed.parent_tool_use_id)}\0${String(parsed.event.index)}`;
    const block = this.open.get(key);
    if (block) this.finish(key, block);
  }

  /** The end of the log: blocks never closed (a crash, an interrupt) are scanned as they are. */
  async end(): Promise<void> {
    for (const [k, block] of this.open) this.finish(k, block);
    await this.scan();
  }

  private finish(key: string, block: Block): void {
    this.open.delete(key);
    if (block.fragments.length < 2) return; // one fragment holds the whole text: the line's own scan sees it
    for (const f of block.fragments) this.covered.add(f.line);
    this.done.push(block);
    this.doneChars += block.text.length;
  }

  private async scan(): Promise<void> {
    const blocks = this.done;
    this.done = [];
    this.doneChars = 0;
    if (blocks.length === 0) return;
    // Each block contributes its text, or for a tool input its decoded string values, with where each came from.
    const parts: string[] = [];
    const pieces: Array<{ block: Block; from: number; to: number; raw?: { start: number; token: string } }> = [];
    let offset = 0;
    const add = (block: Block, value: string, raw?: { start: number; token: string }) => {
      pieces.push({ block, from: offset, to: offset + value.length, raw });
      parts.push(value);
      offset += value.length + SEPARATOR.length;
    };
    for (const block of blocks) {
      const tokens = block.json ? jsonValues(block.text) : null;
      if (!tokens) add(block, block.text);
      else
        for (const t of tokens)
          add(block, decodeToken(block.text.slice(t.start, t.end)), {
            start: t.start,
            token: block.text.slice(t.start, t.end),
          });
    }
    for (const span of await detectSecrets(parts.join(SEPARATOR))) {
      const piece = pieces.find((p) => span.start >= p.from && span.start < p.to);
      if (!piece) continue;
      let start = span.start - piece.from;
      let end = Math.min(span.end, piece.to) - piece.from;
      if (piece.raw) {
        start = piece.raw.start + rawIndex(piece.raw.token, start);
        end = piece.raw.start + rawIndex(piece.raw.token, end);
      }
      this.mask(piece.block, start, end, span.kind);
    }
  }

  /** The block's joined text [start, end) is a secret: edit each fragment it touches. */
  private mask(block: Block, start: number, end: number, kind: string): void {
    for (const f of block.fragments) {
      const from = Math.max(start, f.at);
      const to = Math.min(end, f.at + f.length);
      if (from >= to) continue;
      const edit = {
        token: f.token,
        start: from - f.at,
        end: to - f.at,
        kind,
        replacement: from === start ? this.placeholder(kind) : "",
      };
      this.edits.set(f.line, [...(this.edits.get(f.line) ?? []), edit]);
    }
  }
}

/** The string value tokens of a JSON text, or null when it does not parse (a tool input cut short). */
function jsonValues(text: string) {
  try {
    JSON.parse(text);
  } catch {
    return null;
  }
  return stringTokens(text).filter((t) => t.isValue);
}

/** Where in the line the delta's value sits: the value token after the `"<field>":` key that decodes to it. */
function valueToken(line: string, field: string, value: string): { start: number; end: number } | undefined {
  const tokens = stringTokens(line);
  for (const [i, t] of tokens.entries()) {
    const next = tokens[i + 1];
    if (
      !t.isValue &&
      line.slice(t.start, t.end) === `"${field}"` &&
      next?.isValue &&
      decodeToken(line.slice(next.start, next.end)) === value
    )
      return { start: next.start, end: next.end };
  }
  return undefined;
}
