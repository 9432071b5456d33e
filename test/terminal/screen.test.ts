/**
 * The screen's bottom block against a headless xterm: whatever is drawn, erased and written
 * above it, the terminal ends up showing claude's output intact and the block where it belongs.
 */
import { describe, expect, it } from "vitest";
import { Screen } from "../../src/terminal/screen.js";
import { render } from "./pty.js";

/** `onlcr`: newlines reach the terminal as CR LF, as a real pty's line discipline sends them. */
function terminal(columns: number, ansi = true, onlcr = false) {
  let bytes = "";
  const output = {
    columns,
    isTTY: true,
    write: (t: string) => void (bytes += onlcr ? t.replace(/\r?\n/g, "\r\n") : t),
  };
  return { screen: new Screen(output, ansi), bytes: () => bytes, show: (rows = 20) => render(bytes, columns, rows) };
}

describe("Screen", () => {
  it("writes claude's words as they are (a code line keeps its columns), and wraps nudge's own lines at words", async () => {
    const t = terminal(20, true, true);
    t.screen.write("  if (a) return b + c + d;\n");
    t.screen.writeLines("! alpha bravo charlie delta\n");
    expect((await t.show()).lines).toEqual(["  if (a) return b + ", "c + d;", "! alpha bravo", "charlie delta"]);
  });

  it("keeps the block under the output, whatever is written while it is shown", async () => {
    const t = terminal(20);
    t.screen.set("status", { lines: ["⠋ working · 1s"] });
    t.screen.write("first line\n");
    t.screen.set("input", { lines: ["› typed ahead"], cursor: { row: 0, col: 8 } });
    t.screen.write("second line\n");
    const { lines, cursor } = await t.show();
    expect(lines).toEqual(["first line", "second line", "⠋ working · 1s", "› typed ahead"]);
    expect(cursor).toEqual({ x: 8, y: 3 });
  });

  it("continues a half-written line where it stopped, across wraps and exact fits", async () => {
    for (const first of ["abc", "0123456789", "01234567890123456789", "012345678901234567890123"]) {
      const t = terminal(10);
      t.screen.set("status", { lines: ["status"] });
      t.screen.write(first);
      t.screen.set("status", { lines: ["status again"] }); // a redraw while the line is open
      t.screen.write("XYZ\n");
      t.screen.set("status", null);
      const expected = `${first}XYZ`.match(/.{1,10}/g)!;
      expect((await t.show()).lines, first).toEqual(expected);
    }
  });

  it("writes nothing while another program has the terminal, then what waited and the block as it is now", async () => {
    const t = terminal(30);
    t.screen.write("claude says\n");
    t.screen.set("modal", { lines: ["Allow? y"], cursor: { row: 0, col: 8 } });
    const resume = t.screen.hold();
    const lent = t.bytes().length;
    t.screen.set("status", { lines: ["⠋ waiting · 1s"] }); // the status line's ticks
    t.screen.set("status", { lines: ["⠙ waiting · 2s"] });
    t.screen.write("more words\n");
    expect(t.bytes().length).toBe(lent); // the pager's screen is left alone
    resume();
    const { lines, cursor } = await t.show();
    expect(lines).toEqual(["claude says", "more words", "Allow? y", "⠙ waiting · 2s"]);
    expect(cursor).toEqual({ x: 8, y: 2 });
  });

  it("draws a block line of exactly the terminal's width without losing a row", async () => {
    const t = terminal(10);
    t.screen.write("out\n");
    t.screen.set("input", { lines: ["› 12345678", "  abc"], cursor: { row: 1, col: 5 } });
    t.screen.write("more\n");
    const { lines, cursor } = await t.show();
    expect(lines).toEqual(["out", "more", "› 12345678", "", "  abc"]);
    expect(cursor).toEqual({ x: 5, y: 4 });
  });

  it("a modal block hides the input until it goes, the status line under it; commit leaves it on screen for good", async () => {
    const t = terminal(30);
    t.screen.set("status", { lines: ["⠋ working"] });
    t.screen.set("input", { lines: ["› typed ahead"] });
    t.screen.set("modal", { lines: ["Allow? y"], cursor: { row: 0, col: 8 } });
    expect((await t.show()).lines).toEqual(["Allow? y", "⠋ working"]);
    t.screen.set("input", null);
    t.screen.commit("modal");
    expect((await t.show()).lines).toEqual(["Allow? y", "⠋ working"]);
    t.screen.clear();
    expect((await t.show()).lines).toEqual(["Allow? y"]);
  });

  it("on a dumb terminal uses only carriage returns, spaces and backspaces", async () => {
    const t = terminal(40, false);
    t.screen.set("input", { lines: ["› abc"], cursor: { row: 0, col: 3 } });
    t.screen.set("input", { lines: ["› a"], cursor: { row: 0, col: 3 } });
    t.screen.write("claude says\n");
    t.screen.commit("input");
    expect(t.bytes()).not.toContain("\u001b");
    expect((await t.show()).lines).toEqual(["claude says", "› a"]);
  });

  it("after a hang-up writes nothing more to the terminal, but a redirected stream (stderr to a file) still gets its lines", () => {
    const t = terminal(40);
    let file = "";
    const log = { isTTY: false, write: (text: string) => void (file += text) };
    t.screen.set("input", { lines: ["› "], cursor: { row: 0, col: 2 } });
    const before = t.bytes();
    t.screen.hangUp();
    t.screen.write("claude's last words\n");
    t.screen.write("● session 1e83: 1 turn\n", log);
    t.screen.set("input", null);
    expect(t.bytes()).toBe(before);
    expect(file).toBe("● session 1e83: 1 turn\n");
  });
});

describe("Screen on a dumb terminal (TERM=dumb), a line wider than the terminal", () => {
  it("is shown once as it is typed, not printed again on every key (issue 15, item 11)", async () => {
    const t = terminal(20, false, true);
    const text = "write a long prompt that wraps twice";
    for (let n = 0; n <= text.length; n++)
      t.screen.set("input", { lines: [`› ${text.slice(0, n)}`], cursor: { row: 0, col: 2 + n } });
    const typing = await t.show();
    expect(typing.lines).toEqual(["› write a long prom", "pt that wraps twice"]);
    expect(typing.cursor).toEqual({ x: 19, y: 1 });
    t.screen.commit("input");
    t.screen.write("claude says\n");
    expect(t.bytes()).not.toContain("\u001b");
    expect((await t.show()).lines).toEqual(["› write a long prom", "pt that wraps twice", "claude says"]);
  });

  it("keeps a question's start in view and redraws only the cursor's row", async () => {
    const t = terminal(20, false);
    const label = "Allow? [y]es / [n]o / [a]lways ";
    t.screen.set("modal", { lines: [label], cursor: { row: 0, col: label.length } });
    t.screen.set("modal", { lines: [`${label}y`], cursor: { row: 0, col: label.length + 1 } });
    expect((await t.show()).lines).toEqual(["Allow? [y]es / [n]o", " / [a]lways y"]);
  });
});
