/**
 * The bundle's copy of claude's transcript is kept compressed (`claude/<id>.jsonl.gz`, a gzip
 * member per turn: src/store/transcript-copy.ts), with the real claude: it gives back claude's
 * transcript byte for byte, a fork copies it cut at a turn's end, a resume with claude's own file
 * gone restores it, an old bundle's plain copy is still read, and a kill -9 in the middle of an
 * append leaves a copy the next turn repairs and continues.
 */
import { execa } from "execa";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { readMembers } from "../../src/store/transcript-copy.js";
import { transcriptPath } from "../../src/claude/transcript.js";
import { emptyQueuedPrompts } from "../../src/sharing/queued-prompts.js";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { readManifestFile, recordSession, runClaude, type Recorded } from "../support/record.js";
import { NUDGE_CLI, runNudge } from "../support/run-nudge.js";
import { transcriptCopy } from "../support/transcript-copy.js";
import { unpack } from "../sharing/share-support.js";

let recorded: Recorded | undefined;
let api: ScriptedApi | undefined;
afterEach(async () => {
  await recorded?.api.close();
  await api?.close();
  recorded = undefined;
  api = undefined;
});

const steps = (repo: string) => [
  { tool: "Write", input: { file_path: path.join(repo, "one.txt"), content: "1\n" } },
  { text: "TURN-ONE-REPLY" },
  { tool: "Read", input: { file_path: path.join(repo, "one.txt") } },
  { text: "TURN-TWO-REPLY" },
  { tool: "Write", input: { file_path: path.join(repo, "three.txt"), content: "3\n" } },
  { text: "TURN-THREE-REPLY" },
];
const PROMPTS = ["TURN-ONE-PROMPT", "TURN-TWO-PROMPT", "TURN-THREE-PROMPT"];

/** claude's own transcript of the session's claude session, in the recording's config dir. */
function claudesFile(r: Recorded, repo: string): string {
  return transcriptPath(r.env.CLAUDE_CONFIG_DIR!, repo, r.manifest.turns[1]!.claudeSessionId!);
}

