/** --prompt-file templates: checked when the loop starts, filled in for every iteration. */
import { describe, expect, it } from "vitest";
import { UserError } from "../../src/base/errors.js";
import { loopPrompts, parseTemplate, renderTemplate, type PromptValues } from "../../src/loop/prompt-template.js";

const values: PromptValues = {
  goal: "G",
  iteration: "2",
  max_iterations: "10",
  check: "npm test",
  exit_code: "1",
  summary: "1 failed, 2 passed",
  output: "OUT",
  feedback: "",
};

describe("prompt templates", () => {
  it("fills in every placeholder, with or without spaces inside the braces", () => {
    const t = parseTemplate(
      "{{goal}} #{{ iteration }}/{{max_iterations}} `{{check}}`={{exit_code}} ({{summary}})\n{{output}}",
      "t.md",
    );
    expect(renderTemplate(t, values)).toBe("G #2/10 `npm test`=1 (1 failed, 2 passed)\nOUT");
  });

  it("refuses an unknown placeholder, naming the line and the known ones", () => {
    expect(() => parseTemplate("fine\n{{goal}} {{outptu}}", "t.md")).toThrow(
      /^t\.md:2: unknown placeholder \{\{outptu\}\}$/,
    );
    const error = (() => {
      try {
        parseTemplate("{{nope}}", "t.md");
      } catch (e) {
        return e as UserError;
      }
      return null;
    })();
    expect(error?.hint).toContain("goal, iteration, max_iterations, check, exit_code, summary, output, feedback");
  });

  it("nudge's feedback goes where {{feedback}} is, or at the end when the template has no place for it", () => {
    const told = { ...values, feedback: "[nudge loop] the verifier said no" };
    expect(renderTemplate(parseTemplate("{{feedback}}\nfix: {{output}}", "t.md"), told)).toBe(
      "[nudge loop] the verifier said no\nfix: OUT",
    );
    expect(renderTemplate(parseTemplate("fix: {{output}}\n\n", "t.md"), told)).toBe(
      "fix: OUT\n\n[nudge loop] the verifier said no",
    );
    expect(renderTemplate(parseTemplate("fix: {{output}}\n", "t.md"), values)).toBe("fix: OUT\n");
  });

  it("refuses stray braces and an empty template", () => {
    expect(() => parseTemplate("{{goal}} and {{output", "t.md")).toThrow(/t\.md:1: "\{\{" without its other half/);
    expect(() => parseTemplate("x }} y", "t.md")).toThrow(/"\}\}" without its other half/);
    expect(() => parseTemplate("  \n", "t.md")).toThrow(/t\.md is empty/);
  });

  it("the goal and the template must agree: used means given, given means used", () => {
    expect(() => loopPrompts(null, { text: "{{goal}}", source: "t.md" })).toThrow(
      /uses \{\{goal\}\} but no goal was given/,
    );
    expect(() => loopPrompts("G", { text: "fix: {{output}}", source: "t.md" })).toThrow(/has no \{\{goal\}\}/);
    expect(() => loopPrompts(null, null)).toThrow(/a loop needs a goal/);
    const own = loopPrompts(null, { text: "fix: {{output}}", source: "t.md" });
    expect(renderTemplate(own.first, values)).toBe("fix: OUT");
  });

  it("by default: the goal as it is first, then the goal with the check's verdict and output", () => {
    const p = loopPrompts("G", null);
    expect(renderTemplate(p.first, values)).toBe("G");
    const next = renderTemplate(p.next, values);
    expect(
      next.startsWith(
        "G\n\n[nudge loop · iteration 2 of 10] After your last turn the check `npm test` still fails (exit status 1).",
      ),
    ).toBe(true);
    expect(next).toContain("\n\nOUT\n\n");
  });
});
