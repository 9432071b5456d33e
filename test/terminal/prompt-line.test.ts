/**
 * The prompt line on a real pty (tty-harness.ts through util-linux `script`): what a person types
 * and what the session gets as prompts.
 */
import { describe, expect, it } from "vitest";
import { runHarness } from "./pty.js";

const PASTE = (text: string) => `\u001b[200~${text}\u001b[201~`;

describe("the prompt line on a terminal", () => {
  it("takes a 3-line bracketed paste and Enter as exactly one prompt with the 3 lines", async () => {
    const t = runHarness({ steps: [{ do: "prompt" }, { do: "prompt" }] });
    await t.waitFor("› ");
    t.type(PASTE("TypeError: x is undefined\r\n    at f (a.js:1:2)\r\n    at g (b.js:3:4)"));
    await t.waitFor("at g (b.js:3:4)");
    t.type("\r");
    await t.waitForLog("prompt");
    t.type("\u0004"); // Ctrl-D on the empty line: done
    await t.child;
    expect(t.logged("prompt")).toEqual(["TypeError: x is undefined\n    at f (a.js:1:2)\n    at g (b.js:3:4)", null]);
    // On screen it stays as one prompt: three rows under the prompt sign, none of them sent apart.
    const { lines } = await t.screen();
    expect(lines.slice(0, 3)).toEqual([
      "› TypeError: x is undefined",
      "      at f (a.js:1:2)",
      "      at g (b.js:3:4)",
    ]);
  });

  it("turns bracketed paste mode on for the session and off at its end", async () => {
    const t = runHarness({ steps: [{ do: "prompt" }] });
    await t.waitFor("› ");
    t.type("\u0004");
    await t.child;
    expect(t.raw()).toContain("\u001b[?2004h");
    expect(t.raw().lastIndexOf("\u001b[?2004l")).toBeGreaterThan(t.raw().lastIndexOf("\u001b[?2004h"));
  });

  it("continues a line ending in a backslash, and Alt-Enter inserts a newline", async () => {
    const t = runHarness({ steps: [{ do: "prompt" }, { do: "prompt" }] });
    await t.waitFor("› ");
    t.type("first line \\\r");
    await t.waitFor(/› first line \s*\n/);
    t.type("second line\r");
    await t.waitForLog("prompt");
    t.type("one\u001b\rtwo\r"); // ESC CR: what a terminal sends for Alt-Enter
    await t.waitForLog("prompt", 2);
    expect(t.logged("prompt")).toEqual(["first line \nsecond line", "one\ntwo"]);
    t.type("\u0004");
    await t.child;
  });

  it("Ctrl-C clears a half-typed line; Enter on the empty line sends nothing; the next text is the prompt", async () => {
    const t = runHarness({ steps: [{ do: "prompt" }] });
    await t.waitFor("› ");
    t.type("half a thou");
    await t.waitFor("› half a thou");
    t.type("\u0003");
    await t.waitFor(/› half a thou[^\n]*\r› \s*/);
    t.type("\r");
    t.type("the real prompt\r");
    await t.waitForLog("prompt");
    expect(t.logged("prompt")).toEqual(["the real prompt"]);
    const { lines } = await t.screen();
    expect(lines.join("\n")).not.toContain("half a thou");
    expect(lines.join("\n")).not.toContain("press Ctrl-C again");
    await t.child;
  });

  it("Ctrl-C on an empty line shows a hint, and a second Ctrl-C ends the session (null)", async () => {
    const t = runHarness({ steps: [{ do: "prompts" }] });
    await t.waitFor("› ");
    t.type("\u0003");
    await t.waitFor("press Ctrl-C again to exit, or type /exit");
    expect(t.logged("prompt")).toEqual([]);
    t.type("\u0003");
    const run = await t.child;
    expect(run.exitCode).toBe(0);
    expect(t.logged("prompt")).toEqual([null]);
    expect(t.logged("end")).toEqual([{ hungUp: false }]);
  });

  it("a Ctrl-C after the hint has gone (2 s) only shows the hint again", async () => {
    const t = runHarness({ steps: [{ do: "prompts" }] });
    await t.waitFor("› ");
    t.type("\u0003");
    await t.waitFor("press Ctrl-C again");
    await new Promise((r) => setTimeout(r, 2300));
    t.type("\u0003");
    await new Promise((r) => setTimeout(r, 300));
    expect(t.logged("prompt")).toEqual([]);
    t.type("\u0003");
    await t.child;
    expect(t.logged("prompt")).toEqual([null]);
  });

  it("↑ and ↓ walk this session's prompts; an edited recall is sent as edited", async () => {
    const t = runHarness({ steps: [{ do: "prompt" }, { do: "prompt" }, { do: "prompt" }, { do: "prompt" }] });
    await t.waitFor("› ");
    t.type("first\r");
    await t.waitForLog("prompt", 1);
    t.type("second\r");
    await t.waitForLog("prompt", 2);
    t.type("\u001b[A\u001b[A"); // ↑ ↑
    await t.waitFor(/› first\s*$/);
    t.type("\r");
    await t.waitForLog("prompt", 3);
    t.type("\u001b[A\u001b[A\u001b[A\u001b[B"); // ↑ first, ↑ second, ↑ first, ↓ second
    t.type(" again\r");
    await t.waitForLog("prompt", 4);
    expect(t.logged("prompt")).toEqual(["first", "second", "first", "second again"]);
    await t.child;
  });

  it("Ctrl-D on an empty line ends the session; on text it deletes under the cursor", async () => {
    const t = runHarness({ steps: [{ do: "prompt" }, { do: "prompt" }] });
    await t.waitFor("› ");
    t.type("abc\u001b[D\u001b[D\u0004\r"); // ← ← Ctrl-D: "ac"
    await t.waitForLog("prompt");
    t.type("\u0004");
    await t.child;
    expect(t.logged("prompt")).toEqual(["ac", null]);
  });
});