describe("the compressed transcript copy", () => {
  it("holds claude's transcript byte for byte, a member a turn; a fork copies it cut at its turn; a resume without claude's file restores it", async () => {
    const repo = await gitdir();
    recorded = await recordSession(repo, steps(repo), PROMPTS);
    const { id, dir, manifest } = recorded;
    const name = manifest.turns[1]!.transcript!;
    expect(manifest.turns.slice(1).every((t) => t.transcript === name)).toBe(true);

    // Any gzip reader gets claude's bytes back; each turn appended one member (nothing written twice).
    const copy = transcriptCopy(dir, name);
    const claudes = readFileSync(claudesFile(recorded, repo));
    expect(copy.length).toBeGreaterThanOrEqual(manifest.turns[3]!.transcriptBytes!);
    expect(claudes.subarray(0, copy.length).equals(copy)).toBe(true);
    const { members } = await readMembers(path.join(dir, `${name}.gz`));
    // (A turn's save may run behind the next turn, whose bytes its copy then takes in too: two
    // turns can end at the same length, and the later one adds no member.)
    expect(members.map((m) => m.start + m.bytes)).toEqual([
      ...new Set(manifest.turns.slice(1).map((t) => t.transcriptBytes)),
    ]);
    expect(statSync(path.join(dir, `${name}.gz`)).size).toBeLessThan(copy.length / 2);

    // A fork at turn 2: its copy is the first turn-2 bytes, its members those of the original.
    const forked = await runNudge(["session", "fork", id, "2", "--json", "--yes"], { cwd: repo });
    expect(forked.exitCode, forked.stderr).toBe(0);
    const forkDir = path.join(repo, ".git", "nudge", "sessions", JSON.parse(forked.stdout).id);
    const cut = manifest.turns[2]!.transcriptBytes!;
    expect(transcriptCopy(forkDir, name).equals(copy.subarray(0, cut))).toBe(true);
    const forkGz = readFileSync(path.join(forkDir, `${name}.gz`));
    expect(
      readFileSync(path.join(dir, `${name}.gz`))
        .subarray(0, forkGz.length)
        .equals(forkGz),
    ).toBe(true);

    // claude's own file gone (another machine, a cleared config): rewind to turn 1, and the resume
    // restores claude's transcript from the bundle's copy, byte for byte, and goes on from turn 1.
    rmSync(path.join(recorded.env.CLAUDE_CONFIG_DIR!, "projects"), { recursive: true });
    expect((await runNudge(["session", "rewind", id, "1", "--yes"], { cwd: repo })).exitCode).toBe(0);
    recorded.api.push({ text: "continuing from turn one" });
    const before = recorded.api.mainLoopRequests().length;
    const resumed = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN, "-r", id, "TURN-FOUR-PROMPT"], {
      cwd: repo,
      env: recorded.env,
    });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const sent = JSON.stringify(recorded.api.mainLoopRequests()[before]!.body.messages);
    expect(sent).toContain("TURN-ONE-REPLY");
    expect(sent).toContain("TURN-FOUR-PROMPT");
    expect(sent).not.toContain("TURN-TWO");
    // (the resume goes on in an automatic fork at turn 1: the fork's copy, cut there, is what claude got)
    const placed = readFileSync(claudesFile(recorded, repo));
    expect(
      placed
        .subarray(0, manifest.turns[1]!.transcriptBytes!)
        .equals(copy.subarray(0, manifest.turns[1]!.transcriptBytes!)),
    ).toBe(true);
  }, 120_000);

  it("an old bundle's plain copy is still read: exported as it is, forked compressed, and replaced by a compressed one at the next turn", async () => {
    const repo = await gitdir();
    recorded = await recordSession(repo, steps(repo).slice(0, 4), PROMPTS.slice(0, 2));
    const { id, dir, manifest } = recorded;
    const name = manifest.turns[1]!.transcript!;
    // What a bundle recorded before the copy was compressed holds.
    const plain = transcriptCopy(dir, name);
    writeFileSync(path.join(dir, name), plain);
    rmSync(path.join(dir, `${name}.gz`));

    const exported = await runNudge(["session", "export", id, "--no-redact"], { cwd: repo, env: recorded.env });
    expect(exported.exitCode, exported.stderr).toBe(0);
    const inExport = (await unpack(path.join(repo, `nudge-${id}.tar.gz`))).get(`session/${name}`)!;
    // (claude's queued-prompt lines emptied, as in every export: queued-prompts.ts)
    const unqueued = path.join(tempDir(), "unqueued.jsonl");
    await emptyQueuedPrompts(path.join(dir, name), unqueued);
    expect(inExport.equals(readFileSync(unqueued).subarray(0, manifest.turns[2]!.transcriptBytes!))).toBe(true);

    const forked = await runNudge(["session", "fork", id, "1", "--json", "--yes"], { cwd: repo });
    expect(forked.exitCode, forked.stderr).toBe(0);
    const forkDir = path.join(repo, ".git", "nudge", "sessions", JSON.parse(forked.stdout).id);
    expect(transcriptCopy(forkDir, name).equals(plain.subarray(0, manifest.turns[1]!.transcriptBytes!))).toBe(true);

    recorded.api.push({ text: "TURN-THREE-REPLY" });
    const next = await runClaude(repo, ["-r", id, "TURN-THREE-PROMPT"], recorded.env);
    expect(next.exitCode, next.stderr).toBe(0);
    const after = transcriptCopy(dir, name); // the plain copy is gone, the compressed one holds it all
    expect(after.subarray(0, plain.length).equals(plain)).toBe(true);
    expect(after.length).toBeGreaterThanOrEqual(readManifestFile(dir).turns.at(-1)!.transcriptBytes!);
    expect(readFileSync(claudesFile(recorded, repo)).subarray(0, after.length).equals(after)).toBe(true);
  }, 120_000);

  it("kill -9 in the middle of appending a turn's member: the copy reads up to the turn before, and the next run cuts the torn member off, saves the turn and goes on", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([...steps(repo), { text: "TURN-FOUR-REPLY" }]);
    const env = claudeEnv(api, path.join(tempDir(), "claude"));
    // The first sync writes the copy whole; the next appends its member, and nudge is killed
    // halfway through writing it. (Three prompts: the first append comes by turn 3 at the latest.)
    const first = await execa(
      "node",
      [NUDGE_CLI, "claude", "run", "--claude-bin", CLAUDE_BIN, "--permission-mode", "acceptEdits"],
      {
        cwd: repo,
        env: { NO_COLOR: "1", ...env, NUDGE_FAULT: "transcript-append-torn:kill" },
        input: "TURN-ONE-PROMPT\nTURN-TWO-PROMPT\nTURN-THREE-PROMPT\n",
        reject: false,
        detached: true,
        timeout: 60_000,
      },
    );
    expect(first.signal, `${first.exitCode} ${first.stderr}`).toBe("SIGKILL");
    const sessions = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout) as Array<{
      id: string;
      path: string;
    }>;
    const session = sessions[0]!;
    const m = readManifestFile(session.path);
    const last = m.turns.at(-1)!; // the last turn saved: the torn member is the one after it
    const name = last.transcript!;
    const gz = path.join(session.path, `${name}.gz`);
    const torn = await readMembers(gz);
    expect(torn.size).toBeGreaterThan(torn.end); // half a member written after the whole ones
    expect(() => gunzipSync(readFileSync(gz))).toThrow(); // as gzip reads it: cut short
    expect(torn.bytes).toBe(last.transcriptBytes);

    // The next run saves the turn the kill cut off (no prompt: nothing else syncs): the torn member
    // is cut off and that turn's bytes appended as a member of their own.
    const recovered = await runClaude(repo, ["-c"], env);
    expect(recovered.exitCode, recovered.stderr).toBe(0);
    const turns = readManifestFile(session.path).turns;
    const saved = turns.find((t) => t.n === last.n + 1)!; // (the turn after it may have begun too, and be saved as well)
    expect(saved.status).toBe("complete");
    // (A turn begun but cut off before claude wrote anything has no transcript length of its own.)
    expect(transcriptCopy(session.path, name).length).toBe(
      turns.filter((t) => t.transcriptBytes !== null).at(-1)!.transcriptBytes,
    );
    const ends = (await readMembers(gz)).members.map((x) => x.start + x.bytes);
    expect(ends.slice(ends.indexOf(last.transcriptBytes!), ends.indexOf(last.transcriptBytes!) + 2)).toEqual([
      last.transcriptBytes,
      saved.transcriptBytes,
    ]);

    const again = await runClaude(repo, ["-c", "TURN-FOUR-PROMPT"], env);
    expect(again.exitCode, again.stderr).toBe(0);
    const after = readManifestFile(session.path);
    expect(after.turns.at(-1)!.prompt).toBe("TURN-FOUR-PROMPT");
    const copy = transcriptCopy(session.path, name); // whole again: every member complete
    expect(copy.length).toBeGreaterThanOrEqual(after.turns.at(-1)!.transcriptBytes!);
    expect(
      readFileSync(transcriptPath(env.CLAUDE_CONFIG_DIR!, repo, after.turns.at(-1)!.claudeSessionId!))
        .subarray(0, copy.length)
        .equals(copy),
    ).toBe(true);
    expect(existsSync(path.join(session.path, name))).toBe(false);
  }, 120_000);
});
