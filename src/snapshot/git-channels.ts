/**
 * Two git processes kept for a whole recording, so that a turn's save starts two fewer: a
 * `diff-tree --stdin` for the turn's patch and an `update-ref --stdin` for the session's ref.
 * Each answers one request at a time. Where an answer ends is told by git itself: update-ref in
 * transaction mode says `commit: ok`; diff-tree passes a line that is not an object id straight
 * through (flushed), so a random line sent after the trees comes back after their diff.
 *
 * A channel that fails in any way (git too old for a verb, a ref it refuses, a killed process) is
 * closed and not used again: that request and every later one run as a one-shot process
 * (git.ts), which reports git's own error as before. Nothing here can lose a snapshot: a ref
 * update either said `commit: ok` or is done again by the one-shot path.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { gitChildOptions } from "./git-process.js";
import * as git from "./git.js";
import type { TreeDiffEntry } from "./git.js";

/** How many bytes at each end of an answer `AnswerEnd` sees: more than a header of two sha256 ids, or the end line. */
const EDGE = 256;

/** Where an answer ends, from its first and last EDGE bytes and its length (see `Channel.ask`). */
type AnswerEnd = (head: Buffer, tail: Buffer, length: number) => number;

/** One long-lived git process answering requests in turn; null from `ask`: the channel is no longer used. */
class Channel {
  private child: ChildProcess | null = null;
  private broken = false;
  private queue: Promise<unknown> = Promise.resolve();
  /** Ends the request in flight without an answer (the process failed or was closed). */
  private abandon: (() => void) | null = null;

  constructor(
    private readonly cwd: string,
    private readonly args: string[],
  ) {}

  /**
   * Send `input`; the answer is the output up to where `end` finds its end. `end` sees the
   * output's first and last EDGE bytes and its length (a big patch is never copied as it grows)
   * and says the answer's length, -1 while incomplete, or -2: not an answer.
   */
  ask(input: string, end: AnswerEnd): Promise<Buffer | null> {
    const asked = this.queue.then(() => this.exchange(input, end));
    this.queue = asked.catch(() => undefined);
    return asked;
  }

  private exchange(input: string, end: AnswerEnd): Promise<Buffer | null> {
    const child = this.broken ? null : (this.child ?? this.start());
    if (!child?.stdin || !child.stdout) return Promise.resolve(null);
    const stdout = child.stdout as NodeJS.ReadableStream & { ref?: () => void; unref?: () => void };
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let length = 0;
      let head = Buffer.alloc(0);
      let tail = Buffer.alloc(0);
      const finish = (answer: Buffer | null) => {
        if (this.abandon !== abandon) return;
        this.abandon = null;
        stdout.off("data", onData);
        stdout.unref?.(); // idle, the channel must not keep nudge alive
        if (answer === null) this.close();
        resolve(answer);
      };
      const abandon = () => finish(null);
      const onData = (chunk: Buffer) => {
        chunks.push(chunk);
        length += chunk.length;
        if (head.length < EDGE) head = Buffer.concat([head, chunk]).subarray(0, EDGE);
        tail = Buffer.concat([tail, chunk]).subarray(-EDGE);
        const at = end(head, tail, length);
        if (at === -2) finish(null);
        else if (at >= 0) finish(at === length ? Buffer.concat(chunks, length) : null); // more than one answer: not trusted
      };
      this.abandon = abandon;
      stdout.on("data", onData);
      stdout.ref?.();
      child.stdin!.write(input);
    });
  }

  private start(): ChildProcess {
    const c = gitChildOptions(this.cwd, this.args, { internal: true });
    const child = spawn("git", c.args, { cwd: this.cwd, env: c.env, stdio: ["pipe", "pipe", "ignore"] });
    const failed = () => {
      if (this.child === child) this.close();
    };
    child.on("error", failed);
    child.on("close", failed);
    child.stdin!.on("error", failed);
    child.unref();
    for (const stream of [child.stdin, child.stdout] as Array<{ unref?: () => void } | null>) stream?.unref?.();
    this.child = child;
    return child;
  }

  /** The process is told to end (EOF) and not used again; a request in flight gets no answer. */
  close(): void {
    this.broken = true;
    const child = this.child;
    this.child = null;
    this.abandon?.();
    if (child && child.exitCode === null && child.signalCode === null) {
      child.stdin?.end();
      // One that does not end at EOF (stopped, hung) must not outlive nudge.
      setTimeout(() => child.kill("SIGKILL"), 2000).unref();
    }
  }
}

/** The git processes of one recording (see the top of this file). */
export class RecordingGit {
  private readonly diff: Channel;
  private readonly refs: Channel;
  /** A line that is not an object id: diff-tree echoes it after each diff. Random, so no file can hold it. */
  private readonly endLine = `nudge-end-${randomBytes(16).toString("hex")}\n`;

  constructor(private readonly root: string) {
    this.diff = new Channel(root, ["diff-tree", "--stdin", ...git.PATCH_AND_CHANGES]);
    this.refs = new Channel(root, ["update-ref", "--stdin"]);
  }

  /** As git.patchAndChanges, from the long-lived diff-tree. */
  async patchAndChanges(a: string, b: string): Promise<{ patch: Buffer; changes: TreeDiffEntry[] }> {
    const header = Buffer.from(`${a} ${b}\n`);
    const endLine = Buffer.from(this.endLine);
    const out = await this.diff.ask(`${a} ${b}\n${this.endLine}`, (head, tail, length) => {
      if (head.length >= header.length && !head.subarray(0, header.length).equals(header)) return -2;
      if (length < header.length + endLine.length || !tail.subarray(tail.length - endLine.length).equals(endLine))
        return -1;
      const before = tail[tail.length - endLine.length - 1];
      // The echoed line starts a line of its own (after the header, a record's NUL, or a patch line).
      return length === header.length + endLine.length || before === 0x0a || before === 0x00 ? length : -1;
    });
    if (!out) return git.patchAndChanges(this.root, a, b);
    return git.parsePatchAndChanges(out.subarray(header.length, out.length - endLine.length));
  }

  /** As git.updateRefs for one ref, from the long-lived update-ref (one transaction per call). */
  async updateRef(ref: string, commit: string): Promise<void> {
    const ok = Buffer.from("start: ok\ncommit: ok\n");
    // The answer is short: `head` holds all of it.
    const out = await this.refs.ask(`start\nupdate ${ref} ${commit}\ncommit\n`, (head, _tail, length) =>
      length < ok.length ? (ok.subarray(0, length).equals(head) ? -1 : -2) : head.equals(ok) ? length : -2,
    );
    if (!out) await git.updateRefs(this.root, [{ ref, commit }]);
  }

  close(): void {
    this.diff.close();
    this.refs.close();
  }
}
