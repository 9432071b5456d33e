/**
 * The prompts a loop sends. Without --prompt-file: the goal as it is for the first iteration, then
 * the goal with the check's verdict and the end of its output. With --prompt-file: that template
 * for every iteration, the first included (filled in from the check run before it).
 *
 * Placeholders are `{{name}}` (spaces inside the braces allowed). The template is checked when the
 * loop starts, so a typo is one clear error, not a strange prompt at 3 a.m.
 */
import { UserError } from "../base/errors.js";

export const PLACEHOLDERS = {
  goal: "the goal given on the command line",
  iteration: "this iteration's number (1 for the first prompt)",
  max_iterations: "--max-iterations",
  check: "the --until command",
  exit_code: 'the check\'s exit status after the last turn, or before the first ("timeout" when it timed out)',
  summary: 'the test runner\'s counts when its output has them ("3 failed, 10 passed"), else empty',
  output: "the last lines of the check's output (without colours)",
  feedback:
    "what nudge has to tell claude (a promise the check refuted, the verifier's reason); when not used, it is added at the end",
} as const;

type PlaceholderName = keyof typeof PLACEHOLDERS;
export type PromptValues = Record<PlaceholderName, string>;

export interface Template {
  /** Where it came from, for error messages. */
  source: string;
  parts: Array<{ text: string } | { name: PlaceholderName }>;
  uses: Set<PlaceholderName>;
}

const DEFAULT_NEXT = `{{goal}}

[nudge loop · iteration {{iteration}} of {{max_iterations}}] After your last turn the check \`{{check}}\` still fails (exit status {{exit_code}}). The end of its output:

{{output}}

Keep working towards the goal; the loop ends when the check exits 0.`;

/** A template's text, checked: every {{…}} a known placeholder, no stray braces. */
export function parseTemplate(text: string, source: string): Template {
  if (text.trim() === "")
    throw new UserError(`${source} is empty`, "write the prompt to send each iteration, e.g. {{goal}} and {{output}}");
  const parts: Template["parts"] = [];
  const uses = new Set<PlaceholderName>();
  const known = Object.keys(PLACEHOLDERS).join(", ");
  let at = 0;
  for (const m of text.matchAll(/\{\{([^{}]*)\}\}/g)) {
    const name = m[1]!.trim();
    if (!(name in PLACEHOLDERS)) {
      throw new UserError(
        `${source}:${lineOf(text, m.index)}: unknown placeholder {{${name}}}`,
        `the placeholders are ${known}`,
      );
    }
    checkStray(text.slice(at, m.index), text, at, source);
    parts.push({ text: text.slice(at, m.index) }, { name: name as PlaceholderName });
    uses.add(name as PlaceholderName);
    at = m.index + m[0].length;
  }
  checkStray(text.slice(at), text, at, source);
  parts.push({ text: text.slice(at) });
  return { source, parts: parts.filter((p) => !("text" in p) || p.text !== ""), uses };
}

function checkStray(segment: string, text: string, offset: number, source: string): void {
  const i = segment.search(/\{\{|\}\}/);
  if (i === -1) return;
  throw new UserError(
    `${source}:${lineOf(text, offset + i)}: "${segment.slice(i, i + 2)}" without its other half`,
    "placeholders are written {{name}}, e.g. {{output}}",
  );
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split("\n").length;
}

export function renderTemplate(template: Template, values: PromptValues): string {
  const text = template.parts.map((p) => ("text" in p ? p.text : values[p.name])).join("");
  // nudge's feedback reaches claude whether or not the template has a place for it.
  return values.feedback && !template.uses.has("feedback") ? `${text.replace(/\s+$/, "")}\n\n${values.feedback}` : text;
}

export interface LoopPrompts {
  /** The first iteration's prompt. */
  first: Template;
  /** Every later one. */
  next: Template;
  /** nudge's own prompts (no --prompt-file): they tell claude how the loop ends. */
  usesDefault: boolean;
}

const DEFAULT_NEXT_NO_CHECK = `{{goal}}

[nudge loop · iteration {{iteration}} of {{max_iterations}}] Keep working towards the goal.`;

/** The default prompts, or the user's template for all iterations; the goal must be there if it is used. */
export function loopPrompts(
  goal: string | null,
  file: { text: string; source: string } | null,
  hasCheck = true,
): LoopPrompts {
  if (!file) {
    if (goal === null)
      throw new UserError("a loop needs a goal", 'nudge claude loop "<goal>" --until "<check>" (or --prompt-file)');
    return {
      first: parseTemplate("{{goal}}", "the goal"),
      next: parseTemplate(hasCheck ? DEFAULT_NEXT : DEFAULT_NEXT_NO_CHECK, "the default prompt"),
      usesDefault: true,
    };
  }
  const template = parseTemplate(file.text, file.source);
  if (template.uses.has("goal") && goal === null) {
    throw new UserError(
      `${file.source} uses {{goal}} but no goal was given`,
      'give one: nudge claude loop "<goal>" --prompt-file …',
    );
  }
  if (!template.uses.has("goal") && goal !== null) {
    throw new UserError(
      `${file.source} has no {{goal}}, so the goal given would never be sent`,
      "put {{goal}} in the template, or leave the goal out",
    );
  }
  return { first: template, next: template, usesDefault: false };
}
