import type { CommandGroup } from "./group.js";

export const claudeGroup: CommandGroup = {
  name: "claude",
  description: "work with Claude Code through nudge",
  helpAfter: `
run records one session; loop runs claude again and again until a check passes. --tui runs Claude's
own UI (claude's interactive mode); without it nudge drives \`claude -p\`, which a Pro, Max or Team
plan bills from its Agent SDK credit, then at API prices.

Examples:
  $ nudge claude run --tui
  $ nudge claude run "add() is broken, fix it"
  $ nudge claude run -c                     # continue this work tree's last session
  $ nudge claude loop "make the tests pass" --until 'npm test'
  $ nudge claude loop --prompt-file PROMPT.md --fresh --until-promise COMPLETE --until 'npm test'`,
  commands: {
    run: { load: async () => (await import("./claude-run.js")).claudeRunCommand },
    loop: { load: async () => (await import("./claude-loop.js")).claudeLoopCommand },
  },
};
