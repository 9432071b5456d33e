/**
 * Re-imports as a team makes them: two clones (Ana's, Bob's), two claude config dirs, one session
 * continued on both sides and exported again, a fork's export before its parent's. Real claude,
 * scripted API, built CLI.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { transcriptPath } from "../../src/claude/transcript.js";
import { claudeEnv } from "../support/claude-env.js";
import { tempDir } from "../support/gitdir.js";
import { readManifestFile, recordSession, runClaude, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi } from "../support/scripted-api.js";
import { configDir, origin } from "./share-support.js";

let recorded: Recorded | undefined;
afterEach(async () => {
  await recorded?.api.close();
  recorded = undefined;
});

async function exportTo(repo: string, id: string, env: Record<string, string>, name: string): Promise<string> {
  const out = path.join(tempDir("nudge-reimport-"), name);
  const run = await runNudge(["session", "export", id, "-o", out], { cwd: repo, env });
  expect(run.exitCode, run.stderr).toBe(0);
  return out;
}

/** One turn in `repo` with its own scripted reply; returns what claude sent the API. */
async function continueIn(repo: string, cfg: string, args: string[], reply: string): Promise<string> {
  const api = await startScriptedApi([{ text: reply }]);
  try {
    const run = await runClaude(repo, [...args, "one more question"], claudeEnv(api, cfg));
    expect(run.exitCode, run.stderr).toBe(0);
    return JSON.stringify(api.mainLoopRequests().at(-1)!.body.messages);
  } finally {
    await api.close();
  }
}

