/**
 * `nudge.push auto`: sessions published when their branch is pushed, through a pre-push hook the
 * user installs (`nudge hooks install`) — never installed by anything else, and never silent: the
 * hook says on the push's own output what it publishes, and what it could not. A failure to
 * publish never stops the branch's push (the session is simply not published, and it says why).
 */
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { UserError } from "../base/errors.js";
import { writeFileAtomic } from "../store/atomic-write.js";
import { listSessions, loadSession, type Store } from "../store/store.js";
import * as git from "../snapshot/git.js";
import * as remoteGit from "../snapshot/git-remote.js";
import { publishSession, type PublishResult } from "./publish-session.js";
import { resolveRemote } from "./sync-remote.js";
import type { DryRunAnswer } from "./push-dry-run.js";

/** The line that marks a hook as nudge's: only such a hook is replaced or removed. */
const HOOK_MARK = "# nudge pre-push hook";

/** The hook: this nudge, by absolute paths (a hook's PATH is not the shell's); gone, it says so and lets the push go. */
function hookScript(node: string, script: string): string {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return `#!/bin/sh
${HOOK_MARK} (nudge hooks install): publishes this branch's sessions when git config nudge.push is "auto".
# Remove it with: nudge hooks uninstall
if [ -x ${q(node)} ] && [ -f ${q(script)} ]; then
  # Never the reason a push fails: whatever nudge meets, the branch's push goes on.
  ${q(node)} ${q(script)} hooks pre-push "$@" || echo "nudge: sessions were not published (see above); the push goes on" >&2
  exit 0
fi
echo "nudge: ${script.replace(/["$`\\]/g, "")} is gone; sessions were not published (run nudge hooks install again)" >&2
exit 0
`;
}

export interface HookPlan {
  file: string;
  action: "install" | "replace" | "already" | "remove" | "absent";
}

export async function planHook(
  store: Store,
  o: { uninstall: boolean; node: string; script: string },
): Promise<HookPlan & { content: string }> {
  const file = path.join(await remoteGit.hooksDir(store.repoRoot), "pre-push");
  const content = hookScript(o.node, o.script);
  const existing = await fs.readFile(file, "utf8").catch(() => null);
  const ours = existing !== null && existing.includes(HOOK_MARK);
  if (existing !== null && !ours) {
    throw new UserError(
      `${file} is a pre-push hook of your own: nudge leaves it alone`,
      o.uninstall
        ? "there is no nudge hook to remove"
        : `add this line to it yourself: ${JSON.stringify(o.node)} ${JSON.stringify(o.script)} hooks pre-push "$@"`,
    );
  }
  if (o.uninstall) return { file, content, action: ours ? "remove" : "absent" };
  return { file, content, action: existing === content ? "already" : ours ? "replace" : "install" };
}

export async function applyHook(plan: HookPlan & { content: string }): Promise<void> {
  if (plan.action === "install" || plan.action === "replace") {
    await fs.mkdir(path.dirname(plan.file), { recursive: true });
    await writeFileAtomic(plan.file, plan.content, 0o755);
    await fs.chmod(plan.file, 0o755);
  } else if (plan.action === "remove" && existsSync(plan.file)) {
    await fs.rm(plan.file);
  }
}

export interface HookRun {
  enabled: boolean;
  branches: string[];
  remote: string | null;
  results: Array<{ session: string; result?: PublishResult; error?: UserError }>;
  /** Nothing published because the push is a dry run, or because the hook cannot tell whether it is one. */
  heldBack?: DryRunAnswer;
  /** nudge.push set to something nudge does not know (a typo of "auto"): said, not silently taken for off. */
  unknownSetting?: string;
}

/** The values of git config nudge.push nudge knows: "auto" publishes at each push, "off" (or unset) does not. */
const PUSH_SETTINGS = new Set(["auto", "off"]);

/**
 * What git hands the hook: the remote's name (or URL) and, on stdin, one line per ref pushed
 * (`<local ref> <local id> <remote ref> <remote id>`). The sessions recorded on the branches
 * pushed (not deleted) are published, to `nudge.remote` if set, else to the remote pushed to.
 */
export async function runPrePush(
  store: Store,
  remoteArg: string,
  stdin: string,
  isDryRun: () => Promise<DryRunAnswer>,
): Promise<HookRun> {
  // As git reads its own words (true, Yes, ON), case does not matter.
  const raw = await remoteGit.configValue(store.repoRoot, "nudge.push");
  const setting = raw?.trim().toLowerCase() ?? null;
  if (setting !== "auto")
    return {
      enabled: false,
      branches: [],
      remote: null,
      results: [],
      ...(raw !== null && !PUSH_SETTINGS.has(setting!) ? { unknownSetting: raw } : {}),
    };
  const branches = await pushedBranches(store.repoRoot, stdin);
  const sessions = (await listSessions(store)).filter(
    (s) => s.header.summary.turns > 0 && s.header.repo.branch !== null && branches.includes(s.header.repo.branch),
  );
  if (sessions.length === 0) return { enabled: true, branches, remote: null, results: [] };
  // git runs this hook for a dry run too, without telling it: asked only when there is something to publish.
  const dry = await isDryRun();
  if ("unsure" in dry || dry.dryRun)
    return {
      enabled: true,
      branches,
      remote: null,
      results: [],
      heldBack: "unsure" in dry ? { unsure: dry.unsure } : { dryRun: true },
    };
  const configured = await remoteGit.configValue(store.repoRoot, "nudge.remote");
  const remote = await resolveRemote(store, configured ?? remoteArg);
  const results: HookRun["results"] = [];
  for (const s of sessions) {
    try {
      const result = await publishSession(store, await loadSession(store, s.header.id), {
        remote,
        upto: null,
        fork: false,
        dryRun: false,
        allowSecretsInCode: false,
      });
      results.push({ session: s.header.id, result });
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      results.push({ session: s.header.id, error });
    }
  }
  return { enabled: true, branches, remote: remote.label, results };
}

/**
 * The branches a push sends (not deletes), from the hook's stdin lines. git names the local side
 * as the user wrote it once resolved: `refs/heads/x`, or `HEAD` for `git push origin HEAD` (and
 * `@`, `HEAD:refs/heads/x`), which is the checked-out branch (none when detached).
 */
export async function pushedBranches(root: string, stdin: string): Promise<string[]> {
  const branches = new Set<string>();
  for (const [local, id] of stdin.split("\n").map((line) => line.split(" "))) {
    if (!local || !id || /^0+$/.test(id)) continue;
    if (local.startsWith("refs/heads/")) branches.add(local.slice("refs/heads/".length));
    else if (local === "HEAD") {
      const head = await git.currentBranch(root);
      if (head) branches.add(head);
    }
  }
  return [...branches];
}
