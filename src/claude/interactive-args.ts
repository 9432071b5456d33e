/**
 * claude's own terminal UI (`nudge claude run --tui`): its arguments. The first prompt goes first,
 * since claude's list options (`--allowedTools a b`) would take a prompt after them as one more item.
 */
import type { ClaudeFlags } from "./claude-process.js";

export function interactiveArgs(
  flags: Omit<ClaudeFlags, "maxTurns" | "tools">,
  o: { settingsFile: string; prompt?: string },
): string[] {
  const args = o.prompt !== undefined ? [o.prompt] : [];
  args.push("--settings", o.settingsFile);
  if (flags.model) args.push("--model", flags.model);
  if (flags.permissionMode) args.push("--permission-mode", flags.permissionMode);
  if (flags.allowedTools) args.push("--allowedTools", flags.allowedTools);
  if (flags.disallowedTools) args.push("--disallowedTools", flags.disallowedTools);
  if (flags.resume) {
    args.push("--resume", flags.resume.claudeSessionId);
    // A fork point (a rewound session): a new claude session holding the conversation up to that message only.
    if (flags.resume.fork || flags.resume.atUuid) args.push("--fork-session");
    if (flags.resume.atUuid) args.push("--resume-session-at", flags.resume.atUuid);
  }
  args.push(...(flags.passthrough ?? []));
  return args;
}
