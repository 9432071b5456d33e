import { commandStore } from "./command-store.js";
import { Command } from "commander";
import { runPrePush } from "../sync/push-hook.js";
import { pushIsDryRun } from "../sync/push-dry-run.js";
import { visible } from "../base/inert-text.js";
import { writeErr } from "../terminal/output.js";
import { describePublished } from "./session-push.js";
import { REPOSITORY_ENV } from "../snapshot/git-remote.js";

/** Run by the hook `nudge hooks install` writes; everything it says goes to stderr, where git shows a hook's words. */
export const hooksPrePushCommand = new Command("pre-push")
  .description("what nudge's pre-push hook runs (git calls it with the remote's name and URL, the refs on stdin)")
  .argument("[remote]", "the remote's name as git gives it")
  .argument("[url]", "its URL")
  .addHelpText(
    "after",
    "\nNot meant to be run by hand.\n\nExamples:\n  $ echo 'refs/heads/main <id> refs/heads/main <id>' | nudge hooks pre-push origin <url>",
  )
  .action(async (remote: string | undefined, url: string | undefined) => {
    // git runs a hook with its repository in the environment (GIT_DIR…); nudge's git calls find
    // theirs by folder (its own scratch repositories among them), so none may inherit it.
    for (const name of REPOSITORY_ENV) delete process.env[name];
    const stdin = await readStdin();
    const store = await commandStore(process.cwd());
    const run = await runPrePush(store, remote ?? url ?? "origin", stdin, () => pushIsDryRun(store.repoRoot));
    const say = (line: string) => writeErr(`nudge: ${line}\n`);
    if (run.heldBack)
      return say(
        "unsure" in run.heldBack
          ? `cannot tell whether this push is a dry run (${visible(run.heldBack.unsure)}): no session published`
          : "git push --dry-run: no session published",
      );
    if (run.unknownSetting !== undefined)
      say(
        `git config nudge.push is ${JSON.stringify(visible(run.unknownSetting))}, which nudge does not know ("auto" publishes, "off" does not): nothing was published`,
      );
    if (!run.enabled || run.results.length === 0) return;
    say(
      `publishing ${run.results.length} session${run.results.length === 1 ? "" : "s"} of ${run.branches.join(", ")} to ${visible(run.remote ?? "")} (git config nudge.push auto)`,
    );
    for (const r of run.results) {
      if (r.result) describePublished(r.result).forEach((line) => say(line));
      else
        say(`session ${r.session} was not published: ${r.error!.message}${r.error!.hint ? ` (${r.error!.hint})` : ""}`);
    }
  });

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return "";
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
