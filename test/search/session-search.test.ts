/**
 * `nudge session search` on real recordings (the real claude, the scripted API): a word of a
 * tool's output, a phrase, CJK, accents, `--file`, the index made again after it was deleted or
 * killed mid-update, and secrets (found locally, masked in `--json`).
 */
import { existsSync, rmSync, writeFileSync } from "node:fs";
import Database from "better-sqlite3";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitdir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { expectCleanStop, startWeb } from "../support/web-server.js";

const SECRET = "sk-ant-api03-" + "Xy7_Q2-wErTyUiOpAsDfGhJkLzXcVbNm".repeat(3).slice(0, 93) + "AA";

let repo: string;
let first: Recorded;
const apis: Recorded["api"][] = [];
const search = (args: string[], env: Record<string, string> = {}) =>
  runNudge(["session", "search", ...args], { cwd: repo, env });
const index = () => path.join(repo, ".git", "nudge", "search", "index.sqlite");
interface JsonHit {
  session: string;
  turn: number;
  where: string;
  tool: string | null;
  snippet: string;
  matches: Array<[number, number]>;
  prompt: string | null;
}
const json = (stdout: string) => JSON.parse(stdout) as JsonHit[];

beforeAll(async () => {
  repo = await gitdir({ "README.md": "# test\n" });
  first = await recordSession(
    repo,
    [
      { tool: "Bash", input: { command: "echo 'ECONNREFUSED zanzibar-4471 on port 8443'", description: "probe" } },
      { tool: "Bash", input: { command: "printf '\\033[1;31mwallabyglow\\033[0m done'", description: "colour" } },
      { tool: "Bash", input: { command: "true\nkestrelmark=1", description: "two lines" } },
      { tool: "Bash", input: { command: "printf '\u0007ospreybell \u202eTXETEGAMI'", description: "controls" } },
      { text: "The auth timeout was raised to 30 seconds." },
      {
        tool: "Write",
        input: { file_path: path.join(repo, "src", "auth.ts"), content: "export const timeout = 30;\n" },
      },
      { text: "認証タイムアウトを修正しました。Café résumé updated." },
      { tool: "Edit", input: { file_path: path.join(repo, "src", "auth.ts"), old_string: "30", new_string: "45" } },
      { tool: "Write", input: { file_path: path.join(repo, "notes.txt"), content: "done\n" } },
      { text: "Raised it again." },
    ],
    ["why does login hang?", "fix the 認証 timeout", `use the key ${SECRET} and raise it again`],
  );
  apis.push(first.api);
}, 60_000);
afterAll(async () => {
  await Promise.all(apis.map((api) => api.close()));
});

