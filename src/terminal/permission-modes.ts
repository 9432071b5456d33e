/**
 * Claude's permission modes as Shift-Tab cycles them, as in Claude Code: default → acceptEdits →
 * plan → default. A session started in another mode (bypassPermissions, dontAsk) keeps it in the
 * cycle, after plan, so Shift-Tab can come back to it.
 */
const CYCLE = ["default", "acceptEdits", "plan"];

export function nextMode(current: string, startedIn: string): string {
  const cycle = CYCLE.includes(startedIn) ? CYCLE : [...CYCLE, startedIn];
  const at = cycle.indexOf(current);
  return cycle[(at + 1) % cycle.length]!;
}

/** How the mode reads under the prompt and on the status line; "" for the default mode, which needs no saying. */
export function modeLabel(mode: string): string {
  switch (mode) {
    case "default":
      return "";
    case "acceptEdits":
      return "⏵⏵ accept edits on";
    case "plan":
      return "⏸ plan mode on";
    case "bypassPermissions":
      return "⚠ bypass permissions on";
    default:
      return `mode ${mode}`;
  }
}
