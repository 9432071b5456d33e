/** A stored patch read a piece at a time gives the page what the whole patch read at once gave. */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { diffView, PATCH_CHARS } from "../../src/view/diff-view.js";
import { FULL_PATCH_BYTES, storedDiffView } from "../../src/view/stored-diff.js";
import { tempDir } from "../support/gitdir.js";

const small = [
  "diff --git a/old.txt b/new.txt",
  "similarity index 100%",
  "rename from old.txt",
  "rename to new.txt",
  "diff --git a/run.sh b/run.sh",
  "old mode 100644",
  "new mode 100755",
  "diff --git a/logo.png b/logo.png",
  "new file mode 100644",
  "index 0000000..029ace0",
  "Binary files /dev/null and b/logo.png differ",
  'diff --git "a/caf\\303\\251 <b>.md" "b/caf\\303\\251 <b>.md"',
  "index 2e65efe..63d8dbd 100644",
  '--- "a/caf\\303\\251 <b>.md"\t',
  '+++ "b/caf\\303\\251 <b>.md"\t',
  "@@ -1,3 +1,3 @@",
  "--- a line of content, not a header",
  "+++ another",
  " context",
  "",
].join("\n");

/** A new file of `lines` lines, some lines long enough to cross the reader's 1 MB pieces. */
function bigFile(lines: number): string {
  const body = Array.from(
    { length: lines },
    (_, i) => `+${i % 997 === 0 ? "x".repeat(300_000) : `line ${i} of a big file`}`,
  );
  return [
    "diff --git a/big.txt b/big.txt",
    "new file mode 100644",
    "index 0000000..1111111",
    "--- /dev/null",
    "+++ b/big.txt",
    `@@ -0,0 +1,${lines} @@`,
    ...body,
    "",
  ].join("\n");
}

async function both(patch: string, full: boolean) {
  const file = path.join(tempDir(), "turn-001.patch");
  writeFileSync(file, patch);
  return { stored: await storedDiffView(file, full), whole: diffView(patch, full) };
}

describe("storedDiffView", () => {
  it("a small patch: the same files and text as diffView", async () => {
    for (const full of [false, true]) {
      const { stored, whole } = await both(small + bigFile(3), full);
      expect(stored).toEqual(whole);
    }
  });

  it("a patch of megabytes: the same files, its start as text, cut at a line end", async () => {
    const patch = small + bigFile(40_000);
    for (const [full, cap] of [
      [false, PATCH_CHARS],
      [true, FULL_PATCH_BYTES],
    ] as const) {
      const { stored, whole } = await both(patch, full);
      expect(stored.files).toEqual(whole.files);
      expect(stored.files.at(-1)).toMatchObject({ path: "big.txt", added: 40_000 });
      expect(stored.truncated).toBe(true);
      expect(stored.patch.length).toBeLessThanOrEqual(cap + 1);
      expect(stored.patch.endsWith("\n")).toBe(true);
      expect(patch.startsWith(stored.patch)).toBe(true);
    }
  });

  it("a missing patch is an empty diff", async () => {
    expect(await storedDiffView(path.join(tempDir(), "none.patch"), false)).toEqual({
      files: [],
      patch: "",
      truncated: false,
    });
  });
});
