/**
 * The append-only half of a bundle: claude's stdout byte for byte (conversation.jsonl), each
 * line's arrival time (timing.txt, one epoch-ms number per line) and claude's stderr. Appends are
 * synchronous so bytes land in arrival order; a kill -9 can at worst cut the last line short,
 * which `open` repairs on the next run.
 */
import fs from "node:fs";
import type { BundleFiles } from "../bundle/store.js";
import { LineFramer } from "../claude/ndjson.js";

export class ConversationLog {
  private readonly framer = new LineFramer();
  private constructor(
    private readonly conversationFd: number,
    private readonly timingFd: number,
    private readonly stderrFd: number,
    /** Lines completed so far in conversation.jsonl (the next line's number). */
    public lineCount: number,
  ) {}

  static open(files: BundleFiles): ConversationLog {
    const existing = readIfExists(files.conversation);
    let lineCount = countNewlines(existing);
    const conversationFd = fs.openSync(files.conversation, "a");
    if (existing.length > 0 && existing[existing.length - 1] !== 0x0a) {
      // A previous claude died mid-line: end that line so the next process starts a fresh one.
      fs.writeSync(conversationFd, "\n");
      lineCount++;
    }
    const timingLines = countNewlines(readIfExists(files.timing));
    const timingFd = fs.openSync(files.timing, "a");
    if (timingLines < lineCount) {
      // Times lost to a crash between the two appends: pad so line i keeps time i.
      fs.writeSync(timingFd, `${Date.now()}\n`.repeat(lineCount - timingLines));
    }
    return new ConversationLog(conversationFd, timingFd, fs.openSync(files.stderr, "a"), lineCount);
  }

  /** Store a stdout chunk as is; `onLine` gets each line it completes with its number. */
  appendStdout(chunk: Buffer, onLine: (line: Buffer, n: number) => void): void {
    fs.writeSync(this.conversationFd, chunk);
    const now = Date.now();
    let times = "";
    const lines: Buffer[] = [];
    this.framer.push(chunk, (line) => {
      lines.push(line);
      times += `${now}\n`;
    });
    if (times) fs.writeSync(this.timingFd, times);
    for (const line of lines) onLine(line, this.lineCount++);
  }

  /** At a process's end: a last line without "\n" is terminated, counted and handed on. */
  endOfStream(onLine: (line: Buffer, n: number) => void): void {
    this.framer.end((line) => {
      fs.writeSync(this.conversationFd, "\n");
      fs.writeSync(this.timingFd, `${Date.now()}\n`);
      onLine(line, this.lineCount++);
    });
  }

  appendStderr(chunk: Buffer): void {
    fs.writeSync(this.stderrFd, chunk);
  }

  /** Make what was appended durable (called at each turn's end, not per chunk). */
  sync(): void {
    for (const fd of [this.conversationFd, this.timingFd, this.stderrFd]) {
      try {
        fs.fsyncSync(fd);
      } catch (error) {
        // EINVAL/ENOTSUP: a file that cannot be synced (a device, some network file systems): not a loss.
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "EINVAL" && code !== "ENOTSUP") throw error;
      }
    }
  }

  close(): void {
    for (const fd of [this.conversationFd, this.timingFd, this.stderrFd]) fs.closeSync(fd);
  }
}

function readIfExists(file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch {
    return Buffer.alloc(0);
  }
}

function countNewlines(data: Buffer): number {
  let count = 0;
  for (let i = data.indexOf(0x0a); i !== -1; i = data.indexOf(0x0a, i + 1)) count++;
  return count;
}
