/** What a loop is asked to do, settled before claude starts (src/loop/start-loop.ts makes it). */
import type { Sandbox } from "../claude/sandbox.js";
import type { Budget } from "./budget.js";
import type { CheckRun } from "./check-run.js";
import type { GuardSettings } from "./guards.js";
import type { ModelPlan } from "./model-plan.js";
import type { LoopPrompts } from "./prompt-template.js";

export interface LoopConfig {
  goal: string | null;
  /** The --until check; null: the promise alone says when it is done. */
  check: string | null;
  checkTimeoutMs: number;
  prompts: LoopPrompts;
  /** The prompts as they are now (--prompt-file is read again before every iteration). */
  reloadPrompts: () => Promise<LoopPrompts>;
  /** Every iteration a new claude conversation (--fresh). */
  fresh: boolean;
  /** --until-promise: done when claude's last message says <promise>TEXT</promise>. */
  promise: string | null;
  /** --fail-promise: claude gives up (exit 3). */
  failPromise: string;
  /** --verify: the verifier's prompt, made afresh each time. */
  verifyPrompt: (() => Promise<string>) | null;
  models: ModelPlan;
  budget: Budget;
  guards: GuardSettings;
  /** The check as it stood before the first turn; on turn 0 of a new session (null: no check). */
  baseline: CheckRun | null;
  newSession: boolean;
  /** When the loop started (the budget's clock), epoch ms. */
  startedAt: number;
  verbose: boolean;
  /** --sandbox: the check runs confined as claude does. */
  sandbox: Sandbox | null;
  /** The verifier's sandbox (the work tree read-only too); null where bubblewrap cannot make one. */
  verifierSandbox: Sandbox | null;
}
