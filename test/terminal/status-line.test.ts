/** What the status line says while claude works, from the recorded stream, and its clock. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseLine, splitLines } from "../../src/claude/ndjson.js";
import { toStreamEvent } from "../../src/claude/stream-events.js";
import { Screen } from "../../src/terminal/screen.js";
import { activityOf } from "../../src/live/activity.js";
import { formatElapsed } from "../../src/base/format.js";
import { StatusLine } from "../../src/terminal/status-line.js";
import { makeStyle } from "../../src/terminal/style.js";

const fixture = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../fixtures/streams/partial-messages.jsonl",
);

describe("the status line", () => {
  it("follows the turn: requesting, thinking, writing, the tool running, the question, a subagent", () => {
    const lines = splitLines(readFileSync(fixture));
    const cwd = (parseLine(lines[0]!) as { cwd: string }).cwd;
    const seen: string[] = [];
    for (const line of lines) {
      const activity = activityOf(toStreamEvent(parseLine(line), ""), cwd);
      if (activity !== null && activity !== seen.at(-1)) seen.push(activity);
    }
    expect(seen.slice(0, 9)).toEqual([
      "requesting",
      "thinking",
      "writing",
      "preparing Write",
      "running Write(hello.txt)",
      "waiting for your answer",
      "working",
      "requesting",
      "writing",
    ]);
    expect(seen).toContain("subagent: Survey the repository");
    expect(seen).toContain("running Bash(rm -rf build)");
  });

  it("shows the spinner, the activity and the time since the turn began, and goes without a trace", () => {
    let now = 1_000;
    let bytes = "";
    const screen = new Screen({ columns: 80, isTTY: true, write: (t: string) => void (bytes += t) }, true);
    const status = new StatusLine({
      screen,
      style: makeStyle(false),
      enabled: true,
      cwd: "/",
      now: () => now,
      intervalMs: 60_000,
    });
    status.start("requesting");
    now += 65_000;
    status.observe(toStreamEvent({ type: "system", subtype: "status", status: "compacting" }, ""));
    expect(status.text()).toBe("⠋ compacting · 1m05s · Ctrl-C to interrupt");
    status.stop();
    expect(status.running).toBe(false);
    expect(bytes.endsWith("\u001b[J")).toBe(true); // erased
  });

  it("does nothing when it is off (stdout not a terminal)", () => {
    let bytes = "";
    const screen = new Screen({ columns: 80, isTTY: false, write: (t: string) => void (bytes += t) }, true);
    const status = new StatusLine({ screen, style: makeStyle(false), enabled: false, cwd: "/" });
    status.start();
    status.stop();
    expect(bytes).toBe("");
    expect(formatElapsed(59_999)).toBe("59s");
  });
});
