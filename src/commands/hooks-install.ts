import { Command } from "commander";
import * as z from "../base/zod.js";
import { openStore } from "../store/store.js";
import { applyHook, planHook } from "../sync/push-hook.js";
import { printJson, writeOut } from "../terminal/output.js";
import { parseOptions } from "./parse-options.js";
import { UserError } from "../base/errors.js";
import { claudeHooks } from "./hooks-claude.js";

const Options = z.object({
  dryRun: z.optional(z.boolean()),
  json: z.optional(z.boolean()),
  claude: z.optional(z.boolean()),
  project: z.optional(z.boolean()),
  user: z.optional(z.boolean()),
});

function hookCommand(name: "install" | "uninstall"): Command {
  const uninstall = name === "uninstall";
  return new Command(name)
    .description(
      uninstall
        ? "remove nudge's pre-push hook from this repository (--claude: nudge's claude hooks)"
        : "install nudge's pre-push hook: with git config nudge.push auto, pushing a branch publishes its sessions (--claude: claude's hooks, so a plain claude is recorded)",
    )
    .option(
      "--claude",
      uninstall
        ? "remove nudge's claude hooks (the settings file as it was before)"
        : "claude's hooks instead: a plain `claude` is recorded, nudge not in front",
    )
    .option("--project", "with --claude: this repository's .claude/settings.local.json (the default)")
    .option("--user", "with --claude: your claude settings ($CLAUDE_CONFIG_DIR or ~/.claude/settings.json)")
    .option("--dry-run", "say what would be written or removed; change nothing")
    .option("--json", "machine-readable output")
    .addHelpText(
      "after",
      uninstall
        ? `\nOnly a hook nudge wrote (it says so in its second line) is removed.\n\nExamples:\n  $ nudge hooks uninstall`
        : `
The hook runs this nudge (by its absolute path) on every git push. It publishes nothing unless
git config nudge.push is "auto"; then it publishes the sessions recorded on the branches pushed
(as nudge session push would: masked, code secrets refused) to nudge.remote if set, else to the
remote pushed to, and says so on the push's output. A session it cannot publish is named with
the reason; the branch's push goes on. A pre-push hook of your own is never replaced.

With --claude, the hooks are claude's: every claude started in this repository (--project, the
default: .claude/settings.local.json) or anywhere (--user) is recorded as with nudge claude run
--tui, nudge not in front. Your settings are kept byte for byte; uninstall --claude puts the file
back as it was (removed, if there was none).

Examples:
  $ nudge hooks install && git config nudge.push auto
  $ git config nudge.push off     # the hook stays, and publishes nothing
  $ nudge hooks install --claude  # then: claude`,
    )
    .action(async (raw: unknown) => {
      const o = parseOptions(Options, raw);
      if ((o.project || o.user) && !o.claude)
        throw new UserError("--project and --user go with --claude", "nudge hooks " + name + " --claude --user");
      if (o.project && o.user) throw new UserError("--project and --user cannot be used together", "pick one");
      if (o.claude) return claudeHooks(uninstall, o);
      const store = await openStore(process.cwd());
      const plan = await planHook(store, { uninstall, node: process.execPath, script: process.argv[1]! });
      if (!o.dryRun) await applyHook(plan);
      if (o.json) return printJson({ file: plan.file, action: plan.action, dryRun: o.dryRun ?? false });
      const would = o.dryRun ? "would be " : "";
      const said = {
        install: `pre-push hook ${would}installed: ${plan.file}`,
        replace: `pre-push hook ${would}updated: ${plan.file}`,
        already: `pre-push hook already installed: ${plan.file}`,
        remove: `pre-push hook ${would}removed: ${plan.file}`,
        absent: "no nudge pre-push hook to remove",
      }[plan.action];
      writeOut(said + "\n");
      if (!uninstall) writeOut("it publishes sessions only with: git config nudge.push auto\n");
    });
}

export const hooksInstallCommand = hookCommand("install");
export const hooksUninstallCommand = hookCommand("uninstall");
