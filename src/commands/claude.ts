import type { CommandGroup } from "./group.js";

export const claudeGroup: CommandGroup = {
  name: "claude",
  description: "work with Claude Code through nudge",
  commands: {
    run: { load: async () => (await import("./claude-run.js")).claudeRunCommand },
    loop: { load: async () => (await import("./claude-loop.js")).claudeLoopCommand },
  },
};
