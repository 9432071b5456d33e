/**
 * A prompt never waits for a scan of the work tree: the user's edits between turns are captured
 * while their prompt already goes to claude, and so is a turn's own code when the next prompt was
 * already waiting at its result. What keeps claude's next changes out of either capture is this
 * gate: a PreToolUse hook on every tool that can change files, whose answer waits until the
 * running capture is recorded (it answers at once when none is running). The project's rules keep
 * their own hooks beside it.
 *
 * Measured with the pinned claude (2.1.329, test/live/edits-gate-claude.test.ts): the hook is
 * called before Bash, Write and Edit run, and the tool waits for its answer, in every permission
 * mode (default, acceptEdits, bypassPermissions, plan); with a rule's hook on the same tool both
 * are called and the tool waits for both; the matcher is a regex on the tool name, unanchored,
 * so a negative lookahead leaves out the tools that only read.
 */
import type { HookCallbackRequest, HookRegistration, PreToolUseOutput } from "../claude/control-protocol.js";
import type { ToolGuard } from "./control-handler.js";

const EDITS_GATE_ID = "nudge-edits-gate";

/**
 * claude's tools that change no file: not held, so a turn of reading costs no round trip. Every
 * other tool is (MCP tools, subagents, and any tool a later claude adds).
 */
const READ_ONLY_TOOLS = [
  "Read",
  "Glob",
  "Grep",
  "LS",
  "NotebookRead",
  "WebFetch",
  "WebSearch",
  "TodoWrite",
  "AskUserQuestion",
  "ExitPlanMode",
];

const EDITS_GATE_MATCHER = `^(?!(?:${READ_ONLY_TOOLS.join("|")})$)`;

const PASS: PreToolUseOutput = { hookSpecificOutput: { hookEventName: "PreToolUse" } };

/**
 * `inner` (the rules) with the gate beside it. `settled` resolves once no capture of the work tree
 * is running: true when it was recorded, false when it failed (the turn fails with it, and nothing
 * of claude's runs meanwhile).
 */
export function withEditsGate(inner: ToolGuard | null, settled: () => Promise<boolean>): ToolGuard {
  return {
    hooks: (): HookRegistration => {
      const hooks = inner?.hooks() ?? {};
      return {
        ...hooks,
        PreToolUse: [...(hooks.PreToolUse ?? []), { matcher: EDITS_GATE_MATCHER, hookCallbackIds: [EDITS_GATE_ID] }],
      };
    },
    answer: async (callbackId: string, input: HookCallbackRequest["input"]) => {
      if (callbackId !== EDITS_GATE_ID) return inner ? inner.answer(callbackId, input) : {};
      if (await settled()) return PASS;
      return {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason:
            "nudge could not record the files as they were before this prompt, so nothing may change them now; stop and tell the user.",
        },
      } satisfies PreToolUseOutput;
    },
    ...(inner?.askedBy ? { askedBy: inner.askedBy.bind(inner) } : {}),
  };
}
