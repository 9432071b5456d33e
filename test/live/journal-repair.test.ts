/**
 * Issue 23.6, the repair the refusal offers: `nudge session repair` rebuilds a deleted, emptied or
 * cut-short turns.jsonl from the snapshot chain, the patches and the logs. The rebuilt records
 * match what the recorder wrote in every field the bundle still tells, the session continues at
 * the next turn (no patch overwritten, the ref moved forward), and a rewind to an old turn works.
 * Real claude, scripted API.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Manifest, Turn } from "../../src/store/manifest-schema.js";
import { git, tempDir } from "../support/gitdir.js";
import { readManifestFile, runClaude, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { recordThreeTurns } from "../support/three-turns.js";
import { unpack } from "../sharing/share-support.js";
import { transcriptCopy } from "../support/transcript-copy.js";

let rec: (Recorded & { repo: string }) | undefined;
afterEach(async () => {
  await rec?.api.close();
  rec = undefined;
});

/** Three turns, then your edit (mine.txt) and a fourth turn: edits snapshots and a resumed claude process too. */
async function fourTurns(): Promise<Recorded & { repo: string; original: Manifest }> {
  const r = await recordThreeTurns();
  rec = r;
  writeFileSync(path.join(r.repo, "mine.txt"), "my edit\n");
  r.api.push({ text: "Noted." });
  const fourth = await runClaude(r.repo, ["-r", r.id], r.env, "fourth prompt\n");
  expect(fourth.exitCode, fourth.stderr).toBe(0);
  return { ...r, original: readManifestFile(r.dir) };
}

/** The fields the bundle still tells: a rebuilt turn must have them exactly as recorded. */
function recoverable(t: Turn) {
  return {
    n: t.n,
    prompt: t.prompt,
    status: t.status,
    snapshot: t.snapshot,
    patch: t.patch,
    edits: t.edits ?? null,
    lines: t.lines,
    bytes: t.bytes,
    input: t.input,
    result: t.result,
    claudeSessionId: t.claudeSessionId,
    lastAssistantUuid: t.lastAssistantUuid,
    head: t.head,
    transcript: t.transcript,
  };
}

/**
 * The transcript copy's length after the last turn is what it is now; an earlier turn's is lost,
 * and the end of that turn's last reply stands in (where an export cut there ends it).
 */
function expectTranscriptLengths(r: { dir: string; original: Manifest }, rebuilt: Manifest): void {
  const last = rebuilt.turns.at(-1)!;
  expect(last.transcriptBytes).toBe(r.original.turns.at(-1)!.transcriptBytes);
  for (const t of rebuilt.turns.slice(1, -1).filter((turn) => turn.repaired)) {
    const copy = transcriptCopy(r.dir, t.transcript!).subarray(0, t.transcriptBytes!).toString("utf8");
    expect(copy.endsWith("\n")).toBe(true);
    expect(copy.trimEnd().split("\n").at(-1)).toContain(`"uuid":"${t.lastAssistantUuid}"`);
    expect(t.transcriptBytes).toBeLessThanOrEqual(r.original.turns[t.n]!.transcriptBytes!);
  }
}

async function continueAndRewind(r: Recorded & { repo: string; original: Manifest }): Promise<void> {
  const ref = `refs/nudge/sessions/${r.id}`;
  const tip = await git(r.repo, "rev-parse", ref);
  const patches = r.original.turns.map((t) => readFileSync(path.join(r.dir, t.patch.file)));
  r.api.push(
    { tool: "Write", input: { file_path: path.join(r.repo, "five.txt"), content: "five\n" } },
    { text: "Wrote five.txt." },
  );
  const fifth = await runClaude(r.repo, ["-r", r.id], r.env, "fifth prompt\n");
  expect(fifth.exitCode, fifth.stderr).toBe(0);
  expect(fifth.stderr).toContain("● turn 5 · success");
  const after = readManifestFile(r.dir);
  expect(after.turns.map((t) => t.n)).toEqual([0, 1, 2, 3, 4, 5]);
  expect(await git(r.repo, "rev-parse", `${ref}^`)).toBe(tip); // forward from the old tip, never back over it
  r.original.turns.forEach((t, i) => expect(readFileSync(path.join(r.dir, t.patch.file))).toEqual(patches[i]));

  const rewound = await runNudge(["session", "rewind", r.id, "1", "--yes"], { cwd: r.repo });
  expect(rewound.exitCode, rewound.stderr).toBe(0);
  expect(readFileSync(path.join(r.repo, "notes.txt"), "utf8")).toBe("alpha\nbeta\ngamma\n");
  expect(await git(r.repo, "ls-files", "--others", "--exclude-standard")).not.toContain("five.txt");
}

