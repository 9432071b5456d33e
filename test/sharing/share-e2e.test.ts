/**
 * A session recorded in one clone, exported, and imported into another clone at another path
 * (with a space in it) by another user (another CLAUDE_CONFIG_DIR): the conversation resumes
 * there with the real claude, and a rewind gives the identical tree. All through the built CLI.
 */
import { existsSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { transcriptPath } from "../../src/claude/transcript.js";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { emptyQueuedPrompts } from "../../src/sharing/queued-prompts.js";
import { git, tempDir, writeFiles } from "../support/gitdir.js";
import { readManifestFile, recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptStep } from "../support/scripted-api.js";
import { nudgeRefs } from "../support/store-state.js";
import { treeListing, workTreeListing } from "../support/tree-listing.js";
import { configDir, filesUnder, origin, unpack } from "./share-support.js";
import { transcriptCopy } from "../support/transcript-copy.js";
import { readStreamOf } from "../support/stream.js";

function threeTurns(repo: string): ScriptStep[] {
  return [
    { tool: "Write", input: { file_path: path.join(repo, "notes.txt"), content: "alpha\nbeta\ngamma\n" } },
    { text: "Wrote notes.txt." },
    { tool: "Edit", input: { file_path: path.join(repo, "notes.txt"), old_string: "beta", new_string: "BETA" } },
    { text: "Edited notes.txt." },
    {
      tool: "Bash",
      input: {
        command: "printf '\\000\\001\\002\\377binary' > blob.bin && mv old-name.txt renamed.txt",
        description: "shuffle",
      },
    },
    { text: "Shuffled." },
  ];
}
const PROMPTS = ["write notes", "edit notes", "shuffle the files"];

/** Resume an imported session in `clone` with one new prompt; returns the messages claude sent the API. */
async function resume(clone: string, cfg: string, id: string): Promise<{ messages: string; system: string }> {
  const api = await startScriptedApi([{ text: "Resumed where we left off." }]);
  try {
    const run = await runNudge(
      ["claude", "run", "--claude-bin", CLAUDE_BIN, "-r", id, "--permission-mode", "acceptEdits"],
      { cwd: clone, env: claudeEnv(api, cfg), input: "what did we do so far?\n" },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    const body = api.mainLoopRequests()[0]!.body;
    return { messages: JSON.stringify(body.messages), system: JSON.stringify(body.system) };
  } finally {
    await api.close();
  }
}

async function rewindAndCompare(
  clone: string,
  cfg: string,
  id: string,
  from: { repo: string; tree: string },
): Promise<void> {
  const rewind = await runNudge(["session", "rewind", id, "2", "--yes"], {
    cwd: clone,
    env: { CLAUDE_CONFIG_DIR: cfg },
  });
  expect(rewind.exitCode, rewind.stderr).toBe(0);
  expect(await workTreeListing(clone)).toEqual(await treeListing(from.repo, from.tree));
}

describe("export, then import into another clone (base commit pushed)", () => {
  let rec: Recorded;
  let a: string;
  let clone: (name: string) => Promise<string>;
  let archive: string;
  beforeAll(async () => {
    ({ clone } = await origin({ "README.md": "# app\n", "old-name.txt": "to be renamed\n" }));
    a = await clone("ana");
    writeFiles(a, { "draft.md": "uncommitted at the start\n" });
    rec = await recordSession(a, threeTurns(a), PROMPTS);
    const exported = await runNudge(["session", "export", rec.id], { cwd: a, env: rec.env });
    expect(exported.exitCode, exported.stderr).toBe(0);
    archive = path.join(a, `nudge-${rec.id}.tar.gz`);
    expect(exported.stdout).toContain(`exported session ${rec.id} → nudge-${rec.id}.tar.gz (`);
    expect(exported.stdout).toContain("3 turns)");
    expect(exported.stdout).toContain("masked: no secrets found");
    expect(exported.stdout).toContain(
      `code: thin; it builds on ${rec.manifest.repo.baseCommit!.slice(0, 10)} (on origin/main), which the importing clone must have`,
    );
  }, 90_000);
  afterAll(() => rec?.api.close());

  it("resumes the recorded conversation in the clone, and a rewind gives the identical tree", async () => {
    const b = await clone("bob app");
    const cfg = configDir();
    const before = await git(b, "status", "--porcelain", "-uall");
    const head = await git(b, "rev-parse", "HEAD");
    const imported = await runNudge(["session", "import", archive], { cwd: b, env: { CLAUDE_CONFIG_DIR: cfg } });
    expect(imported.exitCode, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(`imported session ${rec.id} from nudge-${rec.id}.tar.gz (3 turns)`);
    const writtenAt = /^ {2}exported by Test <test@example\.com> from .+ on (\S+)$/m.exec(imported.stdout)?.[1];
    expect(imported.stdout).toContain(`exported by Test <test@example.com> from ${a} on ${writtenAt}`);
    // The work tree, HEAD and branches are as they were; the session's ref is there.
    expect(await git(b, "status", "--porcelain", "-uall")).toBe(before);
    expect(await git(b, "rev-parse", "HEAD")).toBe(head);
    expect(await nudgeRefs(b)).toEqual([`refs/nudge/sessions/${rec.id} ${rec.manifest.turns[3]!.snapshot.commit}`]);

    // claude's transcript is where claude looks for it from the clone, with the clone's paths.
    const sid = rec.manifest.turns[1]!.claudeSessionId!;
    const placed = readFileSync(transcriptPath(cfg, b, sid), "utf8");
    expect(placed).toContain(JSON.stringify(b).slice(1, -1));
    expect(placed).not.toContain(`"cwd":"${a}"`);
    // The clone's bundle keeps it compressed (the export carries it plain): the same bytes claude was given.
    expect(
      transcriptCopy(path.join(b, ".git", "nudge", "sessions", rec.id), `claude/${sid}.jsonl`).toString("utf8"),
    ).toBe(placed);

    const m = readManifestFile(path.join(b, ".git", "nudge", "sessions", rec.id));
    expect(m.repo).toMatchObject({ root: b, cwd: b, baseCommit: rec.manifest.repo.baseCommit });
    expect(m.origin).toMatchObject({
      exportedBy: "Test <test@example.com>",
      root: a,
      cwd: a,
      sourceId: rec.id,
      exportedAt: rec.manifest.updatedAt,
      writtenAt,
    });
    const list = await runNudge(["session", "list", "--json"], { cwd: b });
    expect(JSON.parse(list.stdout)[0].origin).toMatchObject({ exportedBy: "Test <test@example.com>", root: a });
    const show = await runNudge(["session", "show", rec.id], { cwd: b });
    expect(show.stdout).toContain(`imported: exported by Test <test@example.com> from ${a} on ${writtenAt}`);

    const seen = await resume(b, cfg, rec.id);
    for (const said of [...PROMPTS, "Wrote notes.txt.", "Edited notes.txt.", "Shuffled.", "what did we do so far?"])
      expect(seen.messages).toContain(said);
    // Everything claude was told names the clone, nothing the exporter's folder.
    expect(seen.messages + seen.system).toContain(b);
    expect(seen.messages + seen.system).not.toContain(a);

    await rewindAndCompare(b, cfg, rec.id, { repo: a, tree: rec.manifest.turns[2]!.snapshot.tree });
  });

  it("is deterministic with the time of writing pinned (SOURCE_DATE_EPOCH): the same session exports to the same bytes, whole or --upto", async () => {
    const pinned = { ...rec.env, SOURCE_DATE_EPOCH: "1700000000" };
    const first = await runNudge(["session", "export", rec.id, "-o", "first.tar.gz"], { cwd: a, env: pinned });
    const again = await runNudge(["session", "export", rec.id, "-o", "again.tar.gz"], { cwd: a, env: pinned });
    expect([first.exitCode, again.exitCode], again.stderr).toEqual([0, 0]);
    expect(readFileSync(path.join(a, "again.tar.gz")).equals(readFileSync(path.join(a, "first.tar.gz")))).toBe(true);
    const one = await runNudge(["session", "export", rec.id, "--upto", "1", "-o", "upto-a.tar.gz"], {
      cwd: a,
      env: pinned,
    });
    await new Promise((r) => setTimeout(r, 1100));
    const two = await runNudge(["session", "export", rec.id, "--upto", "1", "-o", "upto-b.tar.gz"], {
      cwd: a,
      env: pinned,
    });
    expect([one.exitCode, two.exitCode]).toEqual([0, 0]);
    expect(readFileSync(path.join(a, "upto-a.tar.gz")).equals(readFileSync(path.join(a, "upto-b.tar.gz")))).toBe(true);
  });

  it("--upto N holds turns 0..N only: logs and transcripts cut at turn N, commits only up to turn N's snapshot", async () => {
    const out = await runNudge(["session", "export", rec.id, "--upto", "1", "-o", "upto.tar.gz", "--json"], {
      cwd: a,
      env: rec.env,
    });
    expect(out.exitCode, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ turns: 1, upto: 1 });
    const files = await unpack(path.join(a, "upto.tar.gz"));
    const t1 = rec.manifest.turns[1]!;
    const conversation = files.get("session/conversation.jsonl")!;
    expect(conversation.equals(readStreamOf(rec.dir).subarray(0, t1.bytes!.to))).toBe(true);
    expect(conversation.toString()).not.toContain("edit notes");
    expect(files.get("session/timing.txt")!.toString().split("\n").filter(Boolean)).toHaveLength(t1.lines.to);
    // Cut where turn 1 ends: a prefix of the recording, at most the length recorded at turn 1 (which may run into turn 2: leak 3).
    const transcript = files.get(`session/${t1.transcript}`)!;
    expect(transcript.length).toBeLessThanOrEqual(t1.transcriptBytes!);
    // (with claude's queued-prompt lines emptied, as in every export: queued-prompts.ts)
    const scratch = tempDir();
    const unqueued = path.join(scratch, "unqueued.jsonl");
    writeFileSync(path.join(scratch, "recorded.jsonl"), transcriptCopy(rec.dir, t1.transcript!));
    await emptyQueuedPrompts(path.join(scratch, "recorded.jsonl"), unqueued);
    expect(transcript.equals(readFileSync(unqueued).subarray(0, transcript.length))).toBe(true);
    expect(transcript.toString()).not.toContain("edit notes");
    expect([...files.keys()].filter((f) => f.startsWith("session/changes/"))).toEqual([
      "session/changes/turn-000.patch",
      "session/changes/turn-001.patch",
    ]);
    // The bundle's one head is turn 1's snapshot; turn 2's commit is not in it.
    const bundle = path.join(a, "upto.bundle");
    writeFileSync(bundle, files.get("git/session.bundle")!);
    expect(await git(a, "bundle", "list-heads", bundle)).toBe(`${t1.snapshot.commit} refs/nudge/export/session`);
    const b = await clone("bob upto");
    const imported = await runNudge(["session", "import", path.join(a, "upto.tar.gz")], {
      cwd: b,
      env: { CLAUDE_CONFIG_DIR: configDir() },
    });
    expect(imported.exitCode, imported.stderr).toBe(0);
    expect(await git(b, "cat-file", "-t", rec.manifest.turns[2]!.snapshot.commit).catch(() => "missing")).toBe(
      "missing",
    );
  });

  it("importing the same export twice is a no-op; a different session under the same id gets a fresh id, or --force replaces it after setting it aside", async () => {
    const b = await clone("bob twice");
    const cfg = configDir();
    const env = { CLAUDE_CONFIG_DIR: cfg };
    const dry = await runNudge(["session", "import", archive, "--dry-run"], { cwd: b, env });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`would import session ${rec.id}`);
    expect(filesUnder(path.join(b, ".git", "nudge"))).toEqual([]);
    expect(filesUnder(cfg)).toEqual([]);
    expect(await nudgeRefs(b)).toEqual([]);

    expect((await runNudge(["session", "import", archive], { cwd: b, env })).exitCode).toBe(0);
    const storeFiles = filesUnder(path.join(b, ".git", "nudge"));
    const twice = await runNudge(["session", "import", archive], { cwd: b, env });
    expect(twice.exitCode, twice.stderr).toBe(0);
    expect(twice.stdout).toContain(`nudge-${rec.id}.tar.gz is already imported, as session ${rec.id}; nothing to do`);
    expect(filesUnder(path.join(b, ".git", "nudge"))).toEqual(storeFiles);

    // Another export of the same id (--upto 1 is another session state): a fresh id here.
    const upto = path.join(a, "other.tar.gz");
    expect(
      (await runNudge(["session", "export", rec.id, "--upto", "1", "-o", upto], { cwd: a, env: rec.env })).exitCode,
    ).toBe(0);
    const fresh = await runNudge(["session", "import", upto, "--json"], { cwd: b, env });
    expect(fresh.exitCode, fresh.stderr).toBe(0);
    const freshResult = JSON.parse(fresh.stdout);
    expect(freshResult).toMatchObject({ status: "imported", sourceId: rec.id, idChange: "fresh", turns: 1 });
    expect(freshResult.id).not.toBe(rec.id);
    expect(readManifestFile(path.join(b, ".git", "nudge", "sessions", rec.id)).turns).toHaveLength(4); // untouched

    // Importing that one again finds it under its fresh id.
    expect((await runNudge(["session", "import", upto], { cwd: b, env })).stdout).toContain(
      `already imported, as session ${freshResult.id}`,
    );

    const upto2 = path.join(a, "other2.tar.gz");
    expect(
      (await runNudge(["session", "export", rec.id, "--upto", "2", "-o", upto2], { cwd: a, env: rec.env })).exitCode,
    ).toBe(0);
    const forced = await runNudge(["session", "import", upto2, "--force"], { cwd: b, env });
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect(forced.stdout).toContain(`replaces the session ${rec.id} that was here, now kept in `);
    expect(readManifestFile(path.join(b, ".git", "nudge", "sessions", rec.id)).turns).toHaveLength(3);
    const backups = readdirSync(path.join(b, ".git", "nudge", "import-backups"));
    expect(backups).toHaveLength(1);
    const kept = path.join(b, ".git", "nudge", "import-backups", backups[0]!, "session");
    expect(readManifestFile(kept).turns).toHaveLength(4);
    expect(await nudgeRefs(b)).toContain(
      `refs/nudge/import-backups/${backups[0]}/session ${rec.manifest.turns[3]!.snapshot.commit}`,
    );
    // claude's transcript from the first import holds this conversation and more: it stays as it
    // is, and the replacing session resumes from its own last turn (2) in a fork.
    const sid = rec.manifest.turns[1]!.claudeSessionId!;
    expect(statSync(transcriptPath(cfg, b, sid)).size).toBe(transcriptCopy(kept, `claude/${sid}.jsonl`).length);
    expect(forced.stdout).toContain(
      "already there and continued since: kept, the session resumes from its own last turn in a fork",
    );
    const seen = await resume(b, cfg, rec.id);
    for (const said of ["write notes", "edit notes", "Edited notes.txt."]) expect(seen.messages).toContain(said);
    expect(seen.messages).not.toContain("shuffle the files");

    // The session set aside goes with the age, like any backup: kept while young, then removed with its refs.
    const young = await runNudge(["session", "gc", "--dry-run", "--json"], { cwd: b, env });
    expect(JSON.stringify(JSON.parse(young.stdout))).not.toContain("import-backups");
    const aside = path.join(b, ".git", "nudge", "import-backups", backups[0]!);
    const longAgo = new Date(Date.now() - 40 * 86_400_000);
    utimesSync(aside, longAgo, longAgo);
    const gc = await runNudge(["session", "gc", "--yes"], { cwd: b, env });
    expect(gc.exitCode, gc.stderr).toBe(0);
    expect(gc.stdout).toContain("a session an import replaced");
    expect(existsSync(aside)).toBe(false);
    expect((await nudgeRefs(b)).filter((r) => r.includes("import-backups"))).toEqual([]);
    expect(existsSync(path.join(b, ".git", "nudge", "sessions", rec.id, "manifest.json"))).toBe(true); // the session in use stays
  });
});
