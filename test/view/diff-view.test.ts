/** The file list the page shows, read from git's own patch headers. */
import { describe, expect, it } from "vitest";
import { diffView } from "../../src/view/diff-view.js";

describe("diffView", () => {
  it("a name with a space (git ends it with a tab) and a quoted one with bytes git escapes are the names", () => {
    const patch = [
      "diff --git a/my notes.txt b/my notes.txt",
      "new file mode 100644",
      "index 0000000..2e65efe",
      "--- /dev/null",
      "+++ b/my notes.txt\t",
      "@@ -0,0 +1 @@",
      "+a",
      'diff --git "a/caf\\303\\251 <b>.md" "b/caf\\303\\251 <b>.md"',
      "index 2e65efe..63d8dbd 100644",
      '--- "a/caf\\303\\251 <b>.md"\t',
      '+++ "b/caf\\303\\251 <b>.md"\t',
      "@@ -1 +1 @@",
      "-a",
      "+b",
      "",
    ].join("\n");
    expect(diffView(patch, false).files.map((f) => [f.path, f.status, f.added, f.removed])).toEqual([
      ["my notes.txt", "added", 1, 0],
      ["café <b>.md", "modified", 1, 1],
    ]);
  });

  it("a rename, a mode change, a symlink and a binary file say so", () => {
    const patch = [
      "diff --git a/old.txt b/new.txt",
      "similarity index 100%",
      "rename from old.txt",
      "rename to new.txt",
      "diff --git a/run.sh b/run.sh",
      "old mode 100644",
      "new mode 100755",
      "diff --git a/link b/link",
      "new file mode 120000",
      "index 0000000..1de5659",
      "--- /dev/null",
      "+++ b/link",
      "@@ -0,0 +1 @@",
      "+target",
      "\\ No newline at end of file",
      "diff --git a/logo.png b/logo.png",
      "new file mode 100644",
      "index 0000000..029ace0",
      "Binary files /dev/null and b/logo.png differ",
      "",
    ].join("\n");
    expect(diffView(patch, false).files).toEqual([
      {
        path: "new.txt",
        oldPath: "old.txt",
        status: "renamed",
        binary: false,
        symlink: false,
        oldMode: null,
        newMode: null,
        added: 0,
        removed: 0,
      },
      {
        path: "run.sh",
        oldPath: null,
        status: "mode",
        binary: false,
        symlink: false,
        oldMode: "100644",
        newMode: "100755",
        added: 0,
        removed: 0,
      },
      {
        path: "link",
        oldPath: null,
        status: "added",
        binary: false,
        symlink: true,
        oldMode: null,
        newMode: "120000",
        added: 1,
        removed: 0,
      },
      {
        path: "logo.png",
        oldPath: null,
        status: "added",
        binary: true,
        symlink: false,
        oldMode: null,
        newMode: "100644",
        added: 0,
        removed: 0,
      },
    ]);
  });
});
