/**
 * The PreToolUse hook of installed claude hooks (hook-events.ts), kept apart from the recorder so
 * that the hook claude waits on before every tool loads little: a hook of the session still
 * capturing the files (the user's edits, a turn's end) holds the tool until it is done, as the
 * edits gate does under `--tui`; then the project's rules decide, as they do there.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { hookRunning } from "../store/hook-locks.js";
import type { Store } from "../store/store-location.js";
import { mappedSession, PROMPT_FILE, STOP_FILE } from "./hook-notes.js";
import type { HookCallbackRequest } from "../claude/control-protocol.js";
import { loadRules } from "../rules/load-rules.js";

/** Set by `claude run --tui` for the claude it runs: that claude is recorded there, never twice. */
export const TUI_RECORDING_ENV = "NUDGE_TUI_SESSION";

/** A PreToolUse waits this long at most for a hook still capturing the files (claude gives it 60 s). */
const GATE_WAIT_MS = 50_000;
/** A prompt or turn's end noted longer ago than this was dropped by its finisher (killed): it no longer holds claude's tools. */
const STALE_MS = 15_000;

export async function preToolUse(
  store: Store,
  hook: HookCallbackRequest["input"] & { session_id: string },
): Promise<object | null> {
  const dir = await mappedSession(store, hook.session_id);
  if (dir) {
    for (const end = Date.now() + GATE_WAIT_MS; Date.now() < end && (await capturing(dir));)
      await new Promise((r) => setTimeout(r, 25));
  }
  const rules = await loadRules(store.repoRoot);
  if (rules.rules.length === 0) return null;
  // The rules' evaluator only for a project that has rules.
  const { answerHook } = await import("../rules/hook-answers.js");
  return answerHook(rules, hook, store.repoRoot).output;
}

async function capturing(dir: string): Promise<boolean> {
  if (await hookRunning(dir)) return true;
  for (const note of [PROMPT_FILE, STOP_FILE]) {
    const stat = await fs.stat(path.join(dir, note)).catch(() => null);
    if (stat !== null && Date.now() - stat.mtimeMs < STALE_MS) return true;
  }
  return false;
}
