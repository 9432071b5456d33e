/**
 * Everything a loop settles before claude is started: the check parses, the prompt template is
 * sound, and the check is run once on the work tree as it is. That first run is the baseline
 * (what the first prompt template sees, what the guards compare with, the starting point of
 * "best turn"), and it catches a check that cannot run at all before any money is spent.
 */
import { UserError } from "../base/errors.js";
import type { Budget } from "./budget.js";
import type { Sandbox } from "../claude/sandbox.js";
import { assertCheckSyntax, runCheck, type CheckRun } from "./check-run.js";
import type { GuardSettings } from "./guards.js";
import { LoopDriver } from "./loop-driver.js";
import { describeCheck } from "./loop-report.js";
import { ModelPlan, type ModelSettings } from "./model-plan.js";
import { readPromptFile, type PromptFile } from "./prompt-file.js";
import { loopPrompts, parseTemplate, PLACEHOLDERS, renderTemplate, type PromptValues } from "./prompt-template.js";
import { verifierPrompt } from "./verifier.js";

export interface LoopStart {
  goal: string | null;
  /** null: no --until, the promise alone ends the loop. */
  check: string | null;
  checkTimeoutMs: number;
  promptFile: PromptFile | null;
  fresh: boolean;
  promise: string | null;
  failPromise: string;
  /** --verify: true for nudge's verifier prompt, or the verifier's prompt file. */
  verify: PromptFile | true | null;
  models: ModelSettings;
  budget: Budget;
  guards: GuardSettings;
  /** Where the check runs: the folder claude works in. */
  cwd: string;
  newSession: boolean;
  verbose: boolean;
  say: (line: string) => void;
  /** --sandbox: the check runs confined as claude does. */
  sandbox: Sandbox | null;
  /** The verifier's sandbox, the work tree read-only; null where bubblewrap cannot make one. */
  verifierSandbox: Sandbox | null;
}

/** The loop, ready to drive a run; null when the user stopped it during the first check. */
export async function startLoop(settings: LoopStart): Promise<LoopDriver | null> {
  if (settings.check !== null) await assertCheckSyntax(settings.check);
  const prompts = loopPrompts(settings.goal, settings.promptFile, settings.check !== null);
  // Read again before every iteration: editing the file steers the loop.
  const reloadPrompts = async () =>
    settings.promptFile
      ? loopPrompts(settings.goal, await readPromptFile(settings.promptFile.source), settings.check !== null)
      : prompts;
  const verify = settings.verify;
  const verifyPrompt =
    verify === null
      ? null
      : async () =>
          verify === true
            ? verifierPrompt(await taskOf(settings))
            : (await readPromptFile(verify.source, "--verify")).text;
  const startedAt = Date.now();
  const ends = [
    settings.check !== null ? `\`${settings.check}\` exits 0` : null,
    settings.promise !== null ? `claude says <promise>${settings.promise}</promise>` : null,
  ].filter((x) => x !== null);
  settings.say(
    `↻ loop until ${ends.join(" and ")}${settings.verify ? ", and a verifier agrees" : ""} · ${describeLimits(settings)}${settings.fresh ? " · a fresh claude every iteration" : ""}`,
  );
  const common = {
    ...settings,
    prompts,
    reloadPrompts,
    verifyPrompt,
    models: new ModelPlan(settings.models),
    startedAt,
  };
  if (settings.check === null) return new LoopDriver({ ...common, check: null, baseline: null });
  const baseline = await firstCheck(settings, settings.check);
  if (baseline.aborted) return null;
  if (baseline.exitCode === 126 || baseline.exitCode === 127) {
    const why = baseline.tail.split("\n").at(-1) ?? "";
    throw new UserError(
      `the check cannot run (exit ${baseline.exitCode}${why ? `: ${why}` : ""})`,
      baseline.exitCode === 127
        ? "fix the command given to --until; if claude is to create it, let the check fail until then: --until 'test -x ./check.sh && ./check.sh'"
        : "the command given to --until is not executable: chmod +x it, or run it through its interpreter",
    );
  }
  settings.say(
    `  check before the first turn: ${describeCheck(baseline)}${baseline.exitCode === 0 ? " already; the loop ends after the first turn if it still passes" : ""}`,
  );
  return new LoopDriver({ ...common, check: settings.check, baseline });
}

/** The task for the verifier: the prompt file as it is now, {{goal}} filled and the per-iteration
 *  placeholders empty, so the verifier never sees a raw {{…}}. */
async function taskOf(settings: LoopStart): Promise<string> {
  if (!settings.promptFile) return settings.goal ?? "";
  const file = await readPromptFile(settings.promptFile.source).catch(() => settings.promptFile!);
  const template = parseTemplate(file.text, file.source);
  const values = Object.fromEntries(Object.keys(PLACEHOLDERS).map((name) => [name, ""])) as PromptValues;
  values.goal = settings.goal ?? "";
  return renderTemplate(template, values).trim();
}

/** Ctrl-C during the first check stops it (it runs in its own process group, out of the terminal's reach). */
async function firstCheck(settings: LoopStart, check: string): Promise<CheckRun> {
  const abort = new AbortController();
  const onSigint = () => abort.abort();
  process.on("SIGINT", onSigint);
  try {
    return await runCheck(check, {
      cwd: settings.cwd,
      timeoutMs: settings.checkTimeoutMs,
      signal: abort.signal,
      sandbox: settings.sandbox,
    });
  } finally {
    process.off("SIGINT", onSigint);
  }
}

function describeLimits(settings: LoopStart): string {
  const { budget, guards } = settings;
  const limits = [`at most ${budget.iterations} iteration${budget.iterations === 1 ? "" : "s"}`];
  if (budget.costUsd !== null) limits.push(`$${budget.costUsd}`);
  if (budget.minutes !== null) limits.push(`${budget.minutes} min`);
  const watching = [
    guards.noChange !== null ? `no change ×${guards.noChange}` : null,
    guards.repeat !== null ? `same tool call ×${guards.repeat}` : null,
    guards.sameOutput !== null ? `same check output ×${guards.sameOutput}` : null,
  ].filter((x) => x !== null);
  return `${limits.join(", ")} · guards: ${watching.length ? watching.join(", ") : "off"}`;
}
