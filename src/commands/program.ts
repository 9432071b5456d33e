/**
 * The command tree, loaded lazily: the CLI parses with it, and the docs' test walks it whole to hold
 * each command's page to its --help.
 */
import type { Command } from "commander";
import { claudeGroup } from "./claude.js";
import { commandNames, type CommandGroup } from "./group.js";
import { hooksGroup } from "./hooks.js";
import { rulesGroup } from "./rules.js";
import { sessionGroup } from "./session.js";
import { nudgeVersion } from "../base/version.js";

const GROUPS: CommandGroup[] = [claudeGroup, sessionGroup, rulesGroup, hooksGroup];
/** Commands of their own, outside any group (`nudge web`), loaded like a group's. */
const COMMANDS: CommandGroup["commands"] = {
  web: { load: async () => (await import("./web.js")).webCommand },
};

/**
 * The command tree, with only the commands this command line can reach loaded: `nudge session
 * list` loads one command's code, `nudge session --help` its group's, `nudge --help` all.
 */
export async function program(argv: string[]): Promise<Command> {
  const { Command } = await import("commander");
  const [groupArg, commandArg] = argv.slice(2);
  const root = new Command("nudge")
    .description("record, replay, rewind and fork Claude Code sessions — code and conversation together")
    .version(nudgeVersion())
    .addHelpText(
      "after",
      `
Examples:
  $ nudge claude run --tui                 # Claude's own UI, recorded turn by turn (stays within a subscription)
  $ nudge claude run "add() is broken, fix it"
  $ nudge session list
  $ nudge session rewind 3f2a 1 --dry-run  # what going back to turn 1 would write and delete
  $ nudge web                              # every session in the browser
  $ nudge session --help                   # each group and command has its own help

Exit codes: 0 ok, 1 a problem with the input or the environment (the message says what to do), 2 a bug in nudge.`,
    );
  // A command line naming no group or command of ours (`nudge --help`, a typo) loads them all, for the help.
  const known = GROUPS.some((g) => g.name === groupArg) || Object.hasOwn(COMMANDS, groupArg ?? "");
  for (const group of GROUPS) {
    const command = new Command(group.name).description(group.description);
    if (group.helpAfter) command.addHelpText("after", group.helpAfter);
    const wanted = groupArg === group.name ? commandNames(group).get(commandArg ?? "") : undefined;
    const names = wanted ? [wanted] : groupArg === group.name || !known ? Object.keys(group.commands) : [];
    const loaded = await Promise.all(
      names.map(async (name) => ({
        sub: await group.commands[name]!.load(),
        hidden: group.commands[name]!.hidden === true,
      })),
    );
    for (const { sub, hidden } of loaded) command.addCommand(sub, { hidden });
    root.addCommand(command);
  }
  for (const [name, entry] of Object.entries(COMMANDS))
    if (groupArg === name || !known) root.addCommand(await entry.load());
  const strict = (command: Command) => {
    command.exitOverride().showHelpAfterError("hint: add --help for usage");
    command.commands.forEach(strict);
  };
  strict(root);
  return root;
}
