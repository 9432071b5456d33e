/**
 * An iteration's prompt, filled in: the template's placeholders from the loop's settings, the
 * check after the last turn and what nudge has to tell claude.
 */
import type { CheckRun } from "./check-run.js";
import { describeSummary, parseTestSummary } from "./check-summary.js";
import { renderTemplate, type PromptValues, type Template } from "./prompt-template.js";

export interface PromptSettings {
  goal: string | null;
  /** The --until check; null: none. */
  check: string | null;
  /** --until-promise; null: none. */
  promise: string | null;
  maxIterations: number;
  /** nudge's own prompts are used, which do not mention the promise: it is asked for in the feedback. */
  usesDefault: boolean;
}

/** `iteration`: the one the prompt starts (1 for the first); `check`: the last check (null: none). */
export function iterationPrompt(
  template: Template,
  settings: PromptSettings,
  iteration: number,
  check: CheckRun | null,
  feedback: string[],
): string {
  const summary = check ? parseTestSummary(check.output) : null;
  const promise =
    settings.promise !== null && settings.usesDefault
      ? [`[nudge loop] When the whole task is done, end your last message with <promise>${settings.promise}</promise>.`]
      : [];
  const values: PromptValues = {
    goal: settings.goal ?? "",
    iteration: String(iteration),
    max_iterations: String(settings.maxIterations),
    check: settings.check ?? "(no check)",
    exit_code: check === null ? "(no check)" : check.exitCode === null ? "timeout" : String(check.exitCode),
    summary: summary ? describeSummary(summary) : "",
    output: check === null ? "(no check)" : check.tail === "" ? "(no output)" : check.tail,
    feedback: [...feedback, ...promise].join("\n\n"),
  };
  return renderTemplate(template, values);
}
