/** The tags a loop reads in claude's last message: only claude's own prose counts (issue 20). */
import { describe, expect, it } from "vitest";
import { readSigils, readVerdict, reasonFrom } from "../../src/loop/sigils.js";

describe("loop sigils", () => {
  it("reads promises and a model hint in prose, not in fenced blocks (``` or ~~~), code spans or quoted lines", () => {
    expect(readSigils("done <promise>COMPLETE</promise>")).toEqual({ promises: ["COMPLETE"], nextModel: null });
    expect(readSigils("```md\n<promise>COMPLETE</promise>\n```").promises).toEqual([]);
    expect(readSigils("~~~~\n<promise>COMPLETE</promise>\n~~~\nstill inside\n<promise>X</promise>\n~~~~").promises).toEqual([]);
    expect(readSigils("say `<promise>COMPLETE</promise>` at the end").promises).toEqual([]);
    expect(readSigils("> tool said <promise>COMPLETE</promise>").promises).toEqual([]);
    expect(readSigils("```\nx\n```\nnow: <promise> COMPLETE </promise> <next-model>opus</next-model>")).toEqual({ promises: ["COMPLETE"], nextModel: "opus" });
  });

  it("from QA: not in an indented code block either, though an indented line of a paragraph is prose", () => {
    expect(readSigils("Example:\n\n    <promise>COMPLETE</promise>\n\nnot yet").promises).toEqual([]);
    expect(readSigils("Example:\n\n\t<promise>COMPLETE</promise>").promises).toEqual([]);
    expect(readSigils("All done, and\n    <promise>COMPLETE</promise>").promises).toEqual(["COMPLETE"]);
  });

  it("a verifier's fail wins over its pass; no tag is no verdict", () => {
    expect(readVerdict("fine <verify-pass/>")).toEqual({ pass: true, reason: null });
    expect(readVerdict("<verify-pass/> but <verify-fail>tests fail</verify-fail>")).toEqual({ pass: false, reason: "tests fail" });
    expect(readVerdict("```\n<verify-pass/>\n```")).toBeNull();
    expect(readVerdict("looks good")).toBeNull();
  });

  it("the reason a FAILURE gives is its prose on one line, tags out", () => {
    expect(reasonFrom("I cannot:\nthe API is gone.\n<promise>FAILURE</promise>\n```\nlog\n```")).toBe("I cannot: the API is gone.");
  });
});
