/**
 * `nudge claude loop --sandbox` (issue 20): claude under bubblewrap, writes confined to the work
 * tree, the temp dir and claude's config dir. The real bwrap (CI installs Debian's bubblewrap),
 * the real claude, the scripted API; the write outside goes to /var/tmp, outside all three.
 */
import { execa } from "execa";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { CLAUDE_BIN } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runLoop, toolResults } from "../support/loop.js";
import { NUDGE_CLI } from "../support/run-nudge.js";

describe("nudge claude loop --sandbox", () => {
  it("lets claude write in the work tree and refuses a write outside it", async () => {
    const repo = await gitdir();
    const outside = mkdtempSync("/var/tmp/nudge-sandbox-");
    onTestFinished(() => rmSync(outside, { recursive: true, force: true }));
    const { api, run, manifest } = await runLoop(
      repo,
      [
        { tool: "Bash", input: { command: `echo inside > in.txt; echo escaped > ${outside}/out.txt; echo "exit $?"`, description: "write" } },
        { text: "<promise>COMPLETE</promise>" },
      ],
      ["write two files", "--until-promise", "COMPLETE", "--sandbox"],
    );
    onTestFinished(() => api.close());
    expect(run.exitCode, run.stderr).toBe(0);
    expect(existsSync(path.join(repo, "in.txt"))).toBe(true);
    expect(existsSync(path.join(outside, "out.txt"))).toBe(false);
    const result = JSON.stringify(api.mainLoopRequests().flatMap(toolResults).map((b) => b.content));
    expect(result).toContain("Read-only file system");
    expect(manifest.turns[1]!.patch.filesChanged).toBe(1);
  });

  it("without bwrap, --sandbox is one clear error before anything starts", async () => {
    const repo = await gitdir();
    // A PATH with node and git only.
    const bin = path.join(tempDir(), "bin");
    mkdirSync(bin);
    symlinkSync(process.execPath, path.join(bin, "node"));
    const git = (await execa("sh", ["-c", "command -v git"])).stdout.trim();
    symlinkSync(git, path.join(bin, "git"));
    const run = await execa(process.execPath, [NUDGE_CLI, "claude", "loop", "--claude-bin", CLAUDE_BIN, "do it", "--until", "true", "--sandbox"], {
      cwd: repo,
      env: { PATH: bin, NO_COLOR: "1", HOME: process.env.HOME ?? "/root" },
      extendEnv: false,
      reject: false,
    });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/^error: --sandbox needs bubblewrap \(bwrap\), which is not installed\nhint: install bubblewrap \(Debian\/Ubuntu: apt-get install bubblewrap/m);
    expect(existsSync(path.join(repo, ".git", "nudge", "sessions"))).toBe(false);
  });
});
