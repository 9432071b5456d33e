/**
 * `turns.jsonl`: the append-only half of a session's bookkeeping. Each record is one JSON line,
 * written with a single write and made durable with fdatasync, so a crash leaves at worst a torn
 * last line, which the reader ignores and the next writer cuts off. Appending costs the same at
 * turn 1000 as at turn 1.
 */
import path from "node:path";
import { shellQuote } from "../base/shell-quote.js";
import fs from "node:fs";
import { UserError } from "../base/errors.js";
import { faultPoint } from "../base/fault-injection.js";
import { acceptor } from "../base/zod-accept.js";
import { noteSessionChanged } from "./change-log.js";
import {
  journalSchemas,
  type EndedRecord,
  type JournalRecord,
  type PendingTurn,
  type Turn,
} from "./manifest-schema.js";

export class TurnJournal {
  private constructor(
    private readonly fd: number,
    private readonly dir: string,
  ) {}

  /** Open for appending; a torn last line (a crash mid-append) is cut off first. */
  static open(file: string): TurnJournal {
    const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_APPEND, 0o644);
    const size = fs.fstatSync(fd).size;
    if (size > 0) {
      const end = completeLength(fd, size);
      if (end < size) fs.ftruncateSync(fd, end);
    }
    return new TurnJournal(fd, path.dirname(file));
  }

  /**
   * Append a record as one write, durable before this returns unless `sync` is false (then the
   * next synced append makes it durable too: appends to one file reach the disk in order).
   */
  append(record: JournalRecord, o: { sync?: boolean } = {}): void {
    const text = JSON.stringify(journalSchemas().JournalRecordSchema.parse(record)) + "\n";
    faultPoint("journal-append");
    fs.writeSync(this.fd, text);
    if (o.sync !== false) fs.fdatasyncSync(this.fd);
    noteSessionChanged(this.dir);
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

/** Length of the file up to and including its last "\n" (reads backwards in small blocks). */
function completeLength(fd: number, size: number): number {
  const block = Buffer.alloc(4096);
  for (let end = size; end > 0;) {
    const start = Math.max(0, end - block.length);
    const read = fs.readSync(fd, block, 0, end - start, start);
    const at = block.subarray(0, read).lastIndexOf(0x0a);
    if (at !== -1) return start + at + 1;
    end = start;
  }
  return 0;
}

/** Every complete record of a journal; a torn last line is ignored, damage anywhere else is an error. */
export function parseJournal(text: string, file: string): JournalRecord[] {
  const lines = text.split("\n");
  lines.pop(); // the part after the last "\n": empty, or a torn line a crash left
  const schema = journalSchemas().JournalRecordSchema;
  // Nearly every line is exactly as nudge wrote it: the quick check says so without zod's walk.
  const accept = acceptor(schema);
  return lines.map((line, i) => {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw damaged(file, i, "not JSON");
    }
    if (accept(json)) return json as JournalRecord;
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw damaged(file, i, `${issue?.path.join(".")}: ${issue?.message}`);
    }
    return parsed.data;
  });
}

function damaged(file: string, line: number, why: string): UserError {
  // A session's journal sits in its bundle folder, named by the session's id.
  const id = path.basename(path.dirname(file));
  return new UserError(
    `${file} line ${line + 1} is damaged (${why})`,
    `the bundle was changed outside nudge; nothing was changed. Put it back from a backup, or set it aside and rebuild it from the session's snapshots: mv ${shellQuote(file)} ${shellQuote(file + ".damaged")} && nudge session repair ${id}`,
  );
}

/**
 * The journal folded into what it says: the saved turns (the last record of a turn wins) and the
 * turns begun but not saved, in order, each with its `ended` record when its code was captured.
 * An `edits` record completes its `begin` (the edits' tree, no longer pending); a begin still
 * `editsPending` is one whose capture never finished.
 */
export function foldJournal(records: JournalRecord[]): { turns: Turn[]; unsaved: PendingTurn[] } {
  const saved = new Map<number, Turn>();
  const begun = new Map<number, PendingTurn>();
  const ended = new Map<number, Omit<EndedRecord, "type">>();
  for (const record of records) {
    if (record.type === "turn") {
      const { type: _, ...turn } = record;
      saved.set(turn.n, turn);
    } else if (record.type === "begin") {
      const { type: _, ...begin } = record;
      begun.set(begin.n, { ...begin, ended: null });
    } else if (record.type === "edits") {
      const begin = begun.get(record.n);
      if (begin) {
        const { editsPending: _, ...rest } = begin;
        begun.set(record.n, { ...rest, editsTree: record.tree });
      }
    } else {
      const { type: _, ...end } = record;
      ended.set(end.n, end);
    }
  }
  const turns = [...saved.values()].sort((a, b) => a.n - b.n);
  const unsaved = [...begun.values()]
    .filter((b) => !saved.has(b.n))
    .sort((a, b) => a.n - b.n)
    .map((b) => ({ ...b, ended: ended.get(b.n) ?? null }));
  return { turns, unsaved };
}

/**
 * The records that write a whole history afresh (a fork, an import, a migrated bundle, an
 * export), each with its keys in the order zod's parse gives them (a turn's `type` last), as the
 * recorder's own lines are: a reader then takes them as they are (see base/zod-accept.ts).
 */
export function journalOf(turns: Turn[], unsaved: PendingTurn[] = []): JournalRecord[] {
  return [
    ...turns.map((t): JournalRecord => ({ ...t, type: "turn" })),
    ...unsaved.flatMap(({ ended, ...begin }): JournalRecord[] => [
      { type: "begin", ...begin },
      ...(ended ? [{ type: "ended" as const, ...ended }] : []),
    ]),
  ];
}
