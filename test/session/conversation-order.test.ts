/**
 * The order of a live session's output when prompts were typed ahead (issue 15, items 5 and 6):
 * each turn's events, then its end line, turn after turn, though the end line can only be shown
 * once the turn is saved and the next turn may have run meanwhile. The race depends on how long
 * git takes to save a turn against how fast claude answers the next prompt, which a real run
 * cannot pin down (test/terminal/queued-order.test.ts drives it with the real claude and a pty);
 * here a stand-in for the claude link decides when each turn ends and is saved.
 */
import { describe, expect, it } from "vitest";
import type { Turn } from "../../src/bundle/manifest-schema.js";
import type { StreamEvent } from "../../src/claude/stream-events.js";
import { Conversation } from "../../src/session/conversation.js";
import type { Frontend } from "../../src/session/frontend.js";

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const text = (t: string) => ({ type: "assistant", message: { id: t, content: [{ type: "text", text: t }] } }) as unknown as StreamEvent;

async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !ok(); i++) await new Promise((r) => setImmediate(r));
  if (!ok()) throw new Error("the conversation never got there");
}

function session(typedAhead: string[]) {
  const shown: string[] = [];
  const turns: Array<{ prompt: string; ended: ReturnType<typeof deferred<unknown>>; saved: ReturnType<typeof deferred<Turn>> }> = [];
  const queue = [...typedAhead];
  const link = {
    recorder: { captureEdits: async () => null, settled: async () => undefined, listen: () => undefined },
    stderrText: "",
    lastExit: null,
    interrupt: () => "idle",
    startTurn: async (prompt: string) => {
      const turn = { prompt, ended: deferred<unknown>(), saved: deferred<Turn>() };
      turns.push(turn);
      return { n: turns.length, ended: turn.ended.promise, saved: turn.saved.promise };
    },
  };
  const frontend = {
    prompts: { next: async () => queue.shift() ?? null, hasQueued: () => queue.length > 0, close: () => undefined },
    asker: null,
    render: (event: StreamEvent) => shown.push((event as unknown as { message: { id: string } }).message.id),
    turnEnded: (turn: Turn) => shown.push(`● turn ${turn.n}`),
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
  const end = (n: number) => turns[n - 1]!.ended.resolve({ n, status: "complete", isError: false, silent: false });
  const save = (n: number) => turns[n - 1]!.saved.resolve({ n, status: "complete", result: null } as unknown as Turn);
  return { conversation, shown, turns, end, save };
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
    expect(s.shown).toEqual(["answer to first", "● turn 1", "reply to q1", "⚖ rule no-rm denied Bash(rm x)", "● turn 2", "reply to q2", "● turn 3"]);
  });
});
