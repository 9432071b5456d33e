import { execa } from "execa";
import { createHash } from "node:crypto";
import { readFileSync, statSync, writeFileSync, truncateSync, existsSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { Header } from "tar";
import { EXPORT_FORMAT, EXPORT_KIND, type ExportIndex } from "../../src/sharing/export-index.js";
import { openExport } from "../../src/sharing/export-reader.js";
import { writeExport } from "../../src/sharing/export-writer.js";
import { writeTarGz } from "../../src/sharing/tar-writer.js";
import { tempDir } from "../support/gitdir.js";
import { TOP, file, gz, header, indexEntry, tar } from "./hostile-fixtures.js";

const INDEX: Omit<ExportIndex, "entries"> = {
  kind: EXPORT_KIND,
  format: EXPORT_FORMAT,
  nudgeVersion: "0.1.0",
  exported: {
    at: "2026-11-21T00:00:00.000Z",
    by: { name: "Ana", email: "ana@example.com" },
    repoRoot: "/home/ana/app",
    cwd: "/home/ana/app",
    claudeProjectDir: "/home/ana/.claude/projects/-home-ana-app",
  },
  session: { id: "1e834beb3b", turns: 2, upto: null, claudeSessionIds: ["c5569355-fece-42f7-a84c-7e95b9520a8a"] },
  git: null,
  masked: [],
};

function sample(dir: string) {
  const transcript = path.join(dir, "transcript.jsonl");
  writeFileSync(transcript, '{"type":"user","cwd":"/home/ana/app"}\n');
  return [
    { path: "session/conversation.jsonl", source: Buffer.from('{"type":"system"}\n') },
    { path: "claude/c5569355-fece-42f7-a84c-7e95b9520a8a.jsonl", source: { file: transcript } },
    { path: "session/changes/turn-001.patch", source: Buffer.from("diff --git a/x b/x\n") },
    { path: "session/manifest.json", source: Buffer.from("{}\n") },
  ];
}

/** Every header of a (gunzipped) tar, in order. */
function headers(tarBytes: Buffer): Header[] {
  const out: Header[] = [];
  for (let at = 0; at + 512 <= tarBytes.length;) {
    const h = new Header(tarBytes, at);
    if (h.nullBlock) break;
    out.push(h);
    at += 512 + Math.ceil(h.size! / 512) * 512;
  }
  return out;
}

describe("writing an export", () => {
  it("puts the index first and the rest in name order, each listed with its size and sha256, and reads back the same", async () => {
    const dir = tempDir();
    const out = path.join(dir, "nudge-1e834beb3b.tar.gz");
    const written = await writeExport(out, { top: "nudge-1e834beb3b", index: INDEX, files: sample(dir) });
    expect(written.bytes).toBe(statSync(out).size);
    // It holds the conversation and the code: readable by its owner only, whatever the umask.
    expect(statSync(out).mode & 0o777).toBe(0o600);

    const names = headers(gunzipSync(readFileSync(out))).map((h) => h.path);
    expect(names).toEqual([
      "nudge-1e834beb3b/nudge-export.json",
      "nudge-1e834beb3b/claude/c5569355-fece-42f7-a84c-7e95b9520a8a.jsonl",
      "nudge-1e834beb3b/session/changes/turn-001.patch",
      "nudge-1e834beb3b/session/conversation.jsonl",
      "nudge-1e834beb3b/session/manifest.json",
    ]);
    expect(written.index.entries).toContainEqual({
      path: "session/manifest.json",
      bytes: 3,
      sha256: createHash("sha256").update("{}\n").digest("hex"),
    });

    const opened = await openExport(out, { tempParent: dir });
    expect(opened.top).toBe("nudge-1e834beb3b");
    expect(opened.index).toEqual(written.index);
    expect(readFileSync(opened.file("claude/c5569355-fece-42f7-a84c-7e95b9520a8a.jsonl"), "utf8")).toBe(
      '{"type":"user","cwd":"/home/ana/app"}\n',
    );
    expect(statSync(opened.dir).mode & 0o777).toBe(0o700);
    expect(statSync(opened.file("session/manifest.json")).mode & 0o777).toBe(0o600);
    await opened.remove();
    expect(existsSync(opened.dir)).toBe(false);
  });

  it("is deterministic: fixed order, times, owners, modes and gzip header; plain ustar, no pax", async () => {
    const dir = tempDir();
    const a = path.join(dir, "a.tar.gz");
    const b = path.join(dir, "b.tar.gz");
    await writeExport(a, { top: "nudge-1e834beb3b", index: INDEX, files: sample(dir) });
    await new Promise((r) => setTimeout(r, 1100)); // a second later: any clock in the output would show
    await writeExport(b, { top: "nudge-1e834beb3b", index: INDEX, files: sample(dir).reverse() });
    expect(readFileSync(a).equals(readFileSync(b))).toBe(true);

    const bytes = readFileSync(a);
    expect([...bytes.subarray(0, 10)]).toEqual([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]); // magic, deflate, no flags, mtime 0, xfl, OS "unknown"
    for (const h of headers(gunzipSync(bytes))) {
      expect(h).toMatchObject({
        type: "File",
        mode: 0o644,
        uid: 0,
        gid: 0,
        uname: "",
        gname: "",
        mtime: new Date("2000-01-01T00:00:00Z"),
      });
    }
  });

  it("makes a tarball GNU tar lists and extracts as it is", async () => {
    const dir = tempDir();
    const out = path.join(dir, "x.tar.gz");
    await writeExport(out, { top: "nudge-1e834beb3b", index: INDEX, files: sample(dir) });
    const listing = (await execa("tar", ["-tvzf", out], { env: { TZ: "UTC" } })).stdout.split("\n");
    expect(listing[0]).toMatch(/^-rw-r--r-- 0\/0 +\d+ 2000-01-01 00:00 nudge-1e834beb3b\/nudge-export.json$/);
    await execa("tar", ["-xzf", out, "-C", dir]);
    expect(readFileSync(path.join(dir, "nudge-1e834beb3b/session/manifest.json"), "utf8")).toBe("{}\n");
  });

  it("streams large files through both ways without holding them in memory", async () => {
    const dir = tempDir();
    const big = path.join(dir, "big.bin");
    writeFileSync(big, "");
    truncateSync(big, 96 * 1024 * 1024); // 96 MiB of zeros, sparse on disk
    const baseline = process.memoryUsage().arrayBuffers;
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().arrayBuffers - baseline)), 1);
    try {
      const out = path.join(dir, "big.tar.gz");
      await writeExport(out, {
        top: "nudge-1e834beb3b",
        index: INDEX,
        files: [{ path: "claude/tool-results/big.bin", source: { file: big } }],
      });
      // Zeros compress 1000:1, past the ratio an import allows by default (limits.ts): lifted, as --max-size does.
      const opened = await openExport(out, { tempParent: dir, limits: { maxRatio: Infinity } });
      expect(statSync(opened.file("claude/tool-results/big.bin")).size).toBe(96 * 1024 * 1024);
    } finally {
      clearInterval(sampler);
    }
    // Buffers are freed at the next GC, so the peak includes garbage (Node 24 collects later than 20:
    // ~49 MiB there); holding the file would be ≥ 96 MiB.
    expect(peak).toBeLessThan(72 * 1024 * 1024);
  });

  it("refuses a file that changed after it was measured, rather than write an archive that fails its own check", async () => {
    const dir = tempDir();
    const f = path.join(dir, "f.txt");
    writeFileSync(f, "now\n");
    await expect(
      writeTarGz(path.join(dir, "x.tar.gz"), [
        { path: "t/f.txt", source: { file: f }, bytes: 4, sha256: "0".repeat(64) },
      ]),
    ).rejects.toMatchObject({
      name: "UserError",
      message: `${f} changed while it was being exported`,
    });
    expect(existsSync(path.join(dir, "x.tar.gz"))).toBe(false);
  });

  it("refuses names an importer would refuse", async () => {
    const dir = tempDir();
    await expect(
      writeExport(path.join(dir, "x.tar.gz"), {
        top: "nudge-x",
        index: INDEX,
        files: [{ path: "../x", source: Buffer.alloc(0) }],
      }),
    ).rejects.toThrow(/bad path/);
    await expect(writeExport(path.join(dir, "x.tar.gz"), { top: "../x", index: INDEX, files: [] })).rejects.toThrow(
      /bad top folder/,
    );
  });
});

describe("reading an export", () => {
  it("accepts folder entries for the folders its index implies", async () => {
    const dir = tempDir();
    const archive = path.join(dir, "dirs.tar.gz");
    writeFileSync(
      archive,
      gz(
        tar(
          indexEntry({ "a/b.txt": "b\n" }),
          header(`${TOP}/`, 0, "Directory"),
          header(`${TOP}/a/`, 0, "Directory"),
          file(`${TOP}/a/b.txt`, "b\n"),
        ),
      ),
    );
    const opened = await openExport(archive, { tempParent: dir });
    expect(readFileSync(opened.file("a/b.txt"), "utf8")).toBe("b\n");
  });

  it("says so when the file is not there", async () => {
    await expect(openExport("/nonexistent/x.tar.gz")).rejects.toMatchObject({
      name: "UserError",
      message: "cannot read /nonexistent/x.tar.gz (ENOENT)",
    });
  });
});
