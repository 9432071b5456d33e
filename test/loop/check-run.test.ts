/** The --until check as a real process: its exit status, the end of its output, a timeout. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCheck } from "../../src/loop/check-run.js";
import { tempDir } from "../support/gitdir.js";

describe("runCheck", () => {
  it("keeps the exit status and the output without colours, a redrawn line in its last state", async () => {
    const run = await runCheck(
      "printf '\\033[31mred\\033[0m\\nprogress 10%%\\rprogress 100%%\\n'; echo oops >&2; exit 4",
      { cwd: tempDir(), timeoutMs: 10_000 },
    );
    expect(run).toMatchObject({ exitCode: 4, timedOut: false, aborted: false, tail: "red\nprogress 100%\noops" });
  });

  it("runs in the folder given, and keeps only the last lines of a long output", async () => {
    const dir = tempDir();
    const run = await runCheck("pwd; seq 1 200000", { cwd: dir, timeoutMs: 10_000 });
    expect(run.exitCode).toBe(0);
    expect(run.outputBytes).toBeGreaterThan(1_000_000);
    expect(run.tail.split("\n")).toHaveLength(60);
    expect(run.tail.endsWith("\n199999\n200000")).toBe(true);
    const first = await runCheck("pwd", { cwd: dir, timeoutMs: 10_000 });
    expect(first.tail).toBe(dir);
  });

  it("a check that runs too long is stopped with everything it started, and counts as timed out", async () => {
    const dir = tempDir();
    const started = Date.now();
    const run = await runCheck("sleep 30 & echo $! > bg.pid; echo waiting; wait", { cwd: dir, timeoutMs: 500 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(run).toMatchObject({ exitCode: null, timedOut: true });
    expect(run.tail).toMatch(/^waiting\n\(nudge: the check timed out after 1s and was stopped\)$/);
    const pid = Number(readFileSync(path.join(dir, "bg.pid"), "utf8"));
    // The background sleep went with it: gone, or a zombie waiting for a reaper that is not nudge.
    await new Promise((r) => setTimeout(r, 100));
    expect(processState(pid)).toMatch(/^(gone|Z)$/);
  });

  it("an abort (Ctrl-C, the time budget) stops it without a verdict", async () => {
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 200);
    const run = await runCheck("sleep 30", { cwd: tempDir(), timeoutMs: 60_000, signal: abort.signal });
    expect(run).toMatchObject({ exitCode: null, aborted: true, timedOut: false });
  });
});

function processState(pid: number): string {
  try {
    return /^State:\s+(\w)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? "?";
  } catch {
    return "gone";
  }
}
