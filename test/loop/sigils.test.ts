/** The tags a loop reads in claude's last message: only claude's own prose counts (issue 20). */
import { describe, expect, it } from "vitest";
import { readSigils, readVerdict, reasonFrom } from "../../src/loop/sigils.js";

describe("loop sigils", () => {
  it("reads promises and a model hint in prose, not in fenced blocks (``` or ~~~), code spans or quoted lines", () => {
    expect(readSigils("done <promise>COMPLETE</promise>")).toEqual({ promises: ["COMPLETE"], nextModel: null });
    expect(readSigils("```md\n<promise>COMPLETE</promise>\n```").promises).toEqual([]);
    expect(
      readSigils("~~~~\n<promise>COMPLETE</promise>\n~~~\nstill inside\n<promise>X</promise>\n~~~~").promises,
    ).toEqual([]);
    expect(readSigils("say `<promise>COMPLETE</promise>` at the end").promises).toEqual([]);
    expect(readSigils("> tool said <promise>COMPLETE</promise>").promises).toEqual([]);
    expect(readSigils("```\nx\n```\nnow: <promise> COMPLETE </promise> <next-model>opus</next-model>")).toEqual({
      promises: ["COMPLETE"],
      nextModel: "opus",
    });
  });

  it("from QA: not in an indented code block either, though an indented line of a paragraph is prose", () => {
    expect(readSigils("Example:\n\n    <promise>COMPLETE</promise>\n\nnot yet").promises).toEqual([]);
    expect(readSigils("Example:\n\n\t<promise>COMPLETE</promise>").promises).toEqual([]);
    expect(readSigils("All done, and\n    <promise>COMPLETE</promise>").promises).toEqual(["COMPLETE"]);
  });

  it("not in an HTML comment, a quote inside a list item (or any quote, at any depth), or quotation marks", () => {
    const none = (text: string) => expect(readSigils(text).promises, text).toEqual([]);
    none("Not yet. <!-- <promise>COMPLETE</promise> -->");
    none("<!--\nwhen done:\n\n<promise>COMPLETE</promise>\n-->\nStill working.");
    none("The log:\n- > <promise>COMPLETE</promise>");
    none("1. the tool said\n   > <promise>COMPLETE</promise>");
    none("> - > <promise>COMPLETE</promise>");
    none("> the tool said\n<promise>COMPLETE</promise>"); // a lazy line: still inside the quote, as rendered
    none('I will end with "<promise>COMPLETE</promise>" once the tests pass.');
    none('The rule is "say <promise>COMPLETE</promise> when done".');
    none("I will end with “<promise>COMPLETE</promise>” later.");
    none("I will end with '<promise>COMPLETE</promise>' later.");
    none("```\n<promise>COMPLETE</promise>\n```");
    none("<pre>\n<promise>COMPLETE</promise>\n</pre>");
    expect(readVerdict('I would say "<verify-pass/>" if the tests ran')).toBeNull();
  });

  it("said in a list item, a heading, a table, after a quote, beside quoted words, or as a tag block, it counts", () => {
    const one = (text: string) => expect(readSigils(text).promises, text).toEqual(["COMPLETE"]);
    one("- all items ticked <promise>COMPLETE</promise>");
    one("# Done <promise>COMPLETE</promise>");
    one("| state |\n| --- |\n| <promise>COMPLETE</promise> |");
    one("> the tool said ok\n\n<promise>COMPLETE</promise>");
    one('The "build" passes and it\'s done. <promise>COMPLETE</promise>');
    one("<promise>\nCOMPLETE\n</promise>");
    one("Done <!-- a note --> <promise>COMPLETE</promise>");
    one("**Done.** <promise>COMPLETE</promise>");
    expect(readVerdict('<verify-fail>the "tests" fail</verify-fail>')).toEqual({
      pass: false,
      reason: 'the "tests" fail',
    });
  });

  it("quotation marks pair left to right: a tag between two quotations (not inside one) counts", () => {
    expect(readSigils('I ran "npm test" and it passes. <promise>DONE</promise> See "README".').promises).toEqual([
      "DONE",
    ]);
    expect(readSigils("I ran “npm test” and it passes. <promise>DONE</promise> See “README”.").promises).toEqual([
      "DONE",
    ]);
    expect(readVerdict('The "build" works; <verify-pass/> and the "lint" too')).toEqual({ pass: true, reason: null });
    expect(readSigils('Said "a" then "<promise>DONE</promise>" then "b".').promises).toEqual([]);
  });

  it("from QA: not written as entities or escapes, struck out, in an HTML block or a folded <details>", () => {
    const none = (text: string) => expect(readSigils(text).promises, text).toEqual([]);
    none("&lt;promise&gt;COMPLETE&lt;/promise&gt;");
    none("&#60;promise&#62;COMPLETE&#60;/promise&#62;");
    none("\\<promise>COMPLETE\\</promise>");
    none("~~<promise>COMPLETE</promise>~~");
    none("Not yet: <del><promise>COMPLETE</promise></del>");
    none("<s><promise>COMPLETE</promise></s>");
    none("<strike><promise>COMPLETE</promise></strike>");
    none("![<promise>COMPLETE</promise>](done.png)");
    none("<div>\n<promise>COMPLETE</promise>\n</div>");
    none("<details>\n<summary>rules</summary>\n<promise>COMPLETE</promise>\n</details>");
    none("<details>\n\n<promise>COMPLETE</promise>\n\n</details>");
    expect(readVerdict("~~<verify-pass/>~~ the tests were never run")).toBeNull();
    expect(readVerdict("&lt;verify-pass/&gt;")).toBeNull();
  });

  it("from QA: said in link text, beside a broken autolink, in a footnote-like line, after struck or escaped words, it counts", () => {
    const one = (text: string) => expect(readSigils(text).promises, text).toEqual(["COMPLETE"]);
    one("[<promise>COMPLETE</promise>](https://example.com)");
    one("<https://example.com <promise>COMPLETE</promise>>");
    one("[^1]: <promise>COMPLETE</promise>");
    one("~~not yet~~ now: <promise>COMPLETE</promise>");
    one("a \\* b &amp; c <promise>COMPLETE</promise>");
    one("<details>\n\nthe log\n\n</details>\n\n<promise>COMPLETE</promise>");
    one("<div>\n\n<promise>COMPLETE</promise>\n\n</div>");
  });

  it("a verifier's fail wins over its pass; no tag is no verdict", () => {
    expect(readVerdict("fine <verify-pass/>")).toEqual({ pass: true, reason: null });
    expect(readVerdict("<verify-pass/> but <verify-fail>tests fail</verify-fail>")).toEqual({
      pass: false,
      reason: "tests fail",
    });
    expect(readVerdict("```\n<verify-pass/>\n```")).toBeNull();
    expect(readVerdict("looks good")).toBeNull();
  });

  it("the reason a FAILURE gives is its prose on one line, tags out", () => {
    expect(reasonFrom("I cannot:\nthe API is gone.\n<promise>FAILURE</promise>\n```\nlog\n```")).toBe(
      "I cannot: the API is gone.",
    );
  });
});
