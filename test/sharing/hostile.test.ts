import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { gunzipSync, constants } from "node:zlib";
import { describe, expect, it } from "vitest";
import { inflate } from "../../src/sharing/inflate.js";
import { openExport } from "../../src/sharing/export-reader.js";
import { tempDir } from "../support/gitdir.js";
import { FIXTURES, OUTSIDE, hostileCases } from "./hostile-fixtures.js";

describe("importing a hostile export", () => {
  it.each(hostileCases.map((c) => [c.name, c] as const))(
    "%s: refused with one line, nothing left behind",
    async (name, c) => {
      rmSync(OUTSIDE, { recursive: true, force: true });
      const parent = tempDir();
      const opened = openExport(path.join(FIXTURES, `${name}.tar.gz`), { tempParent: parent });
      await expect(opened).rejects.toMatchObject({
        name: "UserError",
        message: `refusing ${name}.tar.gz: ${c.refusal}`,
        hint: expect.stringMatching(
          /^(this is not a file made by `nudge session export`|upgrade nudge|if you trust the file, import it with --max-size \d+MiB)/,
        ),
      });
      // The private temp dir is gone, and nothing was written beside it (where `..` would land) …
      expect(readdirSync(parent)).toEqual([]);
      // … nor where the absolute and link cases point.
      expect(existsSync(OUTSIDE)).toBe(false);
    },
  );

  it("a link placed by an earlier entry is never followed: the link is refused before the file behind it", async () => {
    const parent = tempDir();
    await expect(openExport(path.join(FIXTURES, "symlink-then-file.tar.gz"), { tempParent: parent })).rejects.toThrow(
      /is a symbolic link/,
    );
    expect(existsSync(path.join(OUTSIDE, "evil.txt"))).toBe(false);
    expect(readdirSync(parent)).toEqual([]);
  });

  it("stops a decompression bomb at the size its index accounts for, without inflating the rest", async () => {
    const bomb = path.join(FIXTURES, "bomb.tar.gz");
    expect(gunzipSync(readFileSync(bomb)).length).toBeGreaterThan(60 * 2 ** 20);
    await expect(openExport(bomb, { tempParent: tempDir() })).rejects.toThrow(/decompression bomb/);
    // The inflater hands over no byte past its cap: the refusal comes at the cap, not at the end.
    let handed = 0;
    const cap = 2 ** 20;
    await expect(
      (async () => {
        for await (const chunk of inflate(bomb, () => cap)) handed += chunk.length;
      })(),
    ).rejects.toThrow(/decompression bomb/);
    expect(handed).toBeLessThanOrEqual(cap);
  });

  it("the committed fixtures are what hostile-fixtures.ts makes (run it with tsx if this fails)", () => {
    for (const c of hostileCases) {
      const committed = readFileSync(path.join(FIXTURES, `${c.name}.tar.gz`));
      // Compare what the gzip holds, not its bytes: another zlib may compress the same input differently.
      expect(digest(inflated(committed)), c.name).toBe(digest(inflated(c.bytes())));
    }
    expect(readdirSync(FIXTURES).sort()).toEqual(hostileCases.map((c) => `${c.name}.tar.gz`).sort());
  });
});

function digest(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

function inflated(data: Buffer): Buffer {
  while (data[0] === 0x1f && data[1] === 0x8b) data = gunzipSync(data, { finishFlush: constants.Z_SYNC_FLUSH });
  return data;
}
