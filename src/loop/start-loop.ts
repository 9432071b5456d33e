/**
 * Everything a loop settles before claude is started: the check parses, the prompt template is
 * sound, and the check is run once on the work tree as it is. That first run is the baseline
 * (what the first prompt template sees, what the guards compare with, the starting point of
 * "best turn"), and it catches a check that cannot run at all before any money is spent.
 */
import { UserError } from "../errors.js";
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
export async function startLoop(o: LoopStart): Promise<LoopDriver | null> {
  if (o.check !== null) await assertCheckSyntax(o.check);
  const prompts = loopPrompts(o.goal, o.promptFile, o.check !== null);
  // Read again before every iteration: editing the file steers the loop.
  const reloadPrompts = async () => (o.promptFile ? loopPrompts(o.goal, await readPromptFile(o.promptFile.source), o.check !== null) : prompts);
  const verify = o.verify;
  const verifyPrompt =
    verify === null ? null : async () => (verify === true ? verifierPrompt(await taskOf(o)) : (await readPromptFile(verify.source, "--verify")).text);
  const startedAt = Date.now();
  const ends = [o.check !== null ? `\`${o.check}\` exits 0` : null, o.promise !== null ? `claude says <promise>${o.promise}</promise>` : null].filter((x) => x !== null);
  o.say(`↻ loop until ${ends.join(" and ")}${o.verify ? ", and a verifier agrees" : ""} · ${describeLimits(o)}${o.fresh ? " · a fresh claude every iteration" : ""}`);
  const common = { ...o, prompts, reloadPrompts, verifyPrompt, models: new ModelPlan(o.models), startedAt };
  if (o.check === null) return new LoopDriver({ ...common, check: null, baseline: null });
  const baseline = await firstCheck(o, o.check);
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
  o.say(`  check before the first turn: ${describeCheck(baseline)}${baseline.exitCode === 0 ? " already; the loop ends after the first turn if it still passes" : ""}`);
  return new LoopDriver({ ...common, check: o.check, baseline });
}

/**
 * The task as the iterations get it now, for the verifier: the prompt file (as it is now) with
 * its placeholders filled, the goal's with the goal given and the per-iteration ones empty (QA:
 * the verifier got the raw {{…}}).
 */
async function taskOf(o: LoopStart): Promise<string> {
  if (!o.promptFile) return o.goal ?? "";
  const file = await readPromptFile(o.promptFile.source).catch(() => o.promptFile!);
  const template = parseTemplate(file.text, file.source);
  const values = Object.fromEntries(Object.keys(PLACEHOLDERS).map((name) => [name, ""])) as PromptValues;
  values.goal = o.goal ?? "";
  return renderTemplate(template, values).trim();
}

/** Ctrl-C during the first check stops it (it runs in its own process group, out of the terminal's reach). */
async function firstCheck(o: LoopStart, check: string): Promise<CheckRun> {
  const abort = new AbortController();
  const onSigint = () => abort.abort();
  process.on("SIGINT", onSigint);
  try {
    return await runCheck(check, { cwd: o.cwd, timeoutMs: o.checkTimeoutMs, signal: abort.signal, sandbox: o.sandbox });
  } finally {
    process.off("SIGINT", onSigint);
  }
}

function describeLimits(o: LoopStart): string {
  const { budget: b, guards: g } = o;
  const limits = [`at most ${b.iterations} iteration${b.iterations === 1 ? "" : "s"}`];
  if (b.costUsd !== null) limits.push(`$${b.costUsd}`);
  if (b.minutes !== null) limits.push(`${b.minutes} min`);
  const guards = [
    g.noChange !== null ? `no change ×${g.noChange}` : null,
    g.repeat !== null ? `same tool call ×${g.repeat}` : null,
    g.sameOutput !== null ? `same check output ×${g.sameOutput}` : null,
  ].filter((x) => x !== null);
  return `${limits.join(", ")} · guards: ${guards.length ? guards.join(", ") : "off"}`;
}
