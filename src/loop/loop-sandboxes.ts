/**
 * A loop's sandboxes: claude's (--sandbox) and the verifier's (--verify), which is confined
 * wherever bubblewrap can do it, --sandbox or not. What both share (bubblewrap, git's folders) is
 * found once; each has its own private home, config copy and gate.
 */
import {
  checkerSandbox,
  prepareSandbox,
  sandboxBeside,
  trySandbox,
  type Sandbox,
  type SandboxOptions,
} from "../claude/sandbox.js";
import { gitlinkPaths, repoLocation } from "../snapshot/git.js";
import { pinRepository } from "../snapshot/git-process.js";

export interface LoopSandboxes {
  sandbox: Sandbox | null;
  /** The verifier's, read-only; null without --verify, or when bubblewrap cannot make one here. */
  verifierSandbox: Sandbox | null;
  close(): Promise<void>;
}

export async function openLoopSandboxes(
  where: Omit<SandboxOptions, "git">,
  want: { sandbox: boolean; verifier: boolean },
): Promise<LoopSandboxes> {
  if (!want.sandbox && !want.verifier) return { sandbox: null, verifierSandbox: null, close: async () => undefined };
  const loc = await repoLocation(where.workTree);
  const options: SandboxOptions = {
    ...where,
    git: { gitDir: loc.gitDir, commonDir: loc.commonDir, gitlinks: await gitlinkPaths(loc.root) },
  };
  const sandbox = want.sandbox ? await prepareSandbox(options) : null;
  // From here claude may plant a .git (a gitfile, a `git init` below): nudge's git keeps to the one found now.
  if (sandbox) pinRepository(sandbox.workTree, loc.gitDir, loc.commonDir);
  let beside: Sandbox | null = null;
  try {
    beside = want.verifier ? await (sandbox ? sandboxBeside(sandbox, options) : trySandbox(options)) : null;
    const verifierSandbox = beside && checkerSandbox(beside);
    return {
      sandbox,
      verifierSandbox,
      close: async () => void (await Promise.all([sandbox?.close(), verifierSandbox?.close()])),
    };
  } catch (error) {
    await Promise.all([sandbox?.close(), beside?.close()]);
    throw error;
  }
}
