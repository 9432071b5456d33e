/**
 * `nudge hooks install|uninstall --claude`: nudge's hooks in claude's settings (this repository's
 * .claude/settings.local.json, or the user's settings.json), planned, then applied.
 */
import { execa } from "execa";
import path from "node:path";
import { openStore } from "../store/store.js";
import * as git from "../snapshot/git.js";
import { applySettingsPlan, hookCommand, planInstall, planUninstall } from "../live/claude-settings-hooks.js";
import { claudeConfigDir } from "../claude/transcript.js";
import { addExcludeLine, removeExcludeLine } from "../store/git-exclude-line.js";
import { printJson, writeOut } from "../terminal/output.js";

const LOCAL_SETTINGS = path.join(".claude", "settings.local.json");

export async function claudeHooks(
  uninstall: boolean,
  o: { user?: boolean; dryRun?: boolean; json?: boolean },
): Promise<void> {
  const where = await settingsFile(o.user ?? false);
  const plan = uninstall
    ? await planUninstall(where.file, where.backup)
    : await planInstall(where.file, where.backup, hookCommand(process.execPath, path.resolve(process.argv[1]!)));
  if (!o.dryRun) await applySettingsPlan(plan);
  const ignored = !o.dryRun && !uninstall && where.root ? await keepOutOfGit(where.root, where.excludeNote!) : null;
  const unignored = !o.dryRun && uninstall && where.excludeNote ? await removeExcludeLine(where.excludeNote) : null;
  if (o.json) return printJson({ file: plan.file, action: plan.action, dryRun: o.dryRun ?? false });
  const would = o.dryRun ? "would be " : "";
  const said = {
    install: `claude hooks ${would}installed: ${plan.file}`,
    update: `claude hooks ${would}updated to run this nudge: ${plan.file}`,
    already: `claude hooks already installed: ${plan.file}`,
    restore: `claude hooks ${would}removed: ${plan.file} ${plan.content === null ? "removed (there was none before)" : "is as it was before"}`,
    "remove-entries": `claude hooks ${would}removed from ${plan.file} (edited since: only nudge's entries were taken out)`,
    absent: `no nudge claude hooks in ${plan.file}`,
  }[plan.action];
  writeOut(`${said}\n`);
  if (ignored) writeOut(`${LOCAL_SETTINGS} was not ignored by git: added to ${ignored}\n`);
  if (unignored) writeOut(`the line install added to ${unignored} was removed\n`);
  if (plan.action === "install" && !o.dryRun)
    writeOut(
      `every claude started ${o.user ? "in a git repository" : "in this repository"} is now recorded: nudge session list\n`,
    );
}

/** The settings file, and where its backup goes (nudge's store for the project's; claude's config folder for the user's). */
async function settingsFile(
  user: boolean,
): Promise<{ file: string; backup: string; root: string | null; excludeNote: string | null }> {
  if (user) {
    const dir = claudeConfigDir();
    const backup = path.join(dir, "nudge-settings-backup.json");
    return { file: path.join(dir, "settings.json"), backup, root: null, excludeNote: null };
  }
  const store = await openStore(process.cwd());
  return {
    file: path.join(store.repoRoot, LOCAL_SETTINGS),
    backup: path.join(store.dir, "claude-settings-backup.json"),
    root: store.repoRoot,
    excludeNote: path.join(store.dir, "claude-settings-exclude.json"),
  };
}

/** The project's settings file holds this machine's paths: never committed. Said in .git/info/exclude when nothing ignores it yet. */
async function keepOutOfGit(root: string, note: string): Promise<string | null> {
  const check = await execa("git", ["check-ignore", "-q", LOCAL_SETTINGS], { cwd: root, reject: false });
  if (check.exitCode === 0) return null;
  const [exclude] = await git.ignoreFiles(root);
  await addExcludeLine(exclude!, `/${LOCAL_SETTINGS}`, note);
  return exclude!;
}
