/**
 * The settings file of a `--tui` recording holds the hook secret: however the recording ends (here
 * claude could not even be started), it is gone afterwards.
 */
import { chmodSync, existsSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/store.js";
import { runTuiSession } from "../../src/live/tui-session.js";
import { gitdir, tempDir } from "../support/gitdir.js";

describe("claude run --tui's hook settings", () => {
  it("are removed when claude fails to start", async () => {
    const repo = await gitdir();
    const bin = path.join(tempDir(), "claude");
    writeFileSync(bin, "#!/nonexistent/interpreter\n");
    chmodSync(bin, 0o755);
    const said: string[] = [];
    const run = runTuiSession({
      store: await openStore(repo),
      cwd: repo,
      bin,
      claudeConfigDir: tempDir(),
      env: process.env,
      choice: { kind: "new" },
      flags: {},
      guard: null,
      say: (line) => said.push(line),
      warn: (line) => said.push(line),
    });
    await expect(run).rejects.toThrow(/ENOENT/);
    const sessions = path.join(repo, ".git", "nudge", "sessions");
    const dirs = readdirSync(sessions).filter((d) => !d.startsWith("."));
    expect(said.join("\n")).toMatch(/recording session/); // it got as far as starting claude
    expect(dirs).toHaveLength(1);
    for (const dir of dirs) expect(existsSync(path.join(sessions, dir, "claude-ui-hooks.json"))).toBe(false);
  });
});
