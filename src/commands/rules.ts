import type { CommandGroup } from "./group.js";

export const rulesGroup: CommandGroup = {
  name: "rules",
  description: "the repository's rules (.nudge/rules.yaml): what claude may do, must ask, or should know",
  helpAfter: `
A rules file (.nudge/rules.yaml) holds version: 1 and a list of rules. The first rule that
matches a tool call decides it: deny (with a message claude receives instead of the result), ask
(a permission prompt), allow (no prompt), or note (a message claude receives after the result).

  version: 1
  rules:
    - id: no-npm
      match: { tool: Bash, command: '\\bnpm\\b' }
      action: deny
      message: This repository uses pnpm. Run the same command with pnpm.

The file's JSON Schema is schemas/rules.schema.json. Rules steer claude; they are not a sandbox
(a path rule does not see \`cat .env\` run through Bash).

Examples:
  $ nudge rules list
  $ nudge rules test Bash '{"command":"npm install"}'`,
  commands: {
    list: { aliases: ["ls"], load: async () => (await import("./rules-list.js")).rulesListCommand },
    test: { load: async () => (await import("./rules-test.js")).rulesTestCommand },
  },
};
