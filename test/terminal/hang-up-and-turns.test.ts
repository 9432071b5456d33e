/**
 * The terminal going away, and keys while claude works, on a real pty: the hang-up is a clean
 * null (never a stack trace), Ctrl-C mid-turn is the turn's interrupt, lines typed ahead become
 * the next prompts, and the status line leaves nothing behind.
 */
import { execa } from "execa";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runHarness } from "./pty.js";

const HANG_UP = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src/terminal/hang-up.ts");

describe("the terminal closing", () => {
  for (const how of ["SIGHUP", "the read error alone (SIGHUP ignored)"]) {
    it(`at the prompt: next() gives null, the hang-up is reported, no stack trace (${how})`, async () => {
      const env: Record<string, string> = how === "SIGHUP" ? {} : { HARNESS_IGNORE_SIGHUP: "1" };
      const t = runHarness(
        { steps: [{ do: "prompt" }, { do: "prompt" }, { do: "rawWrite", text: "a write to the closed terminal\n" }] },
        { env },
      );
      await t.waitFor("› ");
      t.type("half typed");
      await t.waitFor("half typed");
      t.child.kill("SIGKILL"); // the terminal emulator dies: the pty's other end closes
      await t.child;
      await t.waitForLog("end");
      expect(t.log()).toEqual([{ hangUp: true }, { prompt: null }, { prompt: null }, { end: { hungUp: true } }]);
      expect(t.stderr()).toBe("");
    });
  }

  it("mid-turn: the hang-up is reported while claude works, and the next prompt is null", async () => {
    const t = runHarness({
      steps: [
        { do: "prompt" },
        { do: "start" },
        { do: "write", text: "working on it\n" },
        { do: "wait", ms: 15_000 },
        { do: "stop" },
        { do: "prompt" },
      ],
    });
    await t.waitFor("› ");
    t.type("go\r");
    await t.waitFor("working on it");
    t.child.kill("SIGKILL");
    await t.child;
    await t.waitForLog("end");
    expect(t.logged("hangUp")).toEqual([true]);
    expect(t.logged("waited")).toEqual(["interrupted"]);
    expect(t.logged("prompt")).toEqual(["go", null]);
    expect(t.stderr()).toBe("");
  });
});

describe("exitAsHangUp", () => {
  it("ends the process as a hang-up does (SIGHUP: status 129 in a shell), even with SIGHUP listeners of its own", async () => {
    const code = `process.on("SIGHUP", () => {}); const m = await import(${JSON.stringify(HANG_UP)}); m.exitAsHangUp(); setTimeout(() => {}, 5000);`;
    const run = await execa("node", ["--import", "tsx", "--input-type=module", "-e", code], { reject: false });
    expect(run.signal).toBe("SIGHUP");
    const shell = await execa(
      "sh",
      ["-c", `node --import tsx --input-type=module -e '${code.replaceAll("'", `'\\''`)}'; echo "status $?"`],
      { reject: false },
    );
    expect(shell.stdout).toBe("status 129");
  });
});

describe("keys while claude works", () => {
  it("Ctrl-C interrupts the turn; it does not end the session", async () => {
    const t = runHarness({
      steps: [{ do: "prompt" }, { do: "start" }, { do: "wait", ms: 15_000 }, { do: "stop" }, { do: "prompt" }],
    });
    await t.waitFor("› ");
    t.type("long task\r");
    await t.waitFor("Ctrl-C to interrupt");
    t.type("\u0003");
    await t.waitForLog("waited");
    expect(t.logged("interrupt")).toEqual([true]);
    expect(t.logged("waited")).toEqual(["interrupted"]);
    await t.waitFor(/› \s*$/);
    t.type("after\r");
    await t.child;
    expect(t.logged("prompt")).toEqual(["long task", "after"]);
  });

  it("lines typed while claude works are kept, in order, as the next prompts; a half-typed one waits at the prompt", async () => {
    const t = runHarness({
      steps: [
        { do: "prompt" },
        { do: "start" },
        { do: "wait", ms: 2500 },
        { do: "queued" },
        { do: "stop" },
        { do: "prompt" },
        { do: "prompt" },
        { do: "prompt" },
      ],
    });
    await t.waitFor("› ");
    t.type("first\r");
    await t.waitFor("Ctrl-C to interrupt");
    t.type("second\r");
    await t.waitFor("queued: second");
    t.type(`\u001b[200~third\r\nwith two lines\u001b[201~\r`);
    await t.waitFor("queued: third ⏎ with two lines");
    t.type("four");
    await t.waitForLog("prompt", 3);
    expect(t.logged("queued")).toEqual([true]);
    expect(t.logged("prompt")).toEqual(["first", "second", "third\nwith two lines"]);
    await t.waitFor(/› four\s*$/); // not sent: it waits at the prompt, to be finished
    t.type(" and more\r");
    await t.child;
    expect(t.logged("prompt")).toEqual(["first", "second", "third\nwith two lines", "four and more"]);
    // Each sent prompt is on screen once, where it was sent; the status line has left nothing behind.
    const { lines } = await t.screen();
    const text = lines.join("\n");
    expect(text.match(/› second/g)).toHaveLength(1);
    expect(text).not.toMatch(/Ctrl-C to interrupt|queued:/);
  });

  it("streamed text continues on its line around the status line, which is erased when the turn ends", async () => {
    const t = runHarness(
      {
        steps: [
          { do: "prompt" },
          { do: "start" },
          { do: "write", text: "Hello, " },
          { do: "wait", ms: 400 },
          { do: "write", text: "this line was streamed in three parts " },
          { do: "wait", ms: 400 },
          { do: "write", text: "and wraps at forty columns.\nNext line.\n" },
          { do: "wait", ms: 400 },
          { do: "stop" },
          { do: "prompt" },
        ],
      },
      { cols: 40 },
    );
    await t.waitFor("› ");
    t.type("go\r");
    await t.waitFor("Next line.");
    await t.waitFor(/› \s*$/);
    const { lines } = await t.screen();
    expect(lines).toEqual([
      "› go",
      "Hello, this line was streamed in three p",
      "arts and wraps at forty columns.",
      "Next line.",
      "› ",
    ]);
    t.type("\u0004");
    await t.child;
  });

  it("on a dumb terminal (TERM=dumb) there is no status line, and the prompt line still works", async () => {
    const t = runHarness(
      {
        steps: [
          { do: "prompt" },
          { do: "start" },
          { do: "write", text: "answer\n" },
          { do: "wait", ms: 300 },
          { do: "stop" },
          { do: "prompt" },
        ],
      },
      { term: "dumb" },
    );
    await t.waitFor("› ");
    t.type("abc\u007f\u007fxy\r"); // two backspaces
    await t.waitFor("answer");
    await t.waitFor(/answer\s*› $/);
    t.type("\u0004");
    await t.child;
    expect(t.logged("prompt")).toEqual(["axy", null]);
    expect(t.raw()).not.toContain("Ctrl-C to interrupt");
    expect(t.raw()).not.toMatch(/\u001b\[\d*[ABCDJK]/); // no cursor movement, no erasing
  });
});
