/**
 * A file git cannot read (left behind by docker as root, or chmod 000) must not cost the turn.
 * Caused for real: as root the capture runs as `nobody` (root reads anything), otherwise chmod.
 */
import { execa } from "execa";
import { chmodSync, chownSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { git, gitdir, tempDir } from "../support/gitdir.js";

const privateIndex = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist/snapshot/private-index.js");

describe("a file git cannot read", () => {
  it("is reported and skipped; the rest of the turn is snapshotted", async () => {
    const repo = await gitdir({ "a.txt": "a\n" });
    writeFileSync(path.join(repo, "new.txt"), "captured\n");
    writeFileSync(path.join(repo, "locked.bin"), "secret\n");
    const scratch = tempDir();
    const script = `import { PrivateIndex } from ${JSON.stringify(privateIndex)};
      const index = new PrivateIndex({ root: ${JSON.stringify(repo)}, indexFile: ${JSON.stringify(path.join(scratch, "index"))}, exclude: [], untrackedCache: true });
      const s = await index.capture();
      console.log(JSON.stringify({ tree: s.tree, unreadable: s.unreadable }));`;
    let command = ["node", "--input-type=module", "-e", script];
    if (process.getuid?.() === 0) {
      // Everything but the locked file belongs to nobody, who runs the capture.
      await execa("chown", ["-R", "nobody", repo, scratch]);
      chownSync(path.join(repo, "locked.bin"), 0, 0);
      command = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", ...command];
    }
    chmodSync(path.join(repo, "locked.bin"), 0o000);
    const run = await execa(command[0]!, command.slice(1), { cwd: repo, reject: false, env: { HOME: scratch } });
    expect(run.exitCode, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.unreadable).toEqual(["locked.bin"]);
    const files = await git(repo, "-c", `safe.directory=${repo}`, "ls-tree", "-r", "--name-only", result.tree);
    expect(files.split("\n")).toEqual(["a.txt", "new.txt"]);
  });
});
