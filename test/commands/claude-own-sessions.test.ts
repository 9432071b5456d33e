/**
 * claude's own sessions (plain `claude -p`, nudge not involved) as read-only sessions of the
 * repository they ran in: listed apart from recorded ones, shown and replayed through the same
 * view layer, refused plainly where code snapshots would be needed; damaged, huge, linked and
 * hostile transcripts break nothing, and claude's folder is never written.
 */
import { execa } from "execa";
import {
  closeSync,
  mkdirSync,
  rmSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
  ftruncateSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runClaude } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi } from "../support/scripted-api.js";

let repo: string;
let other: string;
let worktree: string;
let config: string;
let env: Record<string, string>;
const ids: Record<string, string> = {};

/** A plain claude run, one prompt, nudge not involved; its claude session id. */
async function plainClaude(cwd: string, prompt: string): Promise<string> {
  const run = await execa(CLAUDE_BIN, ["-p", prompt, "--output-format", "json", "--allowedTools", "Bash"], {
    cwd,
    env: { ...process.env, ...env },
    reject: false,
    input: "",
  });
  expect(run.exitCode, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { session_id: string }).session_id;
}

const nudge = (args: string[], cwd = repo) => runNudge(args, { cwd, env });

/** Every file under claude's folder with its size and modification time: what "never written" is checked against. */
function folderState(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const s = statSync(p, { throwIfNoEntry: false });
        out.push(`${p} ${s?.size} ${s?.mtimeMs}`);
      }
    }
  };
  walk(path.join(dir, "projects"));
  return out.sort();
}

beforeAll(async () => {
  repo = await gitdir();
  other = await gitdir();
  worktree = path.join(tempDir(), "wt");
  await execa("git", ["worktree", "add", "-q", "-b", "side", worktree], { cwd: repo });
  mkdirSync(path.join(repo, "sub"));
  config = path.join(tempDir(), "claude");
  const api = await startScriptedApi([
    { tool: "Bash", input: { command: "echo 工具の出力 tool-output-marker", description: "say" } },
    { text: "done 完了しました" },
    { text: "from the subfolder" },
    { text: "from the worktree" },
    { text: "elsewhere" },
    { text: "recorded answer" },
  ]);
  env = claudeEnv(api, config);
  ids.root = await plainClaude(repo, "first prompt 日本語の質問");
  ids.sub = await plainClaude(path.join(repo, "sub"), "asked in sub");
  ids.worktree = await plainClaude(worktree, "asked in the worktree");
  ids.other = await plainClaude(other, "another project's");
  // A session nudge recorded, with the same claude folder: it is listed once, as nudge's.
  const recorded = await runClaude(repo, [], env, "recorded prompt\n");
  expect(recorded.exitCode, recorded.stderr).toBe(0);
  await api.close();
}, 240_000);

