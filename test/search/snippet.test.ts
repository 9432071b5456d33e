/** A hit's one-line snippet: in the terminal, markdown reads as rendered; the match stays marked; escapes stay inert. */
import { describe, expect, it } from "vitest";
import { snippetOf } from "../../src/search/snippet.js";

/** The snippet with its matches in brackets, as the terminal shows them without colour. */
const shown = (text: string, word: string, plain = true) => {
  const at = text.indexOf(word);
  const s = snippetOf(text, [[at, at + word.length]], { plain });
  let out = "";
  let from = 0;
  for (const [a, b] of s.matches) {
    out += `${s.text.slice(from, a)}[${s.text.slice(a, b)}]`;
    from = b;
  }
  return out + s.text.slice(from);
};

describe("search snippets", () => {
  it("leave markdown's markers out in the terminal, and keep the match marked", () => {
    expect(shown("The **auth timeout** was `raised` to _30 s_.", "timeout")).toBe(
      "The auth [timeout] was raised to 30 s.",
    );
    expect(shown("## Fixed\n> see [the retry docs](https://x.test/retry) and ~~old~~ notes", "retry")).toBe(
      "Fixed see the [retry] docs and old notes",
    );
    expect(shown("```ts\nconst timeout = 30;\n```", "timeout")).toBe("const [timeout] = 30;");
  });

  it("keep what only looks like markup: lone stars, snake_case, markers inside code", () => {
    expect(shown("run `a*b*c` on *.ts and src/**/x in auth_timeout_ms", "auth_timeout_ms")).toBe(
      "run a*b*c on *.ts and src/**/x in [auth_timeout_ms]",
    );
    expect(shown("The **auth timeout**", "timeout", false)).toBe("The **auth [timeout]**");
  });

  it("keep a session's control characters inert", () => {
    expect(shown("**bold** \u001b[31mred\u001b[0m", "red")).not.toContain("\u001b");
  });

  it("of a tool's input (JSON) never start or end inside one of its escapes", () => {
    // The match 60 characters on: the window would start at the `u` of `\u202e`.
    const json = `{"file": "${"x".repeat(40)}bidi\\u202etxt.exe${"y".repeat(47)} zebrafish"}`;
    const at = json.indexOf("zebrafish");
    expect(json.slice(at - 60, at - 55)).toBe("u202e");
    const s = snippetOf(json, [[at, at + "zebrafish".length]], { json: true });
    expect(s.text).toMatch(/^…\\u202etxt\.exe/);
    expect(s.text.slice(s.matches[0]![0], s.matches[0]![1])).toBe("zebrafish");
  });
});
