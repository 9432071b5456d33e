/**
 * Issue 22, leak 3's leftover: claude logs every prompt it is handed as a `queue-operation` line
 * with the prompt's text, and a prompt piped or typed ahead can be logged before the turn it
 * follows has ended, inside an `--upto` cut. Every export, whole or cut, empties those lines'
 * text the same way, so a cut stays a byte prefix of the whole export (the re-import identity),
 * and the importing claude still resumes (it ignores the lines when it loads a transcript).
 *
 * The race is real: two prompts piped to `nudge claude run` while the scripted API holds turn
 * 1's reply, so the second waits in nudge's queue and is handed to claude as turn 1 ends.
 *
 * On a loaded machine turn 1 is saved after claude has already logged all of turn 2, so the
 * length recorded for turn 1 holds turn 2's prompt and reply (a CI failure). That timing cannot
 * be forced from outside, so the last test writes it into a copy of the journal: turn 1's
 * recorded length set to turn 2's, as such a late save records it.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { tempDir } from "../support/gitdir.js";
import { readManifestFile, recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi } from "../support/scripted-api.js";
import { exportBytes, holding, importTarget, origin } from "./share-support.js";
import { transcriptCopy } from "../support/transcript-copy.js";

const SECOND = "second prompt, typed ahead, for turn two only";

/** Every queue-operation line of the export's claude transcripts. */
function queueLines(bytes: Map<string, string>): Array<{ operation: string; content?: string }> {
  return [...bytes]
    .filter(([name]) => name.startsWith("session/claude/") && name.endsWith(".jsonl"))
    .flatMap(([, text]) =>
      text
        .split("\n")
        .filter((l) => l.includes('"queue-operation"'))
        .map((l) => JSON.parse(Buffer.from(l, "latin1").toString("utf8"))),
    );
}

async function resume(clone: string, cfg: string, id: string): Promise<string> {
  const api = await startScriptedApi([{ text: "Resumed." }]);
  try {
    const run = await runNudge(
      ["claude", "run", "--claude-bin", CLAUDE_BIN, "-r", id, "--permission-mode", "acceptEdits"],
      { cwd: clone, env: claudeEnv(api, cfg), input: "and now?\n" },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    return JSON.stringify(api.requests.map((r) => r.body));
  } finally {
    await api.close();
  }
}

describe("prompts queued ahead in an --upto export", () => {
  let rec: Recorded;
  let a: string;
  let clone: (name: string) => Promise<string>;
  let whole: string;
  let cut: string;
  beforeAll(async () => {
    ({ clone } = await origin({ "README.md": "# app\n" }));
    a = await clone("ana");
    // Turn 1's reply is held, so the second prompt is read ahead and queued while turn 1 runs.
    rec = await recordSession(
      a,
      [{ delayMs: 1500, then: { text: "Reply one." } }, { text: "Reply two." }],
      ["first prompt", SECOND],
    );
    whole = path.join(tempDir(), "whole.tar.gz");
    cut = path.join(tempDir(), "cut.tar.gz");
    for (const [out, args] of [
      [whole, []],
      [cut, ["--upto", "1"]],
    ] as const) {
      const run = await runNudge(["session", "export", rec.id, ...args, "-o", out], { cwd: a, env: rec.env });
      expect(run.exitCode, run.stderr).toBe(0);
    }
  }, 90_000);
  afterAll(() => rec?.api.close());

  it("no export holds a queued prompt's text; the cut holds no byte of the second prompt anywhere", async () => {
    const recorded = transcriptCopy(rec.dir, rec.manifest.turns[2]!.transcript!).toString("utf8");
    expect(recorded).toContain(`"content":${JSON.stringify(SECOND)}`); // claude did queue it, with its text
    for (const archive of [whole, cut]) {
      const lines = queueLines(await exportBytes(archive, a));
      expect(lines.some((l) => l.operation === "enqueue")).toBe(true);
      expect(lines.filter((l) => l.content !== undefined && l.content !== "")).toEqual([]);
    }
    expect(holding(await exportBytes(cut, a), SECOND)).toEqual([]);
  });

  it("the cut imports and resumes without the second prompt; the whole export then extends it, as the same conversation", async () => {
    const bob = await importTarget(clone);
    const imported = await runNudge(["session", "import", cut], { cwd: bob.b, env: bob.env });
    expect(imported.exitCode, imported.stderr).toBe(0);
    const sent = await resume(bob.b, bob.cfg, rec.id);
    expect(sent).toContain("first prompt");
    expect(sent).toContain("Reply one.");
    expect(sent).not.toContain(SECOND);

    const carol = await importTarget(async () => clone("carol"));
    expect((await runNudge(["session", "import", cut], { cwd: carol.b, env: carol.env })).exitCode).toBe(0);
    const again = await runNudge(["session", "import", whole, "--json"], { cwd: carol.b, env: carol.env });
    expect(again.exitCode, again.stderr).toBe(0);
    const result = JSON.parse(again.stdout) as { id: string; claudeFiles: Array<{ state: string }> };
    expect(result.claudeFiles.map((f) => f.state)).toContain("extends");
    const resumed = await resume(carol.b, carol.cfg, result.id);
    for (const said of ["first prompt", "Reply one.", SECOND, "Reply two."]) expect(resumed).toContain(said);
  }, 120_000);

  it("a turn saved after claude logged the next one still cuts at its own end", async () => {
    const journal = path.join(rec.dir, "turns.jsonl");
    const kept = readFileSync(journal, "utf8");
    const [one, two] = [rec.manifest.turns[1]!, rec.manifest.turns[2]!];
    expect(two.transcript).toBe(one.transcript);
    try {
      // (On a loaded machine the late save may have happened on its own: then there is nothing to change.)
      writeFileSync(
        journal,
        kept.replace(`"transcriptBytes":${one.transcriptBytes}`, `"transcriptBytes":${two.transcriptBytes}`),
      );
      expect(readManifestFile(rec.dir).turns[1]!.transcriptBytes).toBe(two.transcriptBytes);
      const lateCut = path.join(tempDir(), "late-cut.tar.gz");
      const run = await runNudge(["session", "export", rec.id, "--upto", "1", "-o", lateCut], { cwd: a, env: rec.env });
      expect(run.exitCode, run.stderr).toBe(0);
      const bytes = await exportBytes(lateCut, a);
      expect(holding(bytes, SECOND)).toEqual([]);
      expect(holding(bytes, "Reply two.")).toEqual([]);
      expect(holding(bytes, "Reply one.").some((name) => name.startsWith("session/claude/"))).toBe(true);
    } finally {
      writeFileSync(journal, kept);
    }
  }, 60_000);
});
