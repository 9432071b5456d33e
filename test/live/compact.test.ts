/**
 * `/compact` inside a live run, with the real claude binary: nudge forks the session at its last
 * turn and compacts in the fork, so the original keeps its whole conversation (and claude's
 * transcript of it, byte for byte) while the run goes on from the summary.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { inTerminal } from "../support/pty.js";
import { readManifestFile } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { transcriptCopy } from "../support/transcript-copy.js";
import { readStreamOf } from "../support/stream.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** Every file under `dir` (relative path → bytes), to compare a folder before and after. */
function contents(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (sub: string) => {
    for (const name of readdirSync(path.join(dir, sub))) {
      const rel = path.join(sub, name);
      if (statSync(path.join(dir, rel)).isDirectory()) walk(rel);
      // The stream is compared whole: closing the session finishes its last piece (conversation-pieces.ts).
      else if (rel !== "conversation.jsonl" && !rel.startsWith("conversation.d"))
        out[rel] = readFileSync(path.join(dir, rel), "latin1");
    }
  };
  walk("");
  out["(the stream)"] = readStreamOf(dir).toString("latin1");
  return out;
}

/** claude's own transcript of a claude session, wherever in the config dir claude put it. */
function claudeTranscript(configDir: string, claudeSessionId: string): string {
  const projects = path.join(configDir, "projects");
  for (const folder of readdirSync(projects)) {
    const file = path.join(projects, folder, `${claudeSessionId}.jsonl`);
    try {
      return readFileSync(file, "latin1");
    } catch {
      // not in this folder
    }
  }
  throw new Error(`no transcript of ${claudeSessionId} under ${projects}`);
}

describe("/compact in a live run", () => {
  it("forks: the original stays byte for byte, the fork resumes from the summary, list and show say so", async () => {
    const repo = await gitdir();
    // The compaction itself is a main-loop request: its answer is the summary, in the tags claude
    // asks for (without them claude asks again, a second request).
    const summary = "<analysis>one fact</analysis>\n<summary>SUMMARY: the user's number is 42.</summary>";
    api = await startScriptedApi([{ text: "NOTED THE NUMBER" }, { text: summary }, { text: "IT IS 42" }]);
    const configDir = path.join(tempDir(), "cfg");
    const t = inTerminal(repo, ["claude", "run", "--claude-bin", CLAUDE_BIN], claudeEnv(api, configDir));
    await t.waitFor("› ");
    t.type("remember the number 42\r");
    await t.waitFor(/turn 1 · success[^]*turn 1 saved/);

    const [original] = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout);
    const before = readManifestFile(original.path);
    const claudeSession = before.turns[1]!.claudeSessionId!;
    const bundleBefore = contents(original.path);
    const transcriptBefore = claudeTranscript(configDir, claudeSession);

    t.type("/compact focus on the number\r");
    await t.waitFor(/compacted in fork (\w+) \(\d+ → \d+ tokens\); session \w+ keeps the whole conversation/);
    t.type("what was the number?\r");
    await t.waitFor("IT IS 42");
    await t.waitFor(/turn 3 · success[^]*turn 3 saved/);
    t.type("/exit\r");
    expect((await t.child).exitCode, t.text()).toBe(0);

    // Two sessions: the fork names its parent.
    const forkId = /compacted in fork (\w+)/.exec(t.text())![1]!;
    const sessions: Array<{ id: string; path: string; parent: { id: string; turn: number } | null }> = JSON.parse(
      (await runNudge(["session", "list", "--json"], { cwd: repo })).stdout,
    );
    expect(sessions.map((s) => s.id).sort()).toEqual([original.id, forkId].sort());
    expect(sessions.find((s) => s.id === forkId)!.parent).toEqual({ id: original.id, turn: 1 });
    const listed = (await runNudge(["session", "list"], { cwd: repo })).stdout;
    expect(listed.split("\n").find((l) => l.startsWith(forkId))).toContain(original.id);

    // The original: its bundle unchanged but for being closed, claude's transcript byte-identical.
    const bundleAfter = contents(original.path);
    for (const [file, bytes] of Object.entries(bundleBefore)) {
      if (file === "manifest.json" || file === "lock") continue; // the header goes from recording to complete
      expect(bundleAfter[file], file).toBe(bytes);
    }
    expect(Object.keys(bundleAfter).filter((f) => !(f in bundleBefore))).toEqual([]);
    expect(readManifestFile(original.path).turns).toEqual(before.turns);
    // claude's own file gains only the bookkeeping any claude writes as it exits (measured with
    // 2.1.329: one "cost-state" record); not a line of conversation, no compaction.
    const transcriptAfter = claudeTranscript(configDir, claudeSession);
    expect(transcriptAfter.startsWith(transcriptBefore)).toBe(true);
    const appended = transcriptAfter.slice(transcriptBefore.length).split("\n").filter(Boolean);
    expect(appended.map((l) => JSON.parse(l).type)).toEqual(["cost-state"]);
    expect(transcriptCopy(original.path, `claude/${claudeSession}.jsonl`).toString("latin1")).toBe(transcriptBefore);

    // The fork: turn 2 is the compaction, with its token counts; turn 3 was answered from the summary alone.
    const fork = readManifestFile(sessions.find((s) => s.id === forkId)!.path);
    expect(fork.turns.map((x) => x.prompt)).toEqual([
      null,
      "remember the number 42",
      "/compact focus on the number",
      "what was the number?",
    ]);
    const compaction = fork.turns[2]!.compaction!;
    expect(compaction.preTokens).toBeGreaterThan(0);
    expect(compaction.postTokens).toBeGreaterThan(0);
    const requests = api.mainLoopRequests().map((r) => JSON.stringify(r.body.messages));
    expect(requests).toHaveLength(3);
    expect(requests[1]).toContain("focus on the number"); // the compaction was asked with the instructions
    expect(requests[2]).toContain("SUMMARY: the user's number is 42.");
    expect(requests[2]).toContain("what was the number?");
    expect(requests[2]).not.toContain("remember the number 42");
    expect(requests[2]).not.toContain("NOTED THE NUMBER");

    const shown = (await runNudge(["session", "show", forkId], { cwd: repo })).stdout;
    expect(shown).toContain(`fork of ${original.id} at turn 1`);
    const row = shown.split("\n").find((l) => l.startsWith("2 "))!;
    expect(row).toContain(`compacted here (manual, ${compaction.preTokens} → ${compaction.postTokens} tokens)`);
    const replay = (await runNudge(["session", "replay", forkId, "--turn", "2"], { cwd: repo })).stdout;
    expect(replay.split("\n").slice(0, 2)).toEqual([
      `── turn 2 · /compact focus on the number · compacted here (manual, ${compaction.preTokens} → ${compaction.postTokens} tokens) ──`,
      "  ⎿ Compacted",
    ]);
  });

  it("before claude has answered anything: refused, no fork is made, the session goes on", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ text: "HELLO BACK" }]);
    const run = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN], {
      cwd: repo,
      env: claudeEnv(api, path.join(tempDir(), "cfg")),
      input: "/compact\nhello\n",
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain("error: nothing to compact yet: claude has not answered in this session");
    expect(run.stdout).toContain("HELLO BACK");
    const sessions: Array<{ path: string }> = JSON.parse(
      (await runNudge(["session", "list", "--json"], { cwd: repo })).stdout,
    );
    expect(sessions).toHaveLength(1);
    expect(readManifestFile(sessions[0]!.path).turns.map((t) => t.prompt)).toEqual([null, "hello"]);
  });
});
