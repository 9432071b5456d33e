/**
 * `nudge claude loop --sandbox`: claude under bubblewrap, writes confined to the work tree. The
 * real bwrap (CI installs Debian's bubblewrap), the real claude, the scripted API; the write
 * outside goes to /var/tmp, which the sandbox does not show. sandbox-attacks.test.ts tries the rest.
 */
import { execa } from "execa";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { transcriptPath } from "../../src/claude/transcript.js";
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
        {
          tool: "Bash",
          input: {
            command: `echo inside > in.txt; echo escaped > ${outside}/out.txt; echo "exit $?"`,
            description: "write",
          },
        },
        { text: "<promise>COMPLETE</promise>" },
      ],
      ["write two files", "--until-promise", "COMPLETE", "--sandbox"],
    );
    onTestFinished(() => api.close());
    expect(run.exitCode, run.stderr).toBe(0);
    expect(existsSync(path.join(repo, "in.txt"))).toBe(true);
    expect(existsSync(path.join(outside, "out.txt"))).toBe(false);
    const result = JSON.stringify(
      api
        .mainLoopRequests()
        .flatMap(toolResults)
        .map((b) => b.content),
    );
    // /var/tmp is not there at all inside.
    expect(result).toContain("No such file or directory");
    expect(manifest.turns[1]!.patch.filesChanged).toBe(1);
  });

  it("from QA: no way out through nudge's own git, the check, or the verifier's Bash", async () => {
    const repo = await gitdir({ "check.sh": "#!/bin/sh\nexit 1\n" });
    await execa("chmod", ["+x", path.join(repo, "check.sh")]);
    const outside = mkdtempSync("/var/tmp/nudge-sandbox-");
    onTestFinished(() => rmSync(outside, { recursive: true, force: true }));
    // A clean filter planted in .git/config would run in nudge's end-of-turn snapshot, outside the
    // sandbox; check.sh rewritten runs as the --until check after the turn.
    const plant = [
      `git config filter.qa.clean "sh -c 'echo esc > ${outside}/filter.txt; cat'"; echo "config rc=$?"`,
      `echo '*.txt filter=qa' > .gitattributes`,
      `printf '#!/bin/sh\\necho esc > ${outside}/check.txt\\nexit 0\\n' > check.sh`,
      `echo hello > notes.txt`,
    ].join("; ");
    const { api, run } = await runLoop(
      repo,
      [
        { tool: "Bash", input: { command: plant, description: "plant" } },
        { text: "<promise>COMPLETE</promise>" },
        { tool: "Bash", input: { command: `echo x > verifier.txt; echo "verifier rc=$?"`, description: "write" } },
        { text: "<verify-pass/>" },
      ],
      ["do it", "--until", "./check.sh", "--until-promise", "COMPLETE", "--verify", "--sandbox"],
    );
    onTestFinished(() => api.close());
    expect(run.exitCode, run.stderr).toBe(0);
    expect(readFileSync(path.join(repo, "check.sh"), "utf8")).toContain(`${outside}/check.txt`); // claude did rewrite it
    expect(existsSync(path.join(outside, "filter.txt"))).toBe(false);
    expect(existsSync(path.join(outside, "check.txt"))).toBe(false);
    expect(existsSync(path.join(repo, "verifier.txt"))).toBe(false);
    const results = JSON.stringify(
      api
        .mainLoopRequests()
        .flatMap(toolResults)
        .map((b) => b.content),
    );
    expect(results).not.toContain("config rc=0");
    expect(results).toContain("verifier rc=1");
  });

  it("with claude's default config (~/.claude, ~/.claude.json) and the work tree in the home folder", async () => {
    const repo = await gitdir(undefined, { name: "home/src/app" });
    const home = path.dirname(path.dirname(repo));
    const dotJson = path.join(home, ".claude.json");
    writeFileSync(dotJson, JSON.stringify({ hasCompletedOnboarding: true }));
    const before = readFileSync(dotJson, "utf8");
    // Through node: claude asks before a Bash command that names its own ~/.claude.
    const steps = [
      {
        tool: "Bash",
        input: {
          command: `node -e 'require("fs").writeFileSync(process.env.HOME + "/.claude/settings.json", "{}")'; echo "settings rc=$?"; echo x > in.txt`,
          description: "write",
        },
      },
      { text: "<promise>COMPLETE</promise>" },
    ];
    // Unset, not empty: claude takes an empty CLAUDE_CONFIG_DIR for the current folder.
    const unset = undefined as unknown as string;
    const { api, run, manifest } = await runLoop(repo, steps, ["go", "--until-promise", "COMPLETE", "--sandbox"], {
      env: { HOME: home, CLAUDE_CONFIG_DIR: unset },
    });
    onTestFinished(() => api.close());
    expect(run.exitCode, run.stderr).toBe(0);
    const out = JSON.stringify(
      api
        .mainLoopRequests()
        .flatMap(toolResults)
        .map((b) => b.content),
    );
    expect(out, out).toContain("settings rc=0");
    expect(existsSync(path.join(repo, "in.txt"))).toBe(true);
    expect(existsSync(path.join(home, ".claude", "settings.json"))).toBe(false);
    expect(readFileSync(dotJson, "utf8")).toBe(before);
    // claude's transcript is where nudge and --resume look, and in the session.
    const id = manifest.turns[1]!.claudeSessionId!;
    expect(existsSync(transcriptPath(path.join(home, ".claude"), repo, id))).toBe(true);
    expect(manifest.turns[1]!.transcript).toBeTruthy();
  });

  it("without bwrap, --sandbox is one clear error before anything starts", async () => {
    const repo = await gitdir();
    // A PATH with node and git only.
    const bin = path.join(tempDir(), "bin");
    mkdirSync(bin);
    symlinkSync(process.execPath, path.join(bin, "node"));
    const git = (await execa("sh", ["-c", "command -v git"])).stdout.trim();
    symlinkSync(git, path.join(bin, "git"));
    const run = await execa(
      process.execPath,
      [NUDGE_CLI, "claude", "loop", "--claude-bin", CLAUDE_BIN, "do it", "--until", "true", "--sandbox"],
      {
        cwd: repo,
        env: { PATH: bin, NO_COLOR: "1", HOME: process.env.HOME ?? "/root" },
        extendEnv: false,
        reject: false,
      },
    );
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(
      /^error: --sandbox needs bubblewrap \(bwrap\), which is not installed\nhint: install bubblewrap \(Debian\/Ubuntu: apt-get install bubblewrap/m,
    );
    expect(existsSync(path.join(repo, ".git", "nudge", "sessions"))).toBe(false);
  });
});
