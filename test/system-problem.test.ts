/**
 * What the machine refused is said as a sentence with the path and a hint (exit 1), not node's
 * "ENOTDIR: not a directory, mkdir '…'". Real errors from real calls on a temp folder.
 */
import { execa } from "execa";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { systemProblem } from "../src/base/system-problem.js";
import { tempDir } from "./support/gitdir.js";

function thrown(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  throw new Error("the call did not fail");
}

describe("systemProblem", () => {
  it("names what was being done, the path (and where to), and why, with the hint for its code", () => {
    const dir = tempDir();
    const file = path.join(dir, "a-file");
    writeFileSync(file, "x");
    expect(systemProblem(thrown(() => mkdirSync(path.join(file, "sub"))))).toEqual({
      message: `cannot make the folder ${file}/sub: not a directory`,
      hint: "a file stands where a folder is needed; check that path",
    });
    // A file where a folder is to be made (session import said "nudge bug: EEXIST …").
    expect(systemProblem(thrown(() => mkdirSync(file)))).toEqual({
      message: `cannot make the folder ${file}: file already exists`,
      hint: "a file stands where a folder is needed; check that path",
    });
    expect(systemProblem(thrown(() => readFileSync(path.join(dir, "missing"))))?.message).toBe(
      `cannot open ${dir}/missing: no such file or directory`,
    );
    expect(systemProblem(thrown(() => renameSync(path.join(dir, "missing"), path.join(dir, "b"))))?.message).toBe(
      `cannot rename ${dir}/missing to ${dir}/b: no such file or directory`,
    );
  });

  it("offers moving the store (NUDGE_STORE) only where the store is what cannot be written", async () => {
    const mount = tempDir();
    await execa("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mount]);
    onTestFinished(() => execa("umount", [mount]).then(() => undefined));
    mkdirSync(path.join(mount, ".git", "nudge"), { recursive: true });
    await execa("mount", ["-o", "remount,ro", mount]);
    const store = systemProblem(thrown(() => writeFileSync(path.join(mount, ".git", "nudge", "x"), "")));
    expect(store).toEqual({
      message: `cannot open ${mount}/.git/nudge/x: read-only file system`,
      hint: "that file system is read-only; NUDGE_STORE can point the store at a writable folder",
    });
    // An export written there: moving the store would not help (the hint said it would).
    expect(systemProblem(thrown(() => writeFileSync(path.join(mount, "session.tar.gz"), "")))?.hint).toBe(
      "that file system is read-only",
    );
  });

  it("leaves alone what is not the machine's refusal: nudge's own errors, and codes it has no hint for", () => {
    expect(systemProblem(new Error("something else"))).toBeNull();
    const dir = tempDir();
    expect(systemProblem(thrown(() => readFileSync(dir)))).toBeNull(); // EISDIR
  });
});
