/** shellQuote, checked against a real POSIX shell: what it prints must read back as the same word. */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { shellQuote } from "../src/base/shell-quote.js";

/** The word after `sh` has parsed the quoted form: printf prints exactly its one argument. */
const throughShell = (quoted: string) => execFileSync("sh", ["-c", `printf %s ${quoted}`], { encoding: "utf8" });

describe("shellQuote", () => {
  it("leaves a word of only safe characters as it is", () => {
    for (const word of ["/tmp/app-try_b", "7c01d2a9e4", "a.b,c:d@e%f+g=h", "-r"]) expect(shellQuote(word)).toBe(word);
  });

  it("wraps anything else in single quotes, with an embedded ' written as '\\''", () => {
    expect(shellQuote("/tmp/with space $(id)")).toBe("'/tmp/with space $(id)'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote("")).toBe("''");
    expect(shellQuote("~/app")).toBe("'~/app'");
  });

  it("reads back through sh as the same word, running nothing", () => {
    const words = ["/tmp/with space $(id)", "it's `id` & ;|<>", "'", "a\nb\tc", "$HOME", "*", "ünïcødé dir", "!x", "~"];
    for (const word of words) expect(throughShell(shellQuote(word))).toBe(word);
  });
});