describe("nudge session repair", () => {
  it.each([
    ["deleted", (file: string) => rmSync(file), "is missing"],
    ["emptied", (file: string) => writeFileSync(file, ""), "is empty"],
  ])(
    "%s: the refusal names it; it rebuilds every turn from the snapshots and logs, then the session goes on",
    async (_name, damage, state) => {
      const r = await fourTurns();
      const journal = path.join(r.dir, "turns.jsonl");
      damage(journal);
      const lostPatch = readFileSync(path.join(r.dir, "changes", "turn-002.patch"));
      rmSync(path.join(r.dir, "changes", "turn-002.patch"));

      const refused = await runClaude(r.repo, ["-r", r.id], r.env, "never sent\n");
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toContain(`turn journal ${journal} ${state}, but its manifest counts 4 turns`);
      expect(refused.stderr).toContain(
        `hint: nothing was changed; rebuild it from the session's snapshots and logs: nudge session repair ${r.id}`,
      );

      const dry = await runNudge(["session", "repair", r.id, "--dry-run"], { cwd: r.repo });
      expect(dry.exitCode, dry.stderr).toBe(0);
      expect(dry.stdout).toContain(`repair session ${r.id}: its turn journal ${state}, its manifest counts 4 turns`);
      expect(dry.stdout).toContain("turn 2  edit notes · complete · 1 file +1 -1\n");
      expect(dry.stdout).toContain(
        "turn 4  fourth prompt · complete · no changes (your edits before it: 1 file +1 -0)",
      );
      expect(dry.stdout).toContain("write    changes/turn-002.patch (it is missing; made again from the snapshots)");
      expect(dry.stdout).toContain("dry run: nothing was changed");
      const unconfirmed = await runNudge(["session", "repair", r.id], { cwd: r.repo });
      expect(unconfirmed.exitCode).toBe(1);
      expect(unconfirmed.stderr).toContain("hint: pass --yes");
      expect(readFileSync(journal, { flag: "a+" }).length).toBe(0); // neither wrote it

      const repaired = await runNudge(["session", "repair", r.id, "--yes"], { cwd: r.repo });
      expect(repaired.exitCode, repaired.stderr).toBe(0);
      expect(repaired.stdout).toContain(`repaired session ${r.id}: turns.jsonl holds turns 0 to 4`);
      const rebuilt = readManifestFile(r.dir); // strictly, against the journal's schema
      expect(rebuilt.turns.map(recoverable)).toEqual(r.original.turns.map(recoverable));
      expect(rebuilt.turns.map((t) => t.repaired?.unknown)).toEqual([[], [], [], [], []]);
      expectTranscriptLengths(r, rebuilt);
      expect(rebuilt.summary).toEqual(r.original.summary);
      expect(readFileSync(path.join(r.dir, "changes", "turn-002.patch"))).toEqual(lostPatch);

      const shown = await runNudge(["session", "show", r.id], { cwd: r.repo });
      expect(shown.exitCode, shown.stderr).toBe(0);
      expect(shown.stdout).toMatch(/\nrepaired \S+: turns 0 to 4 were rebuilt from the snapshots and logs\n/);
      expect(shown.stdout).toMatch(/\n2 +edit notes +1 file \+1 -1 .* success \(repaired\)\n/);
      const listed = await runNudge(["session", "list"], { cwd: r.repo });
      expect(listed.stdout).toContain("complete, repaired");

      // An export cut at a rebuilt turn ends claude's transcript there: no later turn travels with it.
      const archive = path.join(tempDir("nudge-archive-"), "upto.tar.gz");
      const exported = await runNudge(["session", "export", r.id, "--upto", "2", "-o", archive], {
        cwd: r.repo,
        env: r.env,
      });
      expect(exported.exitCode, exported.stderr).toBe(0);
      const transcript = [...(await unpack(archive))]
        .find(([name]) => /^session\/claude\/[^/]+\.jsonl$/.test(name))![1]
        .toString("utf8");
      expect(transcript).toContain("edit notes");
      expect(transcript).not.toContain("shuffle the files");

      await continueAndRewind(r);
    },
    120_000,
  );

  it.each([
    [
      "cut short",
      false,
      "holds 1 turn, but its manifest counts 4 turns",
      "its turn journal holds 1 turn, its manifest counts 4 turns",
    ],
    // An old copy of both put back: the header agrees with the journal, only the ref knows turns 2 to 4.
    [
      "cut short with its header",
      true,
      "snapshots go on to turn 4, but its turn journal ends at turn 1",
      "its turn journal holds 1 turn, its snapshots go on to turn 4",
    ],
  ])(
    "a journal %s keeps its lines and gets the missing turns appended; until then nothing records over them",
    async (_name, withHeader, refusal, planned) => {
      const r = await fourTurns();
      const journal = path.join(r.dir, "turns.jsonl");
      const text = readFileSync(journal, "utf8");
      // Cut after turn 1's record: turns 2 to 4 are on the ref only.
      const cut = text.slice(0, text.indexOf('"type":"turn"}\n', text.indexOf('{"n":1,')) + '"type":"turn"}\n'.length);
      writeFileSync(journal, cut);
      if (withHeader) {
        const manifest = path.join(r.dir, "manifest.json");
        const header = JSON.parse(readFileSync(manifest, "utf8")) as Manifest;
        writeFileSync(
          manifest,
          JSON.stringify({ ...header, summary: { ...header.summary, turns: 1, lastPrompt: "write notes" } }),
        );
      }
      const tip = await git(r.repo, "rev-parse", `refs/nudge/sessions/${r.id}`);
      const patch = readFileSync(path.join(r.dir, "changes", "turn-002.patch"));

      const refused = await runClaude(r.repo, ["-r", r.id], r.env, "never sent\n");
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toContain(refusal);
      expect(refused.stderr).toContain(
        `hint: nothing was changed; rebuild it from the session's snapshots and logs: nudge session repair ${r.id}`,
      );
      expect(await git(r.repo, "rev-parse", `refs/nudge/sessions/${r.id}`)).toBe(tip);
      expect(readFileSync(path.join(r.dir, "changes", "turn-002.patch"))).toEqual(patch);
      expect(readFileSync(journal, "utf8")).toBe(cut);

      const repaired = await runNudge(["session", "repair", r.id, "--yes"], { cwd: r.repo });
      expect(repaired.exitCode, repaired.stderr).toBe(0);
      expect(repaired.stdout).toContain(`repair session ${r.id}: ${planned}`);
      expect(repaired.stdout).toContain("keep     turns 0 to 1, as turns.jsonl holds them");
      expect(readFileSync(journal, "utf8").startsWith(cut)).toBe(true);
      const rebuilt = readManifestFile(r.dir);
      expect(rebuilt.turns.map(recoverable)).toEqual(r.original.turns.map(recoverable));
      expect(rebuilt.turns.map((t) => t.repaired !== undefined)).toEqual([false, false, true, true, true]);
      expectTranscriptLengths(r, rebuilt);
      expect(rebuilt.summary).toEqual(r.original.summary);

      const again = await runNudge(["session", "repair", r.id, "--yes"], { cwd: r.repo });
      expect(again.exitCode).toBe(1);
      expect(again.stderr).toContain(
        `session ${r.id}'s turn journal is whole (turns 0 to 4, as its snapshots); nothing to repair`,
      );

      await continueAndRewind(r);
    },
    120_000,
  );
});
