/**
 * A hostile or damaged export is refused by `nudge session import` with one line and exit 1, and
 * leaves nothing behind: no files in the temp dir, no session, no refs, nothing under the claude
 * config dir, no new git objects. That holds for what the archive reader refuses, for what is
 * found late (a patch that does not apply, a tree that does not match, a bundle that does not
 * verify, a commit the clone lacks), and for a failure while installing (undone step by step).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/store.js";
import { importSession } from "../../src/sharing/import-session.js";
import { git, tempDir, writeFiles } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { fileListing, nudgeRefs, storeFiles } from "../support/store-state.js";
import { FIXTURES, hostileCases } from "./hostile-fixtures.js";
import { configDir, filesUnder, origin, repack } from "./share-support.js";

let rec: Recorded;
let a: string;
let clone: (name: string) => Promise<string>;
let archive: string;

beforeAll(async () => {
  ({ clone } = await origin({ "README.md": "# app\n" }));
  a = await clone("ana");
  rec = await recordSession(
    a,
    [
      { tool: "Write", input: { file_path: path.join(a, "notes.txt"), content: "alpha\nbeta\ngamma\n" } },
      { text: "Wrote notes.txt." },
      { tool: "Edit", input: { file_path: path.join(a, "notes.txt"), old_string: "beta", new_string: "BETA" } },
      { text: "Edited notes.txt." },
    ],
    ["write notes", "edit notes"],
  );
  const exported = await runNudge(["session", "export", rec.id], { cwd: a, env: rec.env });
  expect(exported.exitCode, exported.stderr).toBe(0);
  archive = path.join(a, `nudge-${rec.id}.tar.gz`);
}, 60_000);
afterAll(() => rec?.api.close());

/** A clone to import into, with a private TMPDIR and claude config dir, and what "nothing changed" means for it. */
async function target(repo?: string) {
  const b = repo ?? (await clone("bob app"));
  const tmp = tempDir("nudge-tmp-");
  const cfg = configDir();
  const objects = () => fileListing(path.join(b, ".git", "objects"));
  const store = path.join(b, ".git", "nudge");
  const before = {
    objects: objects(),
    head: await git(b, "rev-parse", "HEAD").catch(() => ""),
    store: existsSync(store),
  };
  return {
    b,
    cfg,
    env: { CLAUDE_CONFIG_DIR: cfg, TMPDIR: tmp },
    async nothingLeft(o: { objects?: boolean } = {}) {
      expect(readdirSync(tmp)).toEqual([]);
      expect(filesUnder(store)).toEqual([]);
      // Not even the folders an import makes, in a clone that had no store.
      if (!before.store) expect(existsSync(store)).toBe(false);
      expect(await nudgeRefs(b)).toEqual([]);
      expect(existsSync(cfg)).toBe(false);
      expect(await git(b, "rev-parse", "HEAD").catch(() => "")).toBe(before.head);
      if (o.objects !== false) expect(objects()).toEqual(before.objects);
    },
  };
}

/** Refused through the CLI: exit 1, one error line and one hint line, nothing on stdout. */
function expectRefused(run: { exitCode?: number; stdout: string; stderr: string }, message: string | RegExp): void {
  expect(run.exitCode, run.stderr).toBe(1);
  expect(run.stdout).toBe("");
  const [error, hint, ...rest] = run.stderr.split("\n");
  if (typeof message === "string") expect(error).toBe(`error: ${message}`);
  else expect(error).toMatch(message);
  expect(hint).toMatch(/^hint: /);
  expect(rest).toEqual([]);
}

/** Change turn `n`'s patch in the unpacked export, and its size and sha256 in the journal, so only the code checks can tell. */
function editPatch(dir: string, n: number, edit: (patch: string) => string): void {
  const file = path.join(dir, "session", "changes", `turn-${String(n).padStart(3, "0")}.patch`);
  const patch = Buffer.from(edit(readFileSync(file, "utf8")));
  writeFileSync(file, patch);
  editTurn(dir, n, (t) => ({
    ...t,
    patch: { ...t.patch, bytes: patch.length, sha256: createHash("sha256").update(patch).digest("hex") },
  }));
}

