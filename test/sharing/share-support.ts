/** Helpers for the export/import tests: an origin with clones, unpacking an export, re-packing one altered. */
import { execa } from "execa";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { writeExport } from "../../src/sharing/export-writer.js";
import { openExport } from "../../src/sharing/export-reader.js";
import type { ExportIndex } from "../../src/sharing/export-index.js";
import { expect } from "vitest";
import { git, gitdir, tempDir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";

/** A bare origin holding `files` as its first commit, and a way to clone it to a named folder (spaces allowed). */
export async function origin(
  files: Record<string, string>,
): Promise<{ bare: string; clone: (name: string) => Promise<string> }> {
  const upstream = await gitdir(files);
  const bare = path.join(tempDir(), "origin.git");
  await git(path.dirname(bare), "clone", "-q", "--bare", upstream, bare);
  const clone = async (name: string) => {
    const dir = path.join(tempDir(), name);
    await git(path.dirname(dir), "clone", "-q", bare, dir);
    for (const [key, value] of Object.entries({
      "user.name": "Test",
      "user.email": "test@example.com",
      "commit.gpgSign": "false",
      "gc.auto": "0",
    }))
      await git(dir, "config", key, value);
    return dir;
  };
  return { bare, clone };
}

/** Every file of an export, unpacked with the system's tar: path inside the top folder → bytes. */
export async function unpack(archive: string): Promise<Map<string, Buffer>> {
  const dir = tempDir("nudge-unpacked-");
  await execa("tar", ["xzf", archive, "-C", dir]);
  const [top] = readdirSync(dir);
  const out = new Map<string, Buffer>();
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, top!, rel))) {
      const child = rel ? `${rel}/${name}` : name;
      if (statSync(path.join(dir, top!, child)).isDirectory()) walk(child);
      else out.set(child, readFileSync(path.join(dir, top!, child)));
    }
  };
  walk("");
  return out;
}

/**
 * Every byte an export holds, as latin1 text by entry (decompressed), and the git bundle's
 * objects: the bundle is unbundled in a scratch repository that borrows `clone`'s objects (a thin
 * bundle's prerequisites), and every object of its pack is read whole (`verify-pack` lists them,
 * `cat-file --batch` reads them, deltas resolved). The bundle's objects are under "git objects".
 */
export async function exportBytes(archive: string, clone: string): Promise<Map<string, string>> {
  const entries = await unpack(archive);
  const out = new Map(
    [...entries]
      .filter(([name]) => !name.endsWith(".bundle"))
      .map(([name, bytes]) => [name, bytes.toString("latin1")] as const),
  );
  const dir = tempDir("nudge-bundle-");
  const bundle = path.join(dir, "session.bundle");
  writeFileSync(bundle, entries.get("git/session.bundle")!);
  const repo = path.join(dir, "scratch.git");
  await execa("git", ["init", "-q", "--bare", repo]);
  writeFileSync(path.join(repo, "objects", "info", "alternates"), path.join(clone, ".git", "objects") + "\n");
  await execa("git", ["bundle", "unbundle", bundle], { cwd: repo });
  const packs = readdirSync(path.join(repo, "objects", "pack"))
    .filter((f) => f.endsWith(".idx"))
    .map((f) => path.join(repo, "objects", "pack", f));
  expect(packs.length).toBe(1);
  const listed = (await execa("git", ["verify-pack", "-v", ...packs], { cwd: repo })).stdout.split("\n");
  const ids = listed.map((line) => line.split(" ")[0]!).filter((id) => /^[0-9a-f]{40}$/.test(id));
  expect(ids.length).toBeGreaterThan(0);
  const objects = await execa("git", ["cat-file", "--batch"], {
    cwd: repo,
    input: ids.join("\n") + "\n",
    encoding: "buffer",
  });
  out.set("git objects", Buffer.from(objects.stdout).toString("latin1"));
  return out;
}

/**
 * A self-contained export's git bundle fetched into a scratch repository: every object it holds,
 * as `git cat-file --batch` prints it, and the session's commit messages.
 */
