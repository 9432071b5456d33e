/**
 * A turn ended by claude's own UI's Stop hook (`endTurnByHook`): its lines come after the hook and
 * its code is captured meanwhile. The next turn may begin and end while that capture is still
 * running (a big work tree); the turn's record still ends where its own lines did.
 */
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitdir, tempDir } from "../support/gitdir.js";

const line = (o: object) => `${JSON.stringify(o)}\n`;
const part = (prompt: string, answer: string) =>
  Buffer.from(
    line({ type: "user", message: { role: "user", content: prompt } }) +
      line({ type: "assistant", message: { role: "assistant", content: [{ type: "text", text: answer }] } }) +
      line({ type: "system", subtype: "turn_duration", durationMs: 10 }),
  );

describe("a turn ended by a hook", () => {
  it("ends at its own lines when the next turn's lines are taken while its capture is still running", async () => {
    const release = path.join(tempDir(), "release");
    // The first turn-end capture is held until the test lets it go (read when the module loads).
    process.env.NUDGE_FAULT = "turn-capture:hold";
    process.env.NUDGE_FAULT_RELEASE = release;
    const { SessionRecorder } = await import("../../src/recorder/session-recorder.js");
    const { openStore } = await import("../../src/store/store.js");
    const { createSession } = await import("../../src/live/open-session.js");
    const repo = await gitdir();
    const store = await openStore(repo);
    const opened = await createSession(store, repo);
    const recorder = await SessionRecorder.start(opened.dir, opened.manifest, {
      claudeConfigDir: tempDir(),
      cwd: repo,
      exclude: [],
      indexFile: path.join(tempDir(), "index"),
      untrackedCache: false,
    });
    try {
      recorder.beginTurn("one");
      const one = recorder.endTurnByHook(Promise.resolve({ lines: part("one", "first answer"), upTo: 0 }), true)!;
      await new Promise((r) => setTimeout(r, 50));
      recorder.beginTurn("two");
      const two = recorder.endTurnByHook(Promise.resolve({ lines: part("two", "second answer"), upTo: 0 }), true)!;
      await new Promise((r) => setTimeout(r, 50));
      expect(existsSync(release)).toBe(false);
      writeFileSync(release, "");
      const [first, second] = [await one.saved, await two.saved];
      expect([first.lines, second.lines]).toEqual([
        { from: 0, to: 3 },
        { from: 3, to: 6 },
      ]);
    } finally {
      await recorder.close();
      delete process.env.NUDGE_FAULT;
      delete process.env.NUDGE_FAULT_RELEASE;
    }
  });
});
