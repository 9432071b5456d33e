/**
 * A rewind that cannot delete a file (a read-only mount inside the work tree) fails, puts back
 * what it touched, and says so truthfully: the file it could not change was never changed. Real
 * claude, scripted API, a real read-only tmpfs (root, as the disk-full tests).
 */
import { execa } from "execa";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, expect, it, onTestFinished } from "vitest";
import { gitdir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { workTreeListing } from "../support/tree-listing.js";

let recorded: Recorded | undefined;
afterEach(async () => {
  await recorded?.api.close();
  recorded = undefined;
});

it("a file on a read-only mount: the rewind fails, and says the files it touched were put back", async () => {
  const repo = await gitdir({ "README.md": "# app\n" });
  const mount = path.join(repo, "ro");
  mkdirSync(mount);
  await execa("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mount]);
  onTestFinished(() => execa("umount", [mount]).then(() => undefined));
  recorded = await recordSession(
    repo,
    [
      { tool: "Write", input: { file_path: path.join(mount, "a.txt"), content: "on the mount\n" } },
      { tool: "Write", input: { file_path: path.join(repo, "b.txt"), content: "beside it\n" } },
      { text: "Wrote both." },
    ],
    ["write a and b"],
  );
  await execa("mount", ["-o", "remount,ro", mount]);
  const before = await workTreeListing(repo);
  const failed = await runNudge(["session", "rewind", recorded.id, "0", "--yes"], { cwd: repo });
  expect(failed.exitCode).toBe(1);
  expect(failed.stderr).toMatch(
    /^error: the work tree did not match turn 0 after writing it \(ro\/a\.txt: not writable there, or written by another program meanwhile\)/m,
  );
  // It said "not every file it touched could be put back", though every one was.
  expect(failed.stderr).toMatch(/; the files it touched were put back$/m);
  expect(await workTreeListing(repo)).toEqual(before);
  expect(readFileSync(path.join(mount, "a.txt"), "utf8")).toBe("on the mount\n");
});
