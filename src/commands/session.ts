import type { CommandGroup } from "./group.js";

export const sessionGroup: CommandGroup = {
  name: "session",
  description:
    "list, search, show, diff, replay, rewind, fork, export, import, publish to and pull from git remotes, repair and remove recorded sessions",
  helpAfter: `
Examples:
  $ nudge session list
  $ nudge session show 3f2a
  $ nudge session search auth timeout --since 7d
  $ nudge session rewind 3f2a 1 --dry-run
  $ nudge session repair 3f2a --dry-run     # a lost turns.jsonl, rebuilt from the snapshots
  $ nudge session push 3f2a                 # publish it to origin for the team
  $ nudge session fetch && nudge session list --remote`,
  commands: {
    list: { aliases: ["ls"], load: async () => (await import("./session-list.js")).sessionListCommand },
    "index-claude": {
      hidden: true,
      load: async () => (await import("./session-index-claude.js")).sessionIndexClaudeCommand,
    },
    adopt: { load: async () => (await import("./session-adopt.js")).sessionAdoptCommand },
    search: { load: async () => (await import("./session-search.js")).sessionSearchCommand },
    show: { load: async () => (await import("./session-show.js")).sessionShowCommand },
    diff: { load: async () => (await import("./session-diff.js")).sessionDiffCommand },
    replay: { load: async () => (await import("./session-replay.js")).sessionReplayCommand },
    rewind: { load: async () => (await import("./session-rewind.js")).sessionRewindCommand },
    fork: { load: async () => (await import("./session-fork.js")).sessionForkCommand },
    export: { load: async () => (await import("./session-export.js")).sessionExportCommand },
    import: { load: async () => (await import("./session-import.js")).sessionImportCommand },
    push: { load: async () => (await import("./session-push.js")).sessionPushCommand },
    fetch: { load: async () => (await import("./session-fetch.js")).sessionFetchCommand },
    pull: { load: async () => (await import("./session-pull.js")).sessionPullCommand },
    unpublish: { load: async () => (await import("./session-unpublish.js")).sessionUnpublishCommand },
    backups: { load: async () => (await import("./session-backups.js")).sessionBackupsCommand },
    rm: { load: async () => (await import("./session-rm.js")).sessionRmCommand },
    repair: { load: async () => (await import("./session-repair.js")).sessionRepairCommand },
    gc: { load: async () => (await import("./session-gc.js")).sessionGcCommand },
  },
};