describe("nudge session search", () => {
  it("finds a word of a tool's output at its session and turn, case-insensitively", async () => {
    const run = await search(["ZANZIBAR", "--json"]);
    expect(run.exitCode, run.stderr).toBe(0);
    const hits = json(run.stdout);
    expect(hits.map((h) => [h.session, h.turn, h.where, h.tool])).toContainEqual([first.id, 1, "tool-output", "Bash"]);
    const output = hits.find((h) => h.where === "tool-output")!;
    expect(output.matches.map(([a, b]) => output.snippet.slice(a, b))).toEqual(["zanzibar"]);
  });

  it("finds a word glued to a colour code in a tool's output, and shows the code inert", async () => {
    const run = await search(["wallabyglow", "--tool", "Bash"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain(`${first.id}  turn 1  `);
    expect(run.stdout).not.toContain("\u001b");
    expect(run.stdout).toMatch(/\[wallabyglow\]/);
  });

  it("finds a word at the start of a line of a tool's input (JSON spells the break out)", async () => {
    const run = await search(["kestrelmark", "--json"]);
    expect(run.exitCode, run.stderr).toBe(0);
    const hit = json(run.stdout).find((h) => h.where === "tool-input")!;
    expect([hit.session, hit.turn, hit.tool]).toEqual([first.id, 1, "Bash"]);
    expect(hit.matches.map(([a, b]) => hit.snippet.slice(a, b))).toEqual(["kestrelmark"]);
  });

  it("finds a word right after a control character JSON spells out (\\u0007, \\u202e)", async () => {
    for (const word of ["ospreybell", "TXETEGAMI"]) {
      const run = await search([word, "--json"]);
      expect(run.exitCode, run.stderr).toBe(0);
      const hit = json(run.stdout).find((h) => h.where === "tool-input")!;
      expect([hit.session, hit.turn, hit.tool]).toEqual([first.id, 1, "Bash"]);
      expect(hit.matches.map(([a, b]) => hit.snippet.slice(a, b).toLowerCase())).toEqual([word.toLowerCase()]);
      // Shown in the one style every view uses (`\x07`), not JSON's (`\u0007`).
      expect(hit.snippet).toContain("printf '\\x07ospreybell \\u202eTXETEGAMI'");
    }
    const terminal = await search(["ospreybell"]);
    expect(terminal.stdout).toContain("\\x07");
    expect(terminal.stdout).not.toContain("\\u0007");
  });

  it("shows each hit with its place and the match in brackets without colour", async () => {
    const run = await search(["zanzibar", "--tool", "bash"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain(`${first.id}  turn 1  `);
    expect(run.stdout).toContain("tool output (Bash)");
    expect(run.stdout).toContain("ECONNREFUSED [zanzibar]-4471 on port 8443");
  });

  it("matches a quoted phrase only in its order, and a prefix with *", async () => {
    const phrase = json((await search(['"auth timeout was raised"', "--json"])).stdout);
    expect(phrase.map((h) => [h.turn, h.where])).toEqual([[1, "text"]]);
    const reversed = await search(['"raised was timeout"']);
    expect(reversed.exitCode).toBe(1);
    expect(reversed.stderr).toContain("no matches");
    const prefix = json((await search(["zanzi*", "--json"])).stdout);
    expect(prefix.some((h) => h.turn === 1 && h.where === "tool-output")).toBe(true);
    const newest = json((await search(["timeout", "--newest", "--json"])).stdout).map((h) => h.turn);
    expect(new Set(newest)).toEqual(new Set([1, 2]));
    expect(newest).toEqual([...newest].sort((a, b) => b - a));
  });

  it("finds CJK words inside unspaced text, and words without their accents", async () => {
    const cjk = json((await search(["タイムアウト", "--json"])).stdout);
    expect(cjk.map((h) => [h.turn, h.where])).toEqual([[2, "text"]]);
    expect(cjk[0]!.matches.map(([a, b]) => cjk[0]!.snippet.slice(a, b))).toEqual(["タイムアウト"]);
    // 認証 is in turn 2's prompt and its text; 証認 (the same characters reversed) nowhere.
    const two = json((await search(["認証", "--json"])).stdout);
    expect(new Set(two.map((h) => `${h.turn} ${h.where}`))).toEqual(new Set(["2 prompt", "2 text"]));
    expect((await search(["証認"])).exitCode).toBe(1);
    // One character: inside a run (正 of 修正) or at its end (た of しました).
    for (const one of ["正", "た"])
      expect(json((await search([one, "--json"])).stdout).map((h) => [h.turn, h.where])).toEqual([[2, "text"]]);
    const accents = json((await search(["cafe", "RESUME", "--json"])).stdout);
    expect(accents.map((h) => h.turn)).toEqual([2]);
  });

  it("--file lists exactly the turns that changed the file, newest first, and takes a glob", async () => {
    const run = await search(["--file", "src/auth.ts", "--json"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(json(run.stdout).map((h) => [h.session, h.turn])).toEqual([
      [first.id, 3],
      [first.id, 2],
    ]);
    expect(json((await search(["--file", "*.txt", "--json"])).stdout).map((h) => h.turn)).toEqual([3]);
    expect(json((await search(["timeout", "--file", "src/auth.ts", "--json"])).stdout).every((h) => h.turn >= 2)).toBe(
      true,
    );
    const none = await search(["--file", "nowhere.ts"]);
    expect(none.exitCode).toBe(1);
  });

  it("finds a secret locally but never prints it in --json", async () => {
    const local = await search([`"${SECRET}"`]);
    expect(local.exitCode, local.stderr).toBe(0);
    expect(local.stdout).toContain(SECRET); // the user's own machine: search finds what they typed
    const piped = await search([`"${SECRET}"`, "--json"]);
    expect(piped.exitCode).toBe(0);
    expect(piped.stdout).not.toContain(SECRET);
    expect(piped.stdout).not.toContain(SECRET.slice(20, 60));
    const hits = json(piped.stdout);
    expect(hits.map((h) => [h.turn, h.where])).toContainEqual([3, "prompt"]);
    expect(hits.find((h) => h.where === "prompt")!.snippet).toContain("[REDACTED:");
    expect(hits.every((h) => h.prompt?.includes("[REDACTED:"))).toBe(true);
  });

  it("a recording puts its saved turns in the index itself; a session the index never saw, or a deleted index, is caught up at the next search", async () => {
    expect((await search(["zanzibar"])).exitCode).toBe(0);
    rmSync(path.join(repo, ".git", "nudge", "search"), { recursive: true, force: true });
    const second = await recordSession(repo, [{ text: "Quokka population counted." }], ["count the quokkas"]);
    apis.push(second.api);
    // Indexed by the recording nudge (its worker thread), before it exited: no search ran.
    const db = new Database(index(), { readonly: true });
    try {
      expect(db.prepare("SELECT turn FROM turns WHERE session = ?").all(second.id)).toEqual([{ turn: 1 }]);
    } finally {
      db.close();
    }
    rmSync(path.join(repo, ".git", "nudge", "search"), { recursive: true, force: true });
    expect(existsSync(index())).toBe(false);
    const run = json((await search(["quokka*", "--json"])).stdout);
    expect(new Set(run.map((h) => `${h.session} ${h.turn}`))).toEqual(new Set([`${second.id} 1`]));
    expect(json((await search(["zanzibar", "--json"])).stdout).some((h) => h.session === first.id)).toBe(true);
  });

  it("searches started together on a missing index all answer, and alike", async () => {
    const expected = (await search(["timeout", "--json", "--limit", "100"])).stdout;
    rmSync(path.join(repo, ".git", "nudge", "search"), { recursive: true, force: true });
    const runs = await Promise.all([1, 2, 3].map(() => search(["timeout", "--json", "--limit", "100"])));
    for (const run of runs) {
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stdout).toBe(expected);
    }
  });

  it("after a kill -9 in the middle of an index update, the next search is right", async () => {
    const expected = (await search(["timeout", "--json", "--limit", "100"])).stdout;
    rmSync(path.join(repo, ".git", "nudge", "search"), { recursive: true, force: true });
    const killed = await search(["timeout"], { NUDGE_FAULT: "search-index-turn:kill@2" });
    expect(killed.signal).toBe("SIGKILL");
    const after = await search(["timeout", "--json", "--limit", "100"]);
    expect(after.exitCode, after.stderr).toBe(0);
    expect(after.stdout).toBe(expected);
  });

  it("says so in one line, exit 1, when the index cannot be made", async () => {
    const folder = path.join(repo, ".git", "nudge", "search");
    rmSync(folder, { recursive: true, force: true });
    writeFileSync(folder, "in the way\n");
    try {
      const run = await search(["zanzibar"]);
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toMatch(/^error: cannot open the search index .*\nhint: check that path/);
    } finally {
      rmSync(folder, { force: true });
    }
  });

  it("says what is wrong with a bad option, exit 1", async () => {
    const empty = await search([]);
    expect(empty.exitCode).toBe(1);
    expect(empty.stderr).toContain("nothing to search for");
    const punctuation = await search(["(…)", "*"]);
    expect(punctuation.exitCode).toBe(1);
    expect(punctuation.stderr).toContain("nothing to search for");
    const since = await search(["x", "--since", "yesterday"]);
    expect(since.exitCode).toBe(1);
    expect(since.stderr).toContain("--since is not a date");
    const limit = await search(["x", "--limit", "0"]);
    expect(limit.exitCode).toBe(1);
  });

  it("GET /api/search answers as --json does, behind the same login, and refuses a bad query", async () => {
    const web = await startWeb(repo);
    try {
      const answer = await web.get(`/api/search?q=${encodeURIComponent(`"${SECRET}"`)}`);
      expect(answer.status, answer.body).toBe(200);
      expect(answer.body).not.toContain(SECRET.slice(20, 60));
      const { hits } = JSON.parse(answer.body) as { hits: JsonHit[] };
      expect(hits.map((h) => [h.session, h.turn, h.where])).toContainEqual([first.id, 3, "prompt"]);
      const file = JSON.parse((await web.get("/api/search?file=src%2Fauth.ts")).body) as { hits: JsonHit[] };
      expect(file.hits.map((h) => h.turn)).toEqual([3, 2]);
      expect((await web.request("/api/search?q=zanzibar")).status).toBe(403);
      const bad = await web.get("/api/search?q=x&limit=1000");
      expect(bad.status).toBe(400);
      expect(bad.body).toContain("invalid query.limit");
      expect((await web.get("/api/search?q=")).status).toBe(400);
    } finally {
      await expectCleanStop(web);
    }
  });
});
