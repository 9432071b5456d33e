import type { CommandGroup } from "./group.js";

export const hooksGroup: CommandGroup = {
  name: "hooks",
  description: "git hooks nudge can install in this repository: pre-push publishes sessions when nudge.push is auto",
  helpAfter: `
Nothing is published unless you ask: install the hook, then turn it on.

Examples:
  $ nudge hooks install && git config nudge.push auto
  $ git push                      # also publishes the sessions recorded on the branch pushed
  $ nudge hooks uninstall`,
  commands: {
    install: { load: async () => (await import("./hooks-install.js")).hooksInstallCommand },
    uninstall: { load: async () => (await import("./hooks-install.js")).hooksUninstallCommand },
    "pre-push": { load: async () => (await import("./hooks-pre-push.js")).hooksPrePushCommand },
  },
};
