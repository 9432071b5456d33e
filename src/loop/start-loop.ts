/**
 * Everything a loop settles before claude is started: the check parses, the prompt template is
 * sound, and the check is run once on the work tree as it is. That first run is the baseline
 * (what the first prompt template sees, what the guards compare with, the starting point of
 * "best turn"), and it catches a check that cannot run at all before any money is spent.
 */
import { UserError } from "../errors.js";
import type { Budget } from "./budget.js";
import { assertCheckSyntax, runCheck, type CheckRun } from "./check-run.js";
import type { GuardSettings } from "./guards.js";
import { LoopDriver } from "./loop-driver.js";
import { describeCheck } from "./loop-report.js";
import { loopPrompts } from "./prompt-template.js";

export interface LoopStart {
  goal: string | null;
  check: string;
  checkTimeoutMs: number;
  promptFile: { text: string; source: string } | null;
  budget: Budget;
  guards: GuardSettings;
  /** Where the check runs: the folder claude works in. */
  cwd: string;
  newSession: boolean;
  verbose: boolean;
  say: (line: string) => void;
}

/** The loop, ready to drive a run; null when the user stopped it during the first check. */
export async function startLoop(o: LoopStart): Promise<LoopDriver | null> {
  await assertCheckSyntax(o.check);
  const prompts = loopPrompts(o.goal, o.promptFile);
  const startedAt = Date.now();
  o.say(`↻ loop until \`${o.check}\` exits 0 · ${describeLimits(o)}`);
  const baseline = await firstCheck(o);
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
  return new LoopDriver({ ...o, prompts, baseline, startedAt });
}

/** Ctrl-C during the first check stops it (it runs in its own process group, out of the terminal's reach). */
async function firstCheck(o: LoopStart): Promise<CheckRun> {
  const abort = new AbortController();
  const onSigint = () => abort.abort();
  process.on("SIGINT", onSigint);
  try {
    return await runCheck(o.check, { cwd: o.cwd, timeoutMs: o.checkTimeoutMs, signal: abort.signal });
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