export async function bundleObjects(bundleBytes: Buffer): Promise<{ all: string; messages: string }> {
  const dir = tempDir();
  const bundle = path.join(dir, "session.bundle");
  writeFileSync(bundle, bundleBytes);
  const repo = path.join(dir, "repo");
  await execa("git", ["init", "-q", repo]);
  await git(repo, "fetch", "-q", bundle, "refs/nudge/export/session:refs/heads/session");
  const all = Buffer.from(
    (await execa("git", ["cat-file", "--batch-all-objects", "--batch"], { cwd: repo, encoding: "buffer" })).stdout,
  ).toString("latin1");
  return { all, messages: await git(repo, "log", "--format=%B", "session") };
}

/** The entries (or "git objects") that hold `text`, as written or JSON-escaped. */
export function holding(bytes: Map<string, string>, text: string): string[] {
  const forms = [...new Set([text, JSON.stringify(text).slice(1, -1)])].map((f) => Buffer.from(f).toString("latin1"));
  return [...bytes].filter(([, content]) => forms.some((f) => content.includes(f))).map(([name]) => name);
}

/**
 * An export altered after the fact and packed again with a correct index (sizes, sha256s): what
 * someone who knows the format could hand over. `edit` gets the unpacked folder, `editIndex` the
 * index (an export of an older nudge lacks fields).
 */
export async function repack(
  archive: string,
  edit: (dir: string) => void | Promise<void>,
  editIndex?: (index: ExportIndex) => void,
): Promise<string> {
  const opened = await openExport(archive, { tempParent: tempDir() });
  try {
    await edit(opened.dir);
    const files = listFiles(opened.dir)
      .filter((f) => f !== "nudge-export.json")
      .map((f) => ({ path: f, source: { file: path.join(opened.dir, f) } }));
    const out = path.join(tempDir(), path.basename(archive));
    const { entries: _, ...index } = structuredClone(opened.index);
    editIndex?.(index as ExportIndex);
    await writeExport(out, { top: opened.top, index, files });
    return out;
  } finally {
    await opened.remove();
  }
}

function listFiles(dir: string, rel = ""): string[] {
  return readdirSync(path.join(dir, rel)).flatMap((name) => {
    const child = rel ? `${rel}/${name}` : name;
    return statSync(path.join(dir, child)).isDirectory() ? listFiles(dir, child) : [child];
  });
}

/**
 * Every file under a folder (relative), for "nothing was left behind"; a missing folder has none.
 * A store's session index is left out: a cache of the headers that any listing (an import's
 * among them) may write, checked against the bundles whenever it is used.
 */
export function filesUnder(dir: string): string[] {
  try {
    return listFiles(dir)
      .filter((f) => f !== "sessions-index.txt")
      .sort();
  } catch {
    return [];
  }
}

/** A fresh CLAUDE_CONFIG_DIR (not made yet: claude and nudge make it). */
export function configDir(): string {
  const dir = path.join(tempDir("nudge-cfg-"), "claude");
  mkdirSync(path.dirname(dir), { recursive: true });
  return dir;
}

/**
 * Ana's clone of a fresh origin with a two-turn session (two files written) exported to a file
 * of its own: what the import tests take apart and feed back in.
 */
export async function exportedTwoTurns(): Promise<{
  rec: Recorded;
  a: string;
  clone: (name: string) => Promise<string>;
  archive: string;
}> {
  const { clone } = await origin({ "README.md": "# app\n" });
  const a = await clone("ana");
  const rec = await recordSession(
    a,
    [
      { tool: "Write", input: { file_path: path.join(a, "notes.txt"), content: "alpha\n" } },
      { text: "Wrote notes.txt." },
      { tool: "Write", input: { file_path: path.join(a, "more.txt"), content: "beta\n" } },
      { text: "Wrote more.txt." },
    ],
    ["write notes", "write more"],
  );
  const archive = path.join(tempDir("nudge-archive-"), "session.tar.gz");
  const exported = await runNudge(["session", "export", rec.id, "-o", archive], { cwd: a, env: rec.env });
  expect(exported.exitCode, exported.stderr).toBe(0);
  return { rec, a, clone, archive };
}

/** A clone to import into, with its own temp dir (TMPDIR) and claude config dir. */
export async function importTarget(clone: (name: string) => Promise<string>) {
  const b = await clone("bob");
  const tmp = tempDir("nudge-tmp-");
  const cfg = configDir();
  const store = path.join(b, ".git", "nudge");
  return { b, tmp, cfg, store, env: { CLAUDE_CONFIG_DIR: cfg, TMPDIR: tmp } };
}
