/**
 * `hooks install --claude` keeps .claude/settings.local.json out of git with a line in
 * .git/info/exclude; `uninstall --claude` takes out exactly that line, the file otherwise byte for byte.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";

const LINE = "/.claude/settings.local.json\n";

async function setup(exclude: string | null) {
  const repo = await gitdir({ "README.md": "# test\n" });
  const file = path.join(repo, ".git", "info", "exclude");
  if (exclude !== null) writeFileSync(file, exclude);
  // No global ignore of claude's (claude writes one to ~/.config/git/ignore).
  const home = tempDir();
  const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") };
  const nudge = async (...args: string[]) => {
    const r = await runNudge(["hooks", ...args, "--claude"], { cwd: repo, env });
    expect(r.exitCode, r.stderr).toBe(0);
    return r;
  };
  return { repo, file, nudge, read: () => readFileSync(file, "utf8") };
}

describe("hooks install --claude and info/exclude", () => {
  it("uninstall removes the line install added, and only it: a file that ended in a newline, one that did not, one edited since", async () => {
    const plain = await setup("# git ls-files --others --exclude-from=.git/info/exclude\n*.log\n");
    const before = plain.read();
    expect((await plain.nudge("install")).stdout).toContain("info/exclude");
    expect(plain.read()).toBe(before + LINE);
    expect((await plain.nudge("uninstall")).stdout).toContain("info/exclude");
    expect(plain.read()).toBe(before);

    const noNewline = await setup("*.log");
    await noNewline.nudge("install");
    expect(noNewline.read()).toBe("*.log\n" + LINE);
    await noNewline.nudge("uninstall");
    expect(noNewline.read()).toBe("*.log");

    // Lines the user added after install stay, and stay lines.
    const edited = await setup("*.log");
    await edited.nudge("install");
    writeFileSync(edited.file, edited.read() + "*.tmp\n");
    await edited.nudge("uninstall");
    expect(edited.read()).toBe("*.log\n*.tmp\n");
  }, 60_000);

  it("a line the user had before install is theirs: install adds none, uninstall keeps it", async () => {
    const own = await setup(`*.log\n${LINE}`);
    const before = own.read();
    expect((await own.nudge("install")).stdout).not.toContain("info/exclude");
    expect(own.read()).toBe(before);
    await own.nudge("uninstall");
    expect(own.read()).toBe(before);
  }, 30_000);
});
