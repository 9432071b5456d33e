import type { CommandGroup } from "./group.js";

export const hooksGroup: CommandGroup = {
  name: "hooks",
  description:
    "hooks nudge can install: git's pre-push publishes sessions when nudge.push is auto; claude's (--claude) record a plain claude",
  helpAfter: `
Nothing is published unless you ask: install the hook, then turn it on.

Examples:
  $ nudge hooks install && git config nudge.push auto
  $ git push                      # also publishes the sessions recorded on the branch pushed
  $ nudge hooks uninstall
  $ nudge hooks install --claude  # a plain claude in this repository is recorded`,
  commands: {
    install: { load: async () => (await import("./hooks-install.js")).hooksInstallCommand },
    uninstall: { load: async () => (await import("./hooks-install.js")).hooksUninstallCommand },
    "claude-event": {
      hidden: true,
      load: async () => (await import("./hooks-claude-event.js")).hooksClaudeEventCommand,
    },
    "pre-push": { load: async () => (await import("./hooks-pre-push.js")).hooksPrePushCommand },
  },
};