describe("claude's own sessions", () => {
  it("session list shows this repository's (root, subfolder, worktree) apart from recorded ones, with prompt, turns, cost; not another project's, not a recorded one twice", async () => {
    const before = folderState(config);
    const run = await nudge(["session", "list"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("recorded prompt");
    const [recordedPart, claudePart] = run.stdout.split("claude's own sessions of this repository");
    expect(recordedPart).not.toContain(ids.root!.slice(0, 8));
    for (const key of ["root", "sub", "worktree"]) expect(claudePart).toContain(ids[key]!.slice(0, 8));
    // FOLDER as docs/guide/claude-sessions.md says: relative inside this work tree, a worktree's by its full path.
    const folderOf = (key: string) =>
      claudePart!
        .split("\n")
        .find((l) => l.startsWith(ids[key]!.slice(0, 8)))!
        .split(/\s{2,}/);
    expect(folderOf("root")).toContain(".");
    expect(folderOf("worktree")).toContain(worktree);
    expect(claudePart).toContain("first prompt 日本語の質問");
    expect(claudePart).not.toContain(ids.other!.slice(0, 8));
    expect(claudePart).not.toContain("recorded prompt");
    const json = JSON.parse((await nudge(["session", "list", "--json"])).stdout) as Array<{
      id: string;
      source: string;
      turns: number;
      costUsd: number | null;
      firstPrompt: string;
      cwd?: string;
    }>;
    expect(json.filter((r) => r.source === "nudge")).toHaveLength(1);
    const own = json.filter((r) => r.source === "claude");
    expect(own.map((r) => r.id).sort()).toEqual([ids.root, ids.sub, ids.worktree].sort());
    const root = own.find((r) => r.id === ids.root)!;
    expect(root).toMatchObject({ turns: 1, firstPrompt: "first prompt 日本語の質問", cwd: repo });
    expect(root.costUsd).toBeGreaterThan(0);
    // From the worktree, the same repository's sessions.
    const fromWorktree = JSON.parse((await nudge(["session", "list", "--json"], worktree)).stdout) as Array<{
      id: string;
      source: string;
    }>;
    expect(
      fromWorktree
        .filter((r) => r.source === "claude")
        .map((r) => r.id)
        .sort(),
    ).toEqual([ids.root, ids.sub, ids.worktree].sort());
    expect(folderState(config)).toEqual(before);
  });

  it("session show and replay read one by a prefix of its id through the same view layer (tool output, CJK)", async () => {
    const show = await nudge(["session", "show", ids.root!.slice(0, 8)]);
    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toContain(`claude's own session ${ids.root}`);
    expect(show.stdout).toContain("no code snapshots");
    expect(show.stdout).toMatch(/1\s+first prompt 日本語の質問\s+1 tool/);
    const json = JSON.parse((await nudge(["session", "show", ids.root!, "--json"])).stdout) as {
      source: string;
      turns: Array<{ entries: Array<{ kind: string; name?: string; result?: { content: { text: string } } }> }>;
    };
    expect(json.source).toBe("claude");
    const tool = json.turns[0]!.entries.find((e) => e.kind === "tool")!;
    expect(tool.result!.content.text).toContain("工具の出力 tool-output-marker");
    const replay = await nudge(["session", "replay", ids.root!.slice(0, 8), "-v"]);
    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(replay.stdout).toContain("── turn 1 · first prompt 日本語の質問 ──");
    expect(replay.stdout).toContain("工具の出力 tool-output-marker");
    expect(replay.stdout).toContain("done 完了しました");
  });

  it("diff, rewind, fork and export say plainly it has no code snapshots, and how to adopt it", async () => {
    for (const args of [
      ["diff", ids.root!.slice(0, 8)],
      ["rewind", ids.root!.slice(0, 8), "0", "--yes"],
      ["fork", ids.root!.slice(0, 8), "0"],
      ["export", ids.root!.slice(0, 8)],
      ["repair", ids.root!.slice(0, 8), "--dry-run"],
    ]) {
      const run = await nudge(["session", ...args]);
      expect(run.exitCode, args.join(" ")).toBe(1);
      expect(run.stderr).toContain(
        `${ids.root} is claude's own session, not recorded by nudge: it has no code snapshots to`,
      );
      expect(run.stderr).toContain(`nudge session adopt ${ids.root}`);
      expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
    // rm: claude's files are claude's, never removed by nudge.
    const before = folderState(config);
    const rm = await nudge(["session", "rm", ids.root!.slice(0, 8), "--yes"]);
    expect(rm.exitCode).toBe(1);
    expect(rm.stderr).toContain("is claude's own session, not recorded by nudge: nudge never removes claude's files");
    expect(folderState(config)).toEqual(before);
  });

  it("adopt makes one a nudge session: its whole conversation, the work tree now as its code, resumable, exportable and forkable, no longer listed as claude's", async () => {
    // Written an hour ago: claude is done with it, nothing to warn of.
    const subFile = path.join(claudeFolder(path.join(repo, "sub")), `${ids.sub}.jsonl`);
    utimesSync(subFile, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    const before = folderState(config);
    const adopt = await nudge(["session", "adopt", ids.sub!.slice(0, 8)]);
    expect(adopt.exitCode, adopt.stderr).toBe(0);
    expect(adopt.stderr).not.toContain("claude wrote to this session");
    expect(adopt.stdout).toContain(`adopted claude's session ${ids.sub} as nudge session`);
    expect(adopt.stdout).toContain("its code state is the work tree as it is now (turn 0)");
    const id = /as nudge session (\w+)/.exec(adopt.stdout)![1]!;
    expect(folderState(config)).toEqual(before); // claude's folder only read
    const list = JSON.parse((await nudge(["session", "list", "--json"])).stdout) as Array<{
      id: string;
      source: string;
    }>;
    expect(list.filter((r) => r.id === ids.sub)).toEqual([]); // listed once, as nudge's
    expect(list.find((r) => r.id === id)?.source).toBe("nudge");
    const show = await nudge(["session", "show", id]);
    expect(show.stdout).toContain(
      `from claude's own session ${ids.sub}: turns 1 to 1 hold its conversation; their code was never recorded`,
    );
    expect((await nudge(["session", "replay", id])).stdout).toContain("from the subfolder");
    expect((await nudge(["session", "adopt", ids.sub!])).stderr).toContain("is nudge's already");
    // Resumed with nudge claude run -r: claude is sent the adopted conversation.
    const api = await startScriptedApi([{ text: "going on" }]);
    const resumed = await runClaude(repo, ["-r", id, "and now this"], claudeEnv(api, config));
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(JSON.stringify(api.mainLoopRequests()[0]!.body.messages)).toContain("asked in sub");
    await api.close();
    // Export and fork work on it as on any session.
    const out = path.join(tempDir(), "adopted.tar.gz");
    const exported = await nudge(["session", "export", id, "-o", out]);
    expect(exported.exitCode, exported.stderr).toBe(0);
    expect(statSync(out).size).toBeGreaterThan(0);
    const fork = await nudge(["session", "fork", id, "1", "--worktree", path.join(tempDir(), "fork"), "--json"]);
    expect(fork.exitCode, fork.stderr).toBe(0);
  }, 120_000);

  it("session search finds them (CJK, tool output) once the background indexer has them, says what is left meanwhile; --all-projects reaches other projects'", async () => {
    const first = await nudge(["session", "search", "工具の出力"]);
    expect(first.stderr).toMatch(
      /\d+ of claude's own sessions \(.+\) not indexed yet: they are being indexed in the background/,
    );
    type Hit = { session: string; turn: number; where: string; snippet: string; diff: string };
    let hits: Hit[] = [];
    for (const end = Date.now() + 60_000; Date.now() < end; await new Promise((r) => setTimeout(r, 300))) {
      hits = JSON.parse((await nudge(["session", "search", "工具の出力", "--json"])).stdout) as Hit[];
      if (hits.length > 0) break;
    }
    expect(hits.find((h) => h.where === "tool-output")).toMatchObject({
      session: ids.root,
      turn: 1,
      diff: `nudge session replay ${ids.root} --turn 1`,
    });
    const prompt = JSON.parse((await nudge(["session", "search", "質問", "--json"])).stdout) as Hit[];
    expect(prompt.map((h) => [h.session, h.where])).toContainEqual([ids.root, "prompt"]);
    // Another project's session: not in this repository's search, found with --all-projects.
    expect((await nudge(["session", "search", "another", "project's"])).exitCode).toBe(1);
    let all: Hit[] = [];
    for (const end = Date.now() + 60_000; Date.now() < end; await new Promise((r) => setTimeout(r, 300))) {
      all = JSON.parse(
        (await nudge(["session", "search", "another", "project's", "--all-projects", "--json"])).stdout,
      ) as Hit[];
      if (all.length > 0) break;
    }
    expect(all.map((h) => h.session)).toContain(ids.other);
  }, 150_000);

  it("session search --session takes claude's own session by its id or a prefix, as show does", async () => {
    type Hit = { session: string; where: string };
    let hits: Hit[] = [];
    for (const end = Date.now() + 60_000; Date.now() < end; await new Promise((r) => setTimeout(r, 300))) {
      const run = await nudge(["session", "search", "prompt", "--session", ids.root!.slice(0, 8), "--json"]);
      expect(run.stderr).not.toContain("no session matches");
      hits = JSON.parse(run.stdout) as Hit[];
      if (hits.length > 0) break;
    }
    expect(hits.map((h) => [h.session, h.where])).toEqual([[ids.root, "prompt"]]);
    // Another session's words are not this one's.
    const none = await nudge(["session", "search", "subfolder", "--session", ids.root!]);
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toContain("no matches");
  }, 90_000);

  it("session list --all-projects lists every project claude has sessions for, a folder that is gone shown as such", async () => {
    const gone = await gitdir();
    const api = await startScriptedApi([{ text: "soon gone" }]);
    const run = await execa(CLAUDE_BIN, ["-p", "in a folder soon gone"], {
      cwd: gone,
      env: { ...process.env, ...claudeEnv(api, config) },
      reject: false,
      input: "",
    });
    expect(run.exitCode, run.stderr).toBe(0);
    await api.close();
    rmSync(gone, { recursive: true, force: true });
    const list = await nudge(["session", "list", "--all-projects"]);
    expect(list.exitCode, list.stderr).toBe(0);
    const row = (dir: string) => list.stdout.split("\n").find((l) => l.startsWith(dir + " "))!;
    expect(row(repo)).toContain("this repository");
    expect(row(other)).toMatch(/\s1\s/);
    expect(row(gone)).toContain("folder no longer exists");
    const json = JSON.parse((await nudge(["session", "list", "--all-projects", "--json"])).stdout) as Array<{
      cwd: string;
      exists: boolean;
      sessions: number;
      costUsd: number;
    }>;
    expect(json.find((p) => p.cwd === gone)).toMatchObject({ exists: false, sessions: 1 });
    expect(json.find((p) => p.cwd === worktree)).toMatchObject({ exists: true, sessions: 1 });
    // Every project on the machine, asked from a folder that is no repository (its cache in the user's).
    const home = tempDir("nudge-home-");
    const outside = await runNudge(["session", "list", "--all-projects"], {
      cwd: tempDir(),
      env: { ...env, HOME: home, XDG_CACHE_HOME: "" },
    });
    expect(outside.exitCode, outside.stderr).toBe(0);
    expect(outside.stdout.split("\n").find((l) => l.startsWith(repo + " "))).not.toContain("this repository");
    expect(outside.stdout).toContain(other);
    expect(readdirSync(path.join(home, ".cache", "nudge")).some((f) => f.startsWith("claude-sessions-"))).toBe(true);
  }, 60_000);

  it("a damaged, a huge (a 600 MB line), a hostile and a linked transcript break no command, and nothing in claude's folder is written", async () => {
    const folder = path.dirname(
      JSON.parse((await nudge(["session", "list", "--json"])).stdout).find((r: { id: string }) => r.id === ids.root)
        .file,
    );
    const real = readFileSync(path.join(folder, `${ids.root}.jsonl`), "utf8");
    const lines = real.split("\n");
    const damagedId = "0dama9ed-0000-4000-8000-000000000000";
    // Cut lines, garbage, and a prompt carrying terminal escapes.
    const hostile = JSON.stringify({
      type: "user",
      message: { role: "user", content: "paint \u001b[31mred\u001b[0m \u202eevil" },
      cwd: repo,
      sessionId: damagedId,
      timestamp: "2026-01-01T00:00:00Z",
    });
    writeFileSync(
      path.join(folder, `${damagedId}.jsonl`),
      [
        hostile,
        "{not json",
        lines[3]!.slice(0, 40),
        "\u0000\u0001garbage",
        ...lines.slice(2),
        '{"type":"user","message":',
      ].join("\n"),
    );
    // A 600 MB line: sparse, so it costs no disk.
    const hugeId = "0b19e000-0000-4000-8000-000000000000";
    const hugeFile = path.join(folder, `${hugeId}.jsonl`);
    const fd = openSync(hugeFile, "w");
    writeSync(
      fd,
      JSON.stringify({
        type: "user",
        message: { role: "user", content: "before the huge line" },
        cwd: repo,
        sessionId: hugeId,
        timestamp: "2026-01-02T00:00:00Z",
      }) + "\n",
    );
    ftruncateSync(fd, 600 * 1024 * 1024);
    closeSync(fd);
    // A link in claude's folder is not followed, not even to a transcript of this repository.
    const outside = path.join(tempDir(), "outside.jsonl");
    writeFileSync(
      outside,
      hostile.replace(damagedId, "11111111-link-4000-8000-000000000000").replace("paint", "linked secret"),
    );
    symlinkSync(outside, path.join(folder, "11111111-link-4000-8000-000000000000.jsonl"));
    const before = folderState(config);

    const started = Date.now();
    const list = await nudge(["session", "list"]);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.stdout).toContain(damagedId.slice(0, 8));
    expect(list.stdout).toContain(hugeId.slice(0, 8));
    expect(list.stdout).not.toContain("linked secret");
    expect(list.stdout).not.toContain("\u001b");
    expect(list.stdout).not.toContain("\u202e");
    expect(list.stdout).toContain("\\x1b[31m"); // shown, not obeyed

    const show = await nudge(["session", "show", damagedId.slice(0, 8)]);
    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).not.toContain("\u001b");
    const json = JSON.parse((await nudge(["session", "show", damagedId, "--json"])).stdout) as {
      turns: Array<{ entries: Array<{ kind: string; line?: { text: string } }> }>;
    };
    const raws = json.turns
      .flatMap((t) => t.entries)
      .filter((e) => e.kind === "raw")
      .map((e) => e.line!.text);
    expect(raws).toContain("{not json"); // a damaged line is kept, as raw
    const replay = await nudge(["session", "replay", damagedId.slice(0, 8)]);
    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(replay.stdout).not.toContain("\u001b");

    const huge = await nudge(["session", "show", hugeId.slice(0, 8)]);
    expect(huge.exitCode, huge.stderr).toBe(0);
    expect(huge.stdout).toContain("before the huge line");
    expect(huge.stderr).toContain("only its first part is read");
    const hugeJson = JSON.parse((await nudge(["session", "show", hugeId, "--json"])).stdout) as {
      turns: Array<{ entries: Array<{ kind: string; line?: { text: string } }> }>;
    };
    // The 600 MB line is named with its real size, as a line too long to read (not one nudge does not know).
    expect(hugeJson.turns[0]!.entries).toContainEqual(
      expect.objectContaining({
        kind: "notice",
        text: expect.stringMatching(/^a line of [\d,]{11} bytes .*too long to read/),
      }),
    );
    expect((await nudge(["session", "show", "11111111"])).exitCode).toBe(1); // the link names no session
    const search = await nudge(["session", "search", "paint"]);
    expect(search.exitCode).toBeLessThan(2);
    expect(search.stderr).not.toMatch(/\n\s+at /);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(folderState(config)).toEqual(before);
  }, 120_000);

  it("list --all-projects groups sessions by the folder claude keeps them in (what claude --resume there sees), as the web does, not by the folder a session began in", async () => {
    const resumedIn = await gitdir();
    const id = "e5e70000-0000-4000-8000-000000000000";
    // Placed in the other folder's place as --resume from there needs it, then resumed there by claude.
    const real = readFileSync(path.join(claudeFolder(other), `${ids.other}.jsonl`), "utf8");
    mkdirSync(claudeFolder(resumedIn), { recursive: true });
    writeFileSync(path.join(claudeFolder(resumedIn), `${id}.jsonl`), real.replaceAll(ids.other!, id));
    const api = await startScriptedApi([{ text: "resumed here" }]);
    const resumed = await execa(CLAUDE_BIN, ["-p", "--resume", id, "go on here"], {
      cwd: resumedIn,
      env: { ...process.env, ...claudeEnv(api, config) },
      reject: false,
      input: "",
    });
    await api.close();
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    type Row = { folder: string; cwd: string; sessions: number };
    const rows = JSON.parse((await nudge(["session", "list", "--all-projects", "--json"])).stdout) as Row[];
    const folderName = (dir: string) => path.basename(claudeFolder(dir));
    expect(rows.find((r) => r.folder === folderName(resumedIn))).toMatchObject({ sessions: 1 });
    expect(rows.filter((r) => r.folder === folderName(other))).toHaveLength(1);
    // One row per folder: the counts add up to the transcripts claude keeps (a link is none).
    const files = readdirSync(path.join(config, "projects")).flatMap((f) =>
      readdirSync(path.join(config, "projects", f), { withFileTypes: true }).filter(
        (e) => e.isFile() && e.name.endsWith(".jsonl"),
      ),
    );
    expect(rows.reduce((n, r) => n + r.sessions, 0)).toBe(files.length);
  }, 60_000);
});

/** claude's folder for a working directory, as claude names it (in `under`, a claude config folder). */
const claudeFolder = (cwd: string, under = config) => path.join(under, "projects", cwd.replace(/[^A-Za-z0-9]/g, "-"));

/** A hand-made transcript of one turn: `prompt` (a string or blocks), an answer, and `extra` lines after it. */
function writeTranscript(id: string, cwd: string, prompt: unknown, extra: string[] = [], under = config): void {
  const base = { cwd, sessionId: id, version: "2.1.329", isSidechain: false };
  const lines = [
    JSON.stringify({
      ...base,
      type: "user",
      message: { role: "user", content: prompt },
      timestamp: "2026-11-20T10:00:00Z",
    }),
    JSON.stringify({
      ...base,
      type: "assistant",
      message: { model: "claude-x", role: "assistant", content: [{ type: "text", text: "answered" }] },
      timestamp: "2026-11-20T10:00:01Z",
    }),
    ...extra,
  ];
  mkdirSync(claudeFolder(cwd, under), { recursive: true });
  writeFileSync(path.join(claudeFolder(cwd, under), `${id}.jsonl`), lines.join("\n") + "\n");
}

/** A copy of a real transcript of claude's (`from`, in this repository's folder) under another id, as if it ran in `cwd`. */
function copyTranscript(from: string, id: string, cwd: string): void {
  const real = readFileSync(path.join(claudeFolder(repo), `${from}.jsonl`), "utf8");
  mkdirSync(claudeFolder(cwd), { recursive: true });
  writeFileSync(
    path.join(claudeFolder(cwd), `${id}.jsonl`),
    real.replaceAll(from, id).replaceAll(JSON.stringify(repo), JSON.stringify(cwd)),
  );
}

describe("claude's own sessions: what a demanding user expects", () => {
  it("an empty transcript in this repository's folder is said to hold no prompt, by a prefix or the full id, with its real id in every hint; show does not offer to adopt it", async () => {
    const id = "dddddddd-0000-4000-8000-000000000000";
    writeFileSync(path.join(claudeFolder(repo), `${id}.jsonl`), "");
    try {
      for (const typed of ["dddddddd", id]) {
        const run = await nudge(["session", "adopt", typed]);
        expect(run.exitCode, typed).toBe(1);
        expect(run.stderr).toContain(`error: claude's session ${id} holds no prompt: there is nothing to adopt`);
        expect(run.stderr).toContain(`hint: look at it where it is: nudge session show ${id}`);
        expect(run.stderr).not.toMatch(/another project|<id>/);
      }
      const show = await nudge(["session", "show", "dddddddd"]);
      expect(show.exitCode, show.stderr).toBe(0);
      expect(show.stdout).not.toContain("session adopt");
      expect(show.stdout).toContain("it holds no prompt, so there is nothing to adopt");
    } finally {
      rmSync(path.join(claudeFolder(repo), `${id}.jsonl`));
    }
  });

  it("list shows an id long enough to name the session alone when another project's begins the same, and a last prompt without claude's last-prompt record", async () => {
    const mine = "abcdef12-1111-4000-8000-000000000000";
    const theirs = "abcdef12-2222-4000-8000-000000000000";
    const second = JSON.stringify({
      cwd: repo,
      sessionId: mine,
      type: "user",
      message: { role: "user", content: "the second prompt" },
      timestamp: "2026-11-20T10:01:00Z",
    });
    writeTranscript(mine, repo, "the first prompt", [second]);
    writeTranscript(theirs, other, "another project's prompt");
    try {
      const run = await nudge(["session", "list", "--all"]);
      expect(run.exitCode, run.stderr).toBe(0);
      const row = run.stdout.split("\n").find((l) => l.startsWith("abcdef12"))!;
      expect(row.split(/\s+/)[0]).toBe("abcdef12-1");
      expect(row).toMatch(/the first prompt\s+the second prompt$/);
      const show = await nudge(["session", "show", "abcdef12-1"]);
      expect(show.exitCode, show.stderr).toBe(0);
      expect(show.stdout).toContain(`claude's own session ${mine}`);
    } finally {
      rmSync(path.join(claudeFolder(repo), `${mine}.jsonl`));
      rmSync(path.join(claudeFolder(other), `${theirs}.jsonl`));
    }
  });

  it("list --all-projects names every folder a claude folder holds sessions of (claude's name for it is lossy), marks this repository, and is not named by one stray transcript's cwd", async () => {
    // Another real folder claude stores under this repository's name: "-" and "_" both become "-".
    const twin = repo.replace(/-(?=[^-]*$)/, "_");
    expect(claudeFolder(twin)).toBe(claudeFolder(repo));
    mkdirSync(twin, { recursive: true });
    const made = ["7a1e0000-0000-4000-8000-000000000001", "7a1e0000-0000-4000-8000-000000000002"];
    writeTranscript(made[0]!, twin, "in the twin folder");
    writeTranscript(made[1]!, "/etc", "a stray cwd");
    const stray = path.join(claudeFolder("/etc"), `${made[1]}.jsonl`);
    writeFileSync(path.join(claudeFolder(repo), `${made[1]}.jsonl`), readFileSync(stray));
    rmSync(stray);
    try {
      type Row = { folder: string; cwd: string; cwds: string[] };
      const rows = JSON.parse((await nudge(["session", "list", "--all-projects", "--json"])).stdout) as Row[];
      const row = rows.find((r) => r.folder === path.basename(claudeFolder(repo)))!;
      expect(row.cwds.sort()).toEqual([repo, twin].sort());
      const table = (await nudge(["session", "list", "--all-projects"])).stdout;
      const line = table.split("\n").find((l) => l.includes(twin))!;
      expect(line).toContain(repo);
      expect(line).toContain("this repository");
      expect(table).not.toContain("/etc");
    } finally {
      for (const id of made) rmSync(path.join(claudeFolder(repo), `${id}.jsonl`));
      rmSync(twin, { recursive: true });
    }
  });

  it("adopt with an empty id says no id was given, as show does", async () => {
    for (const args of [
      ["session", "adopt", ""],
      ["session", "adopt", "  "],
    ]) {
      const run = await nudge(args);
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toContain("error: no session id given");
      expect(run.stderr).toContain("hint: list the sessions with: nudge session list");
      expect(run.stderr).not.toContain("nudge's already");
    }
  });

  it("every command taking an id says no id was given for an empty one, not every session ambiguous", async () => {
    for (const args of [
      ["session", "show", ""],
      ["session", "diff", ""],
      ["session", "export", "", "-o", path.join(tempDir(), "out.tar.gz")],
      ["session", "rm", "", "--yes"],
      ["session", "repair", "", "--dry-run"],
      ["session", "replay", " "],
    ]) {
      const run = await nudge(args);
      const what = args.join(" ");
      expect(run.exitCode, what).toBe(1);
      expect(run.stderr, what).toContain("error: no session id given");
      expect(run.stderr, what).toContain("hint: list the sessions with: nudge session list");
      expect(run.stderr, what).not.toContain("ambiguous");
    }
  });

  it("an id prefix that begins a nudge session's own id and claude's id it holds lists that session once", async () => {
    const alone = await gitdir();
    const under = path.join(tempDir(), "claude");
    const run = (args: string[]) => runNudge(args, { cwd: alone, env: { ...env, CLAUDE_CONFIG_DIR: under } });
    const held = "5e1d0000-0000-4000-8000-000000000000";
    const own = "5e1d1111-0000-4000-8000-000000000000";
    writeTranscript(held, alone, "held by nudge", [], under);
    const adopt = await run(["session", "adopt", held, "--json"]);
    expect(adopt.exitCode, adopt.stderr).toBe(0);
    const adopted = (JSON.parse(adopt.stdout) as { id: string }).id;
    // Forks hold its transcript too: one whose own id begins as claude's id does is kept, the rest removed with it.
    const forks: string[] = [];
    while (!forks.at(-1)?.startsWith("5")) {
      expect(forks.length).toBeLessThan(200);
      const fork = await run(["session", "fork", adopted, "1", "--yes", "--json"]);
      expect(fork.exitCode, fork.stderr).toBe(0);
      forks.push((JSON.parse(fork.stdout) as { id: string }).id);
    }
    const holder = forks.pop()!;
    const rm = await run(["session", "rm", adopted, ...forks, "--yes"]);
    expect(rm.exitCode, rm.stderr).toBe(0);
    writeTranscript(own, alone, "claude's own", [], under);
    const show = await run(["session", "show", "5"]);
    expect(show.exitCode).toBe(1);
    expect(show.stderr).toContain(`"5" is ambiguous`);
    const lines = show.stderr.split("\n").filter((l) => l.includes(holder));
    expect(lines, show.stderr).toEqual([
      expect.stringMatching(new RegExp(`^\\s+${holder}\\s+nudge session holding claude's session ${held}$`)),
    ]);
    expect(show.stderr).toMatch(new RegExp(`\\n\\s+${own}\\s+claude's own session`));
  }, 300_000);

  it("adopt of a prefix that begins two of this repository's sessions, one adopted already, is ambiguous saying which nudge session holds that one; never the other adopted silently", async () => {
    const first = "77c40000-0000-4000-8000-000000000000";
    const second = "77c41111-0000-4000-8000-000000000000";
    writeTranscript(first, repo, "the first of two");
    writeTranscript(second, repo, "the second of two");
    const both = await nudge(["session", "adopt", "77c4"]);
    expect(both.exitCode).toBe(1);
    expect(both.stderr).toContain(
      `error: "77c4" is ambiguous among this repository's claude sessions: ${first}, ${second}`,
    );
    const adopt = await nudge(["session", "adopt", "77c40000", "--json"]);
    expect(adopt.exitCode, adopt.stderr).toBe(0);
    const nudgeId = (JSON.parse(adopt.stdout) as { id: string }).id;
    const again = await nudge(["session", "adopt", "77c4"]);
    expect(again.exitCode, again.stdout).toBe(1);
    expect(again.stderr).toContain(
      `error: "77c4" is ambiguous among this repository's claude sessions: ${first} (nudge's already: nudge session ${nudgeId}), ${second}`,
    );
    expect(again.stderr).toContain("hint: type more of the id");
    // Nothing was adopted: the second is still claude's own.
    const list = JSON.parse((await nudge(["session", "list", "--json"])).stdout) as Array<{
      id: string;
      source: string;
    }>;
    expect(list.find((r) => r.id === second)?.source).toBe("claude");
    // A prefix of the adopted one alone says it is nudge's; one of the other adopts it.
    const held = await nudge(["session", "adopt", "77c40"]);
    expect(held.exitCode).toBe(1);
    expect(held.stderr).toContain(`error: claude's session ${first} is nudge's already: nudge session ${nudgeId}`);
    const other = await nudge(["session", "adopt", "77c41"]);
    expect(other.exitCode, other.stderr).toBe(0);
    expect(other.stdout).toContain(`adopted claude's session ${second} as nudge session`);
  }, 60_000);

  it("adopt of a session nudge holds already names claude's id and nudge's, not the prefix typed", async () => {
    const id = "ad0b7e00-0000-4000-8000-000000000000";
    copyTranscript(ids.root!, id, repo);
    const adopt = await nudge(["session", "adopt", id]);
    expect(adopt.exitCode, adopt.stderr).toBe(0);
    const nudgeId = /as nudge session (\w+)/.exec(adopt.stdout)![1]!;
    for (const typed of ["ad0b7e", id]) {
      const again = await nudge(["session", "adopt", typed]);
      expect(again.exitCode).toBe(1);
      expect(again.stderr).toContain(`error: claude's session ${id} is nudge's already: nudge session ${nudgeId}`);
      expect(again.stderr).toContain(`hint: look at it: nudge session show ${nudgeId}`);
    }
  }, 60_000);

  it("adopt of a prefix that begins a session nudge adopted here and another project's says it is adopted already, and how to take the other", async () => {
    const id = "ad0be000-0000-4000-8000-000000000000";
    const twin = "ad0be000-ffff-4fff-8fff-ffffffffffff";
    copyTranscript(ids.root!, id, repo);
    copyTranscript(ids.root!, twin, other);
    const adopt = await nudge(["session", "adopt", id]);
    expect(adopt.exitCode, adopt.stderr).toBe(0);
    const nudgeId = /as nudge session (\w+)/.exec(adopt.stdout)![1]!;
    const again = await nudge(["session", "adopt", "ad0be0"]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain(`error: claude's session ${id} is nudge's already: nudge session ${nudgeId}`);
    expect(again.stderr).not.toContain("no claude session of this repository matches");
    expect(again.stderr).toContain(`the prefix also begins another project's session ${twin}`);
  }, 60_000);

  it("an adopted conversation keeps its own times: the session starts when claude's transcript does, each turn when its prompt was written; the adoption's time is only when it was adopted; list sorts it by its own start", async () => {
    const id = "da7e0000-0000-4000-8000-000000000000";
    const base = { cwd: repo, sessionId: id, version: "2.1.329", isSidechain: false };
    writeTranscript(id, repo, "asked long ago", [
      JSON.stringify({
        ...base,
        type: "user",
        message: { role: "user", content: "asked an hour later" },
        timestamp: "2026-11-20T11:00:00Z",
      }),
      JSON.stringify({
        ...base,
        type: "assistant",
        message: { model: "claude-x", role: "assistant", content: [{ type: "text", text: "answered later" }] },
        timestamp: "2026-11-20T11:00:07Z",
      }),
    ]);
    const before = new Date().toISOString();
    const adopt = await nudge(["session", "adopt", id, "--json"]);
    expect(adopt.exitCode, adopt.stderr).toBe(0);
    const nudgeId = (JSON.parse(adopt.stdout) as { id: string }).id;
    type Shown = {
      startedAt: string;
      updatedAt: string;
      turns: Array<{ n: number; startedAt: string; endedAt: string }>;
    };
    const show = JSON.parse((await nudge(["session", "show", nudgeId, "--json"])).stdout) as Shown;
    expect(show.startedAt).toBe("2026-11-20T10:00:00.000Z");
    expect(show.turns.map((t) => [t.n, t.startedAt, t.endedAt])).toEqual([
      [0, "2026-11-20T10:00:00.000Z", "2026-11-20T10:00:00.000Z"],
      [1, "2026-11-20T10:00:00.000Z", "2026-11-20T10:00:01.000Z"],
      [2, "2026-11-20T11:00:00.000Z", "2026-11-20T11:00:07.000Z"],
    ]);
    // When it was adopted is kept where it means that: the header's `adopted.at`, and its last use.
    const header = JSON.parse(
      readFileSync(path.join(repo, ".git", "nudge", "sessions", nudgeId, "manifest.json"), "utf8"),
    ) as {
      adopted: { at: string };
    };
    expect(header.adopted.at >= before).toBe(true);
    expect(show.updatedAt >= before).toBe(true);
    const text = (await nudge(["session", "show", nudgeId])).stdout;
    expect(text).toContain(`started 2026-11-20T10:00:00.000Z`);
    expect(text).toContain(`adopted ${header.adopted.at} from claude's own session ${id}`);
    // Its turns took the time they took in claude: replay and show say so alike (claude reported no duration).
    expect((await nudge(["session", "replay", nudgeId])).stdout).toContain("● turn 2 · done · 7.0s");
    const row = (n: number) =>
      text
        .split("\n")
        .find((l) => l.startsWith(`${n} `))!
        .split(/\s{2,}/);
    // TURN, PROMPT, CHANGES, COST, TIME: turn 0, the starting state, took no time.
    expect([0, 1, 2].map((n) => row(n)[4])).toEqual(["–", "1.0s", "7.0s"]);
    // Newest first by start: the session recorded today comes before this older conversation.
    const list = (
      JSON.parse((await nudge(["session", "list", "--json"])).stdout) as Array<{
        id: string;
        source: string;
        startedAt: string;
        firstPrompt: string;
      }>
    ).filter((r) => r.source === "nudge");
    const at = (pick: (r: (typeof list)[number]) => boolean) => list.findIndex(pick);
    expect(list.find((r) => r.id === nudgeId)?.startedAt).toBe("2026-11-20T10:00:00.000Z");
    expect(at((r) => r.id === nudgeId)).toBeGreaterThan(at((r) => r.firstPrompt === "recorded prompt"));
    expect(list.map((r) => r.startedAt)).toEqual(
      list
        .map((r) => r.startedAt)
        .sort()
        .reverse(),
    );
  }, 60_000);

  it("a turn of 400,000 timed lines is adopted and dated by them (not one argument per line)", async () => {
    const id = "b1900000-0000-4000-8000-000000000000";
    const lines = Array.from({ length: 400_000 }, (_, k) =>
      JSON.stringify({
        type: "progress",
        timestamp: new Date(Date.parse("2026-11-21T00:00:00Z") + k * 1000).toISOString(),
      }),
    );
    writeTranscript(id, repo, "many lines", lines);
    const adopt = await nudge(["session", "adopt", id, "--json"]);
    expect(adopt.exitCode, adopt.stderr).toBe(0);
    const nudgeId = (JSON.parse(adopt.stdout) as { id: string }).id;
    const show = JSON.parse((await nudge(["session", "show", nudgeId, "--json"])).stdout) as {
      turns: Array<{ startedAt: string; endedAt: string }>;
    };
    expect(show.turns[1]).toMatchObject({
      startedAt: "2026-11-20T10:00:00.000Z",
      endedAt: new Date(Date.parse("2026-11-21T00:00:00Z") + 399_999_000).toISOString(),
    });
  }, 60_000);

  it("claude's id of an adopted session, whole or a prefix, names the nudge session that adopted it; a prefix that also begins one of claude's own says which is which", async () => {
    const id = "1dad0000-0000-4000-8000-000000000000";
    writeTranscript(id, repo, "find me by claude's id");
    const adopt = await nudge(["session", "adopt", id, "--json"]);
    expect(adopt.exitCode, adopt.stderr).toBe(0);
    const nudgeId = (JSON.parse(adopt.stdout) as { id: string }).id;
    for (const typed of [id, "1dad00"]) {
      const show = await nudge(["session", "show", typed]);
      expect(show.exitCode, show.stderr).toBe(0);
      expect(show.stdout).toContain(`session ${nudgeId} · complete`);
      expect(show.stdout).toContain("find me by claude's id");
      const diff = await nudge(["session", "diff", typed, "1"]);
      expect(diff.exitCode, diff.stderr).toBe(0);
      expect((await nudge(["session", "replay", typed])).stdout).toContain("answered");
      // Those that plan on the session name it by its own id.
      expect((await nudge(["session", "rm", typed, "--dry-run"])).stdout).toContain(`remove session ${nudgeId}`);
      expect((await nudge(["session", "repair", typed, "--dry-run"])).stderr).toContain(
        `session ${nudgeId}'s turn journal is whole`,
      );
      expect((await nudge(["session", "rewind", typed, "0", "--dry-run"])).stdout).toContain(
        `rewind session ${nudgeId} to turn 0`,
      );
    }
    // Another of claude's own sessions whose id begins the same: the prefix names both, each said with what it is.
    const twin = "1dad0000-ffff-4fff-8fff-ffffffffffff";
    writeTranscript(twin, repo, "the twin, not adopted");
    const both = await nudge(["session", "show", "1dad00"]);
    expect(both.exitCode).toBe(1);
    expect(both.stderr).toContain(`"1dad00" is ambiguous`);
    const lines = both.stderr.split("\n");
    expect(lines.find((l) => l.includes(nudgeId))).toMatch(
      new RegExp(`^\\s+${nudgeId}\\s+nudge session holding claude's session ${id}$`),
    );
    expect(lines.find((l) => l.includes(twin))).toMatch(/^\s+\S+\s+claude's own session/);
    expect(both.stderr).toContain("hint: type more of the id");
    // The whole ids name each alone.
    expect((await nudge(["session", "show", id])).stdout).toContain(`session ${nudgeId} · complete`);
    expect((await nudge(["session", "show", twin])).stdout).toContain(`claude's own session ${twin}`);
  }, 60_000);

  it("adopt resolves a prefix among this repository's sessions first; another project's only by its full id, and says so", async () => {
    // Another project's session whose id begins as one of this repository's.
    const twin = `${ids.root!.slice(0, 8)}-ffff-4fff-8fff-ffffffffffff`;
    writeTranscript(twin, other, "the twin in another project");
    const here = await nudge(["session", "adopt", ids.root!.slice(0, 8), "--json"]);
    expect(here.exitCode, here.stderr).toBe(0);
    expect(JSON.parse(here.stdout)).toMatchObject({ claudeSessionId: ids.root, otherProject: null });
    // A prefix of another project's session: refused, saying where it ran and how to adopt it all the same.
    const byPrefix = await nudge(["session", "adopt", ids.other!.slice(0, 8)]);
    expect(byPrefix.exitCode).toBe(1);
    expect(byPrefix.stderr).toContain(`this session ran in ${other}, another project`);
    expect(byPrefix.stderr).toContain(
      `hint: to adopt it into this repository all the same, give its full id: nudge session adopt ${ids.other}`,
    );
    expect(byPrefix.stderr).toContain(
      `(or add --from-other-project: nudge session adopt ${ids.other!.slice(0, 8)} --from-other-project)`,
    );
    // A folder since deleted: said too.
    const gone = await gitdir();
    const goneId = "9a7e0000-0000-4000-8000-000000000000";
    writeTranscript(goneId, gone, "asked where nothing is left");
    rmSync(gone, { recursive: true, force: true });
    const goneRun = await nudge(["session", "adopt", "9a7e"]);
    expect(goneRun.exitCode).toBe(1);
    expect(goneRun.stderr).toContain(`ran in ${gone}, another project whose folder no longer exists`);
    // The full id adopts it, and the output says plainly where it ran and where it went.
    const full = await nudge(["session", "adopt", ids.other!]);
    expect(full.exitCode, full.stderr).toBe(0);
    expect(full.stdout).toContain(`this session ran in ${other}, another project; adopted into ${repo}`);
    const flagged = await nudge(["session", "adopt", "9a7e", "--from-other-project"]);
    expect(flagged.exitCode, flagged.stderr).toBe(0);
    expect(flagged.stdout).toContain(
      `ran in ${gone}, another project whose folder no longer exists; adopted into ${repo}`,
    );
  }, 60_000);

  it("list --all-projects honours --limit and says how many are not shown, refuses --remote, and marks a subfolder as this repository", async () => {
    const all = JSON.parse((await nudge(["session", "list", "--all-projects", "--json"])).stdout) as unknown[];
    expect(all.length).toBeGreaterThan(2);
    const one = await nudge(["session", "list", "--all-projects", "--limit", "1"]);
    expect(one.exitCode, one.stderr).toBe(0);
    expect(one.stdout.split("\n").filter((l) => l.startsWith("/"))).toHaveLength(1);
    expect(one.stdout).toContain(`${all.length - 1} less recently used projects not shown (1 of ${all.length})`);
    expect(
      JSON.parse((await nudge(["session", "list", "--all-projects", "--json", "--limit", "2"])).stdout),
    ).toHaveLength(2);
    for (const remote of [["--remote"], ["--remote", "origin"]]) {
      const run = await nudge(["session", "list", "--all-projects", ...remote]);
      expect(run.exitCode).toBe(1);
      expect(run.stderr.trim().split("\n")).toHaveLength(2);
      expect(run.stderr).toMatch(/^error: --all-projects .*--remote/);
      expect(run.stderr).toContain("hint: ");
    }
    const list = await nudge(["session", "list", "--all-projects", "--all"]);
    const row = (dir: string) => list.stdout.split("\n").find((l) => l.startsWith(dir + " "))!;
    expect(row(path.join(repo, "sub"))).toMatch(/this repository\s*$/);
    expect(row(worktree)).toMatch(/this repository\s*$/);
    expect(row(other)).not.toContain("this repository");
  }, 60_000);

  it("list refuses --limit with --all (recorded and claude's own, and --all-projects) rather than letting one win silently", async () => {
    for (const more of [[], ["--all-projects"], ["--json"]]) {
      const run = await nudge(["session", "list", "--limit", "1", "--all", ...more]);
      expect(run.exitCode, more.join(" ")).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr.trim().split("\n")).toEqual([
        "error: --all lists every session, --limit 1 only the newest 1: give one of them",
        "hint: nudge session list --all, or: nudge session list --limit 1",
      ]);
    }
  });

  it("a cost of exactly 0 in claude's transcript shows as $0.00 in list and show, not $0.0000", async () => {
    const id = "c0570000-0000-4000-8000-000000000000";
    copyTranscript(ids.root!, id, repo);
    const file = path.join(claudeFolder(repo), `${id}.jsonl`);
    writeFileSync(file, readFileSync(file, "utf8").replace(/"totalCostUSD":[0-9.e-]+/g, '"totalCostUSD":0'));
    const list = await nudge(["session", "list", "--all"]);
    const row = list.stdout.split("\n").find((l) => l.startsWith(id.slice(0, 8)))!;
    expect(row).toMatch(/\s\$0\.00\s/);
    const show = await nudge(["session", "show", id]);
    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/^total \$0\.00 · /m);
    expect(list.stdout + show.stdout).not.toContain("$0.0000");
  });

  it("a prompt line over 16 MB in an adopted session replays as its start and what was left out, never a stray cut mark", async () => {
    const id = "b1970000-0000-4000-8000-000000000000";
    copyTranscript(ids.root!, id, repo);
    const file = path.join(claudeFolder(repo), `${id}.jsonl`);
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    // claude's own prompt line, its text made 17 MB: a second prompt, after the first turn.
    const prompt = lines
      .map((l) => JSON.parse(l) as { type: string; message?: { content: unknown } })
      .find((r) => r.type === "user" && JSON.stringify(r.message?.content).includes("first prompt 日本語の質問"))!;
    prompt.message!.content = "Q".repeat(17 << 20);
    writeFileSync(file, [...lines, JSON.stringify(prompt)].join("\n") + "\n");
    const adopt = await nudge(["session", "adopt", id]);
    expect(adopt.exitCode, adopt.stderr).toBe(0);
    // Written moments ago: claude may still be running it, and what it does next is not adopted.
    expect(adopt.stderr).toMatch(/^nudge: claude wrote to this session \d+ s ago: if it is still running/m);
    const nudgeId = /as nudge session (\w+)/.exec(adopt.stdout)![1]!;
    // The huge prompt begins a turn of its own (read with its text cut), not folded into the one before.
    const turns = (
      JSON.parse((await nudge(["session", "show", nudgeId, "--json"])).stdout) as { turns: Array<{ prompt: string }> }
    ).turns;
    expect(turns.at(-1)!.prompt).toMatch(/^QQQ/);
    expect(turns.at(-2)!.prompt).not.toMatch(/Q{100}/);
    const replay = await nudge(["session", "replay", nudgeId]);
    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(replay.stdout).not.toContain("\uffff");
    const shown = replay.stdout.split("\n").findIndex((l) => l.startsWith("› QQQ"));
    const [line, mark] = replay.stdout.split("\n").slice(shown, shown + 2);
    expect(line).toMatch(/^› Q+$/);
    const left = (17 << 20) - (line!.length - 2);
    expect(mark).toBe(`  … ${left.toLocaleString("en")} more bytes not shown (the prompt is cut here)`);
  }, 60_000);

  it("show keeps each header line one line when the transcript's folder or branch holds a line break", async () => {
    const id = "1e1e0000-0000-4000-8000-000000000000";
    // Filed under another project's folder (its cwd is not a folder of this repository): show takes its full id.
    writeTranscript(id, `${repo}-nl\nx`, "hello", [
      JSON.stringify({
        type: "user",
        cwd: `${repo}-nl\nx`,
        gitBranch: "b\nr",
        message: { role: "user", content: "again" },
      }),
    ]);
    const show = await nudge(["session", "show", id]);
    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toContain(`folder ${repo}-nl\\nx · claude 2.1.329`);
    expect(show.stdout).toMatch(/· branch b\\nr · started/);
  }, 60_000);

  it("a reply over 4 MB in an adopted session replays as its start and what was left out, never the cut's mark", async () => {
    const id = "b1980000-0000-4000-8000-000000000000";
    copyTranscript(ids.root!, id, repo);
    const file = path.join(claudeFolder(repo), `${id}.jsonl`);
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    const reply = lines
      .map((l) => JSON.parse(l) as { type: string; message?: { content: unknown } })
      .findLast((r) => r.type === "assistant")!;
    reply.message!.content = [{ type: "text", text: "X".repeat(5 << 20) }];
    writeFileSync(file, [...lines, JSON.stringify(reply)].join("\n") + "\n");
    const adopt = await nudge(["session", "adopt", id]);
    expect(adopt.exitCode, adopt.stderr).toBe(0);
    const nudgeId = /as nudge session (\w+)/.exec(adopt.stdout)![1]!;
    for (const args of [[], ["-v"]]) {
      const replay = await nudge(["session", "replay", nudgeId, ...args]);
      expect(replay.exitCode, replay.stderr).toBe(0);
      expect(replay.stdout).not.toContain("\uffff");
      expect(replay.stdout).toMatch(/^X{1000}/m);
      expect(replay.stdout).toMatch(/^ {2}… [\d,]+ more bytes not shown \(the reply is cut here\)$/m);
    }
  }, 60_000);

  it("replay shows a valid line too long to hold (17 MB) as what it is, its long text cut with what was left out; not as a line that is not JSON", async () => {
    const id = "7001a000-0000-4000-8000-000000000000";
    const big = JSON.stringify({
      type: "assistant",
      cwd: repo,
      message: { role: "assistant", content: [{ type: "text", text: "x".repeat(17 << 20) }] },
    });
    writeTranscript(id, repo, "before a big line", [big]);
    const replay = await nudge(["session", "replay", id]);
    expect(replay.exitCode, replay.stderr).toBe(0);
    const said = replay.stdout + replay.stderr;
    expect(said).toMatch(/x{1000} … \([\d,]+ more bytes, too long to read\)/);
    expect(said).not.toContain("not JSON");
  }, 60_000);

  it("a long prompt written as one string is one prompt entry, whole", async () => {
    for (const [id, content] of [
      ["5a0a0000-0000-4000-8000-000000000000", "p".repeat(70_000)],
      ["5a0b0000-0000-4000-8000-000000000000", [{ type: "text", text: "p".repeat(70_000) }]],
    ] as const) {
      writeTranscript(id, repo, "first", [
        JSON.stringify({
          type: "user",
          cwd: repo,
          sessionId: id,
          message: { role: "user", content },
          timestamp: "2026-11-20T10:01:00Z",
        }),
      ]);
      const json = JSON.parse((await nudge(["session", "show", id, "--json"])).stdout) as {
        turns: Array<{ prompt: string; entries: Array<{ kind: string; text?: string }> }>;
      };
      const prompts = json.turns[1]!.entries.filter((e) => e.kind === "prompt");
      expect(
        prompts.map((p) => p.text!.length),
        id,
      ).toEqual([70_000]);
      expect(json.turns[1]!.prompt).toHaveLength(70_000);
    }
  }, 60_000);
});
