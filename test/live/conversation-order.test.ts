/**
 * The order of a live session's output when prompts were typed ahead (issue 15, items 5 and 6):
 * each turn's events, then its end line, then what it changed, turn after turn, though the changes
 * can only be shown once the turn is saved and the next turn may have run meanwhile; and the end
 * line itself as soon as claude's result is in, without waiting for the save (issue 24). The race depends on how long
 * git takes to save a turn against how fast claude answers the next prompt, which a real run
 * cannot pin down (test/terminal/queued-order.test.ts drives it with the real claude and a pty);
 * here a stand-in for the claude link decides when each turn ends and is saved.
 */
import { describe, expect, it } from "vitest";
import type { Turn } from "../../src/store/manifest-schema.js";
import type { StreamEvent } from "../../src/claude/stream-events.js";
import { Conversation } from "../../src/live/conversation.js";
import type { FinishedTurn, Frontend } from "../../src/live/frontend.js";

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const text = (t: string) =>
  ({ type: "assistant", message: { id: t, content: [{ type: "text", text: t }] } }) as unknown as StreamEvent;

async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !ok(); i++) await new Promise((r) => setImmediate(r));
  if (!ok()) throw new Error("the conversation never got there");
}

function session(typedAhead: string[]) {
  const shown: string[] = [];
  const turns: Array<{
    prompt: string;
    finished: ReturnType<typeof deferred<FinishedTurn>>;
    ended: ReturnType<typeof deferred<unknown>>;
    saved: ReturnType<typeof deferred<Turn>>;
  }> = [];
  const queue = [...typedAhead];
  const link = {
    recorder: {
      manifest: { id: "session" },
      captureEdits: async () => null,
      settled: async () => undefined,
      listen: () => undefined,
    },
    stderrText: "",
    lastExit: null,
    interrupt: () => "idle",
    startTurn: async (prompt: string) => {
      const turn = { prompt, finished: deferred<FinishedTurn>(), ended: deferred<unknown>(), saved: deferred<Turn>() };
      turns.push(turn);
      return { n: turns.length, finished: turn.finished.promise, ended: turn.ended.promise, saved: turn.saved.promise };
    },
  };
  const frontend = {
    prompts: { next: async () => queue.shift() ?? null, hasQueued: () => queue.length > 0, close: () => undefined },
    asker: null,
    render: (event: StreamEvent) => shown.push((event as unknown as { message: { id: string } }).message.id),
    turnFinished: (turn: FinishedTurn) => shown.push(`● turn ${turn.n}`),
    turnSaved: (turn: Turn) => shown.push(`⎿ turn ${turn.n} saved`),
    say: (line: string) => shown.push(line),
    warn: (line: string) => shown.push(line),
    error: (line: string) => shown.push(line),
  } as unknown as Frontend;
  const conversation = new Conversation({
    holder: { link: link as never },
    frontend,
    firstPrompt: "first",
    cwd: process.cwd(),
    slash: {} as never,
  });
  /** claude's result is in (the recorder resolves `finished` there), then the code is captured. */
  const finish = (n: number) =>
    turns[n - 1]!.finished.resolve({ n, status: "complete", result: null, startedAt: "", endedAt: "" });
  const end = (n: number) => {
    finish(n);
    turns[n - 1]!.ended.resolve({ n, status: "complete", isError: false, silent: false });
  };
  const save = (n: number) => turns[n - 1]!.saved.resolve({ n, status: "complete", result: null } as unknown as Turn);
  return { conversation, shown, turns, finish, end, save };
}

describe("output of prompts typed ahead", () => {
  it("two queued turns that end before the first is saved: each reply under its own turn, the end lines in order", async () => {
    const s = session(["q1", "q2"]);
    const running = s.conversation.run();
    await until(() => s.turns.length === 1);
    s.conversation.show(text("answer to first"));
    s.end(1);
    await until(() => s.turns.length === 2);
    s.conversation.show(text("reply to q1"));
    s.conversation.inOrder(() => s.shown.push("⚖ rule no-rm denied Bash(rm x)"));
    s.end(2); // before turn 1 is saved
    await until(() => s.turns.length === 3);
    s.conversation.show(text("reply to q2"));
    s.end(3);
    s.save(1);
    s.save(2);
    s.save(3);
    await running;
    expect(s.shown).toEqual([
      "answer to first",
      "● turn 1",
      "⎿ turn 1 saved",
      "reply to q1",
      "⚖ rule no-rm denied Bash(rm x)",
      "● turn 2",
      "⎿ turn 2 saved",
      "reply to q2",
      "● turn 3",
      "⎿ turn 3 saved",
    ]);
  });

  it("a turn's end line shows when claude's result is in, before its code is captured or saved; its changes when saved", async () => {
    const s = session([]);
    const running = s.conversation.run();
    await until(() => s.turns.length === 1);
    s.conversation.show(text("answer to first"));
    s.finish(1);
    await until(() => s.shown.length === 2);
    expect(s.shown).toEqual(["answer to first", "● turn 1"]);
    s.end(1);
    s.save(1);
    await running;
    expect(s.shown).toEqual(["answer to first", "● turn 1", "⎿ turn 1 saved"]);
  });

  it("a queued turn's end line waits behind the changes of the turn before it", async () => {
    const s = session(["q1"]);
    const running = s.conversation.run();
    await until(() => s.turns.length === 1);
    s.end(1);
    await until(() => s.turns.length === 2);
    s.conversation.show(text("reply to q1"));
    s.end(2); // turn 1 is not saved yet: nothing of turn 2 may show above its changes line
    await new Promise((r) => setImmediate(r));
    expect(s.shown).toEqual(["● turn 1"]);
    s.save(1);
    s.save(2);
    await running;
    expect(s.shown).toEqual(["● turn 1", "⎿ turn 1 saved", "reply to q1", "● turn 2", "⎿ turn 2 saved"]);
  });
});