describe("re-imports", () => {
  it("diverged versions of one session are both kept: the incoming one under a fresh id, nothing set aside", async () => {
    const { clone } = await origin({ "README.md": "# app\n" });
    const a = await clone("ana");
    recorded = await recordSession(
      a,
      [{ tool: "Write", input: { file_path: path.join(a, "notes.txt"), content: "one\n" } }, { text: "Wrote notes." }],
      ["write notes"],
    );
    const id = recorded.id;
    const first = await exportTo(a, id, recorded.env, "first.tar.gz");

    const b = await clone("bob");
    const cfg = configDir();
    expect((await runNudge(["session", "import", first], { cwd: b, env: { CLAUDE_CONFIG_DIR: cfg } })).exitCode).toBe(
      0,
    );
    await continueIn(b, cfg, ["-r", id], "Bob's own reply.");
    const sid = recorded.manifest.turns[1]!.claudeSessionId!;
    const bobs = readFileSync(transcriptPath(cfg, b, sid));

    recorded.api.push({ text: "Ana's own reply." });
    expect((await runClaude(a, ["-r", id, "and Ana's question"], recorded.env)).exitCode).toBe(0);
    const second = await exportTo(a, id, recorded.env, "second.tar.gz");

    // Before: refused, "claude already has another version of <sid>.jsonl"; --force set Bob's turn aside.
    const run = await runNudge(["session", "import", second, "--json"], { cwd: b, env: { CLAUDE_CONFIG_DIR: cfg } });
    expect(run.exitCode, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ status: "imported", idChange: "fresh", setAside: null, turns: 2 });
    expect(result.claudeFiles.map((f: { state: string }) => f.state)).toEqual(["beside"]);
    expect(existsSync(path.join(b, ".git", "nudge", "import-backups"))).toBe(false);
    // Bob's version is as it was: his session, his claude transcript.
    expect(readManifestFile(path.join(b, ".git", "nudge", "sessions", id)).turns).toHaveLength(3);
    expect(readFileSync(transcriptPath(cfg, b, sid)).equals(bobs)).toBe(true);
    // Ana's version resumes as hers, under its own claude id.
    const incoming = readManifestFile(path.join(b, ".git", "nudge", "sessions", result.id));
    expect(incoming.turns.at(-1)!.claudeSessionId).not.toBe(sid);
    const seen = await continueIn(b, cfg, ["-r", result.id], "fine");
    expect(seen).toContain("Ana's own reply.");
    expect(seen).not.toContain("Bob's own reply.");
    // And Bob's still resumes as his.
    const his = await continueIn(b, cfg, ["-r", id], "fine");
    expect(his).toContain("Bob's own reply.");
    expect(his).not.toContain("Ana's own reply.");
  }, 180_000);

  it("a fork's export, then its parent's: claude's copy is an earlier part of the same conversation, not another version", async () => {
    const { clone } = await origin({ "README.md": "# app\n" });
    const a = await clone("ana");
    // One prompt at a time, so each turn's transcript length is where that turn ended.
    recorded = await recordSession(a, [{ text: "First answer." }], ["first question"]);
    const parent = recorded.id;
    recorded.api.push({ text: "Second answer." });
    expect((await runClaude(a, ["-r", parent, "second question"], recorded.env)).exitCode).toBe(0);
    const fork = await runNudge(["session", "fork", parent, "1", "--yes"], { cwd: a, env: recorded.env });
    expect(fork.exitCode, fork.stderr).toBe(0);
    const child = /→ (\w+)/.exec(fork.stdout)![1]!;
    recorded.api.push({ text: "Fork answer." });
    expect((await runClaude(a, ["-r", child, "fork question"], recorded.env)).exitCode).toBe(0);
    const forkExport = await exportTo(a, child, recorded.env, "fork.tar.gz");
    const parentExport = await exportTo(a, parent, recorded.env, "parent.tar.gz");

    const b = await clone("bob");
    const cfg = configDir();
    expect(
      (await runNudge(["session", "import", forkExport], { cwd: b, env: { CLAUDE_CONFIG_DIR: cfg } })).exitCode,
    ).toBe(0);
    // Before: refused as "another version" though claude's file was a byte prefix of the incoming one.
    const run = await runNudge(["session", "import", parentExport, "--json"], {
      cwd: b,
      env: { CLAUDE_CONFIG_DIR: cfg },
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ status: "imported", id: parent, idChange: null, setAside: null });
    expect(result.claudeFiles.map((f: { state: string }) => f.state)).toContain("extends");
    // The imported fork keeps its FORK OF (before: lost on import).
    const listed = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: b })).stdout);
    expect(listed.find((s: { origin: { sourceId: string } | null }) => s.origin?.sourceId === child).parent).toEqual({
      id: parent,
      turn: 1,
    });
    const seen = await continueIn(b, cfg, ["-r", parent], "fine");
    expect(seen).toContain("Second answer.");
    expect(seen).not.toContain("Fork answer.");
    // The fork imported first still resumes its own way.
    const forkSeen = await continueIn(
      b,
      cfg,
      [
        "-r",
        JSON.parse((await runNudge(["session", "list", "--json"], { cwd: b })).stdout).find(
          (s: { origin: { sourceId: string } | null }) => s.origin?.sourceId === child,
        ).id,
      ],
      "fine",
    );
    expect(forkSeen).toContain("Fork answer.");
    expect(forkSeen).not.toContain("Second answer.");
  }, 180_000);

  it("after an import, the hint's order works: its code is put in place, and going on from the last turn does not fork", async () => {
    const { clone } = await origin({ "README.md": "# app\n" });
    const a = await clone("ana");
    recorded = await recordSession(
      a,
      [{ tool: "Write", input: { file_path: path.join(a, "notes.txt"), content: "one\n" } }, { text: "Wrote notes." }],
      ["write notes"],
    );
    const archive = await exportTo(a, recorded.id, recorded.env, "s.tar.gz");
    const b = await clone("bob");
    const cfg = configDir();
    const imported = await runNudge(["session", "import", archive], { cwd: b, env: { CLAUDE_CONFIG_DIR: cfg } });
    expect(imported.exitCode, imported.stderr).toBe(0);
    // Follow the hint's commands in the order it gives them. Before: "continue it" came first, and
    // that run recorded Bob's base tree as his edits, deleting notes.txt; a rewind after it forked.
    const hint = imported.stdout.trim().split("\n").at(-1)!;
    const commands = [...hint.matchAll(/nudge (?:session rewind|claude run) [^·]+/g)].map((m) =>
      m[0].trim().split(" ").slice(1),
    );
    expect(commands).toHaveLength(2);
    for (const args of commands) {
      if (args[0] === "session")
        expect((await runNudge([...args, "--yes"], { cwd: b, env: { CLAUDE_CONFIG_DIR: cfg } })).exitCode).toBe(0);
      else await continueIn(b, cfg, args.slice(2), "Going on.");
    }
    const list = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: b })).stdout);
    expect(list.map((s: { id: string }) => s.id)).toEqual([recorded.id]); // no fork
    const show = JSON.parse((await runNudge(["session", "show", recorded.id, "--json"], { cwd: b })).stdout);
    expect(show.turns).toHaveLength(3);
    expect(show.turns[2].edits ?? null).toBeNull();
    expect(readFileSync(path.join(b, "notes.txt"), "utf8")).toBe("one\n");
    // Bob's own fork of it is his, not imported (before: it showed IMPORTED FROM Ana).
    const fork = await runNudge(
      ["session", "fork", recorded.id, "1", "--worktree", path.join(tempDir(), "bob-try"), "--json"],
      { cwd: b },
    );
    expect(fork.exitCode, fork.stderr).toBe(0);
    const forked = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: b })).stdout).find(
      (s: { id: string }) => s.id === JSON.parse(fork.stdout).id,
    );
    expect(forked).toMatchObject({ parent: { id: recorded.id, turn: 1 }, origin: null });
  }, 180_000);

  it("a rewind plan in the importing clone is worded for it: HEAD behind is not 'commits were made since', files never here are not 'you deleted it'", async () => {
    const { clone } = await origin({ "README.md": "# app\n" });
    const a = await clone("ana");
    recorded = await recordSession(
      a,
      [
        { tool: "Write", input: { file_path: path.join(a, "notes.txt"), content: "one\n" } },
        {
          tool: "Bash",
          input: { command: "git add notes.txt && git commit -q -m 'notes, by claude'", description: "commit" },
        },
        { text: "Committed." },
      ],
      ["write notes and commit them"],
    );
    const archive = await exportTo(a, recorded.id, recorded.env, "s.tar.gz");
    const b = await clone("bob");
    expect(
      (await runNudge(["session", "import", archive], { cwd: b, env: { CLAUDE_CONFIG_DIR: configDir() } })).exitCode,
    ).toBe(0);
    const plan = await runNudge(["session", "rewind", recorded.id, "1", "--dry-run"], { cwd: b });
    expect(plan.exitCode, plan.stderr).toBe(0);
    // Before: "HEAD: commits were made since turn 1 … pass --reset-head to move it back" (then refused), and "restore notes.txt (you deleted it)".
    expect(plan.stdout).toMatch(
      /^ {2}HEAD: \w+ here is behind \w+ at turn 1 \(this clone lacks the commits made up to then\); HEAD stays$/m,
    );
    expect(plan.stdout).not.toContain("--reset-head");
    // The clone is at the state the session started from: notes.txt is written, not "your edits" restored.
    expect(plan.stdout).toMatch(/^ {2}write {3}notes\.txt$/m);
    expect(plan.stdout).not.toContain("your edits");
    expect(plan.stdout).not.toContain("you deleted it");
  }, 180_000);
});