function editTurn(dir: string, n: number, edit: (turn: any) => any): void {
  const journal = path.join(dir, "session", "turns.jsonl");
  const lines = readFileSync(journal, "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
  writeFileSync(journal, lines.map((t) => JSON.stringify(t.n === n ? edit(t) : t) + "\n").join(""));
}

function editManifest(dir: string, edit: (header: any) => any): void {
  const file = path.join(dir, "session", "manifest.json");
  writeFileSync(file, JSON.stringify(edit(JSON.parse(readFileSync(file, "utf8")))));
}

describe("import refuses a hostile archive", () => {
  it("every hostile fixture: refused as the reader says, nothing left in the temp dir, the store, git or claude's config", async () => {
    const t = await target();
    const store = await openStore(t.b, {});
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = t.env.TMPDIR; // the archive is unpacked under os.tmpdir()
    try {
      for (const c of hostileCases) {
        await expect(
          importSession(store, path.join(FIXTURES, `${c.name}.tar.gz`), {
            force: false,
            dryRun: false,
            env: { CLAUDE_CONFIG_DIR: t.cfg },
          }),
          c.name,
        ).rejects.toMatchObject({
          name: "UserError",
          message: `refusing ${c.name}.tar.gz: ${c.refusal}`,
        });
      }
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    await t.nothingLeft();
  });

  it("through the CLI: one line, a hint, exit 1", async () => {
    const t = await target();
    const run = await runNudge(["session", "import", path.join(FIXTURES, "symlink.tar.gz")], { cwd: t.b, env: t.env });
    expectRefused(run, 'refusing symlink.tar.gz: entry "nudge-hostile01/link" is a symbolic link');
    await t.nothingLeft();
  });
});

describe("import refuses what is found late, before writing anything", () => {
  const cases: Array<[string, (dir: string) => void, string | RegExp]> = [
    [
      "a patch that does not apply",
      (dir) => editPatch(dir, 2, (p) => p.replace("-beta", "-delta")),
      /^error: refusing nudge-\w+\.tar\.gz: changes\/turn-002\.patch \(turn 2\) does not apply: error: patch failed: notes\.txt:1$/,
    ],
    [
      "a patch that applies but gives another tree",
      (dir) => editPatch(dir, 2, (p) => p.replace("+BETA", "+GAMMA")),
      /^error: refusing nudge-\w+\.tar\.gz: changes\/turn-002\.patch does not reproduce turn 2's snapshot \(tree [0-9a-f]{10}, recorded [0-9a-f]{10}\)$/,
    ],
    [
      "a snapshot whose tree id does not match",
      (dir) => editTurn(dir, 2, (t) => ({ ...t, snapshot: { ...t.snapshot, tree: "0".repeat(40) } })),
      /^error: refusing nudge-\w+\.tar\.gz: turn 2's snapshot commit does not hold the tree it recorded$/,
    ],
    [
      "a git bundle that does not verify",
      (dir) => {
        const file = path.join(dir, "git", "session.bundle");
        const bytes = readFileSync(file);
        const pack = bytes.indexOf("PACK");
        for (let i = pack + 40; i < bytes.length - 40; i += 7) bytes[i] = bytes[i]! ^ 0x5a;
        writeFileSync(file, bytes);
      },
      /^error: refusing nudge-\w+\.tar\.gz: its git bundle is damaged \(git: (?!error: |fatal: ).+\)$/,
    ],
    [
      "a git bundle whose header is not a bundle's",
      (dir) => {
        const file = path.join(dir, "git", "session.bundle");
        writeFileSync(file, Buffer.concat([Buffer.from("# v9 git bundle"), readFileSync(file).subarray(15)]));
      },
      // Said as the archive's damage, never by the path of the file the import unpacked it to.
      /^error: refusing nudge-\w+\.tar\.gz: its git bundle is damaged \(not a git bundle\)$/,
    ],
    [
      "a manifest that fails the schema",
      (dir) => editManifest(dir, (h) => ({ ...h, repo: { ...h.repo, baseCommit: "../../etc" } })),
      /^error: refusing nudge-\w+\.tar\.gz: its session\/manifest\.json does not match the bundle format \(repo\.baseCommit: a git object id\)$/,
    ],
    [
      "a manifest of a newer format",
      (dir) => editManifest(dir, (h) => ({ ...h, format: 3 })),
      /^error: refusing nudge-\w+\.tar\.gz: its session is in bundle format 3, newer than this nudge reads \(2\)$/,
    ],
    [
      "an entry that is no part of a session",
      (dir) => writeFiles(dir, { "session/notes/evil.sh": "rm -rf ~\n" }),
      /^error: refusing nudge-\w+\.tar\.gz: entry session\/notes\/evil\.sh is not part of a session$/,
    ],
    [
      "a patch other than the one the turn recorded",
      (dir) => writeFileSync(path.join(dir, "session", "changes", "turn-001.patch"), "diff --git a/x b/x\n"),
      /^error: refusing nudge-\w+\.tar\.gz: session\/changes\/turn-001\.patch is not the patch turn 1 recorded \(its sha256 differs\)$/,
    ],
  ];
  it.each(cases)("%s", async (_name, edit, message) => {
    const bad = await repack(archive, edit);
    const t = await target();
    const run = await runNudge(["session", "import", bad], { cwd: t.b, env: t.env });
    expectRefused(run, message);
    await t.nothingLeft();
  });

  it("an export that does not name its root commits (an older nudge's), into a repository without the commit it builds on: names it, its branch, and git fetch", async () => {
    const empty = tempDir("nudge-empty-");
    await git(empty, "init", "-q");
    await git(empty, "commit", "-q", "--allow-empty", "-m", "unrelated");
    const t = await target(empty);
    const older = await repack(
      archive,
      () => undefined,
      (index) => delete index.git!.rootCommits,
    );
    const run = await runNudge(["session", "import", older], { cwd: empty, env: t.env });
    const base = rec.manifest.repo.baseCommit!;
    expectRefused(
      run,
      `this repository lacks commit ${base} (on origin/main where it was exported), which the session's code builds on`,
    );
    expect(run.stderr).toContain("hint: fetch it: git fetch origin main, then import again");
    await t.nothingLeft();
  });
});

describe("a failure while installing is undone", () => {
  it.each(["import-refs", "import-bundle", "import-place"])(
    "a full disk at %s: no session, no refs, nothing under the claude config dir",
    async (point) => {
      const t = await target();
      const run = await runNudge(["session", "import", archive], {
        cwd: t.b,
        env: { ...t.env, NUDGE_FAULT: `${point}:enospc` },
      });
      expect(run.exitCode, run.stderr).toBe(1);
      expect(run.stderr).toMatch(
        /^error: ENOSPC: no space left on device \(injected at import-\w+\)\nhint: free some disk space/,
      );
      // The bundle's objects may have gone in (no ref names them; git gc prunes them): everything else is as it was.
      await t.nothingLeft({ objects: false });
    },
  );

  it("with --force, the session it was replacing comes back whole", async () => {
    const t = await target();
    expect((await runNudge(["session", "import", archive], { cwd: t.b, env: t.env })).exitCode).toBe(0);
    const upto = path.join(tempDir(), "upto.tar.gz");
    expect(
      (await runNudge(["session", "export", rec.id, "--upto", "1", "-o", upto], { cwd: a, env: rec.env })).exitCode,
    ).toBe(0);
    const store = storeFiles(path.join(t.b, ".git", "nudge"));
    const refs = await nudgeRefs(t.b);
    const claude = filesUnder(t.cfg);
    const run = await runNudge(["session", "import", upto, "--force"], {
      cwd: t.b,
      env: { ...t.env, NUDGE_FAULT: "import-bundle:enospc" },
    });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(storeFiles(path.join(t.b, ".git", "nudge"))).toEqual(store);
    expect(await nudgeRefs(t.b)).toEqual(refs);
    expect(filesUnder(t.cfg)).toEqual(claude);
  });
});
