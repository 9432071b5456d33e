/**
 * The verifier of `claude loop --verify`: when the loop would end, a fresh claude that can read
 * and run but not write checks the work, and must answer <verify-pass/> or
 * <verify-fail>why</verify-fail>. Ralph's verification agent, as one more turn of the session.
 */
import { oneLine } from "../base/format.js";

/** Ralph's tools: `--tools` leaves the others out of claude's request (a Write gets "No such tool
 *  available"), and not acceptEdits: anything else is asked, and refused unattended. */
export const VERIFIER_FLAGS = {
  tools: "Bash,Read,Glob,Grep",
  allowedTools: "Bash Read Glob Grep",
  disallowedTools: "Write Edit MultiEdit NotebookEdit",
  permissionMode: "default",
} as const;

/** nudge's verifier prompt, naming the task the iterations work on. */
export function verifierPrompt(task: string): string {
  return `You are a verifier. Another agent has been working in this repository on the task below and says it is done. You cannot change files: read them and run read-only commands (the tests, a linter, git diff) to check whether the task is really complete.

The task:
<task>
${task.trim()}
</task>

End your answer with exactly one of:
<verify-pass/> when the task is complete;
<verify-fail>what is missing or wrong</verify-fail> otherwise.`;
}

/** What the next iteration is told after a fail (`why`: null when the verifier gave no verdict). */
export function verifierFeedback(why: string | null): string {
  return why === null
    ? "[nudge loop] A verifier checked the work and did not confirm that it is done. Check it yourself and finish it."
    : `[nudge loop] A verifier checked the work and found it not done:\n${why}`;
}

/** The warning when the verifier did not agree (`why`: null when it gave no verdict). */
export function verifierFailWarning(why: string | null): string {
  return `verifier: ${why === null ? "no <verify-pass/> or <verify-fail>…</verify-fail> in its answer: counts as a fail" : `<verify-fail> ${oneLine(why, 200)}`}`;
}
