/**
 * A prefix that begins both a nudge session and one of claude's own is ambiguous for every command
 * that takes an id: said with both listed (one line each, with where it is from), exit 1 and a
 * hint, never settled by picking nudge's.
 */
import { execa } from "execa";
import { copyFileSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CLAUDE_BIN } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";

let repo: string;
let recorded: Recorded;
/** claude's own session whose id begins with the recorded session's first four characters. */
let claudeId: string;
let prefix: string;

const nudge = (args: string[]) => runNudge(args, { cwd: repo, env: recorded.env });

beforeAll(async () => {
  repo = await gitdir();
  recorded = await recordSession(repo, [{ text: "recorded answer" }, { text: "plain answer" }], ["recorded prompt"]);
  // A plain claude run (nudge not involved), its transcript then given an id that shares the prefix.
  const plain = await execa(CLAUDE_BIN, ["-p", "asked without nudge", "--output-format", "json"], {
    cwd: repo,
    env: { ...process.env, ...recorded.env },
    reject: false,
    input: "",
  });
  expect(plain.exitCode, plain.stderr).toBe(0);
  await recorded.api.close();
  const original = (JSON.parse(plain.stdout) as { session_id: string }).session_id;
  prefix = recorded.id.slice(0, 4);
  claudeId = `${prefix}${original.slice(4)}`;
  const folder = path.join(recorded.env.CLAUDE_CONFIG_DIR!, "projects");
  const project = readdirSync(folder).find((f) => readdirSync(path.join(folder, f)).includes(`${original}.jsonl`))!;
  const from = path.join(folder, project, `${original}.jsonl`);
  const to = path.join(folder, project, `${claudeId}.jsonl`);
  copyFileSync(from, to);
  writeFileSync(to, readFileSync(to, "utf8").replaceAll(original, claudeId));
}, 120_000);

describe("an id prefix of both a nudge session and one of claude's own", () => {
  it("is ambiguous for every command taking an id: both listed with their source, exit 1, a hint", async () => {
    const bare = tempDir();
    await execa("git", ["init", "-q", "--bare", bare]);
    await execa("git", ["remote", "add", "origin", bare], { cwd: repo });
    for (const args of [
      ["session", "show", prefix],
      ["session", "show", prefix, "--json"],
      ["session", "replay", prefix],
      ["session", "diff", prefix],
      ["session", "rewind", prefix, "0", "--yes"],
      ["session", "fork", prefix, "0"],
      ["session", "export", prefix, "-o", path.join(tempDir(), "out.tar.gz")],
      ["session", "rm", prefix, "--yes"],
      ["session", "repair", prefix, "--dry-run"],
      ["session", "push", prefix, "--dry-run"],
      ["session", "search", "asked", "--session", prefix],
      ["claude", "run", "--claude-bin", CLAUDE_BIN, "-r", prefix, "go on"],
    ]) {
      const run = await nudge(args);
      const what = args.join(" ");
      expect(run.exitCode, `${what}\n${run.stdout}\n${run.stderr}`).toBe(1);
      expect(run.stderr, what).toContain(`"${prefix}" is ambiguous`);
      const lines = run.stderr.split("\n");
      expect(
        lines.find((l) => l.includes(recorded.id)),
        what,
      ).toMatch(/^\s+\w+\s+nudge session$/);
      expect(
        lines.find((l) => l.includes(claudeId)),
        what,
      ).toMatch(/^\s+\S+\s+claude's own session/);
      expect(run.stderr, what).toMatch(/\nhint: type more of the id/);
      expect(run.stderr, what).not.toMatch(/\n\s+at /);
    }
    // Nothing was done meanwhile: the session is still there, as it was.
    expect((await nudge(["session", "show", recorded.id])).stdout).toContain("recorded prompt");
  }, 120_000);

  it("more of either id names that one", async () => {
    const mine = await nudge(["session", "show", recorded.id.slice(0, 9)]);
    expect(mine.exitCode, mine.stderr).toBe(0);
    expect(mine.stdout).toContain(`session ${recorded.id}`);
    const theirs = await nudge(["session", "show", claudeId.slice(0, 9)]);
    expect(theirs.exitCode, theirs.stderr).toBe(0);
    expect(theirs.stdout).toContain(`claude's own session ${claudeId}`);
    expect(theirs.stdout).toContain("asked without nudge");
  });

  it("adopt, which takes only claude's ids, adopts claude's one; then the prefix begins two nudge sessions' ids, one by claude's id", async () => {
    const adopt = await nudge(["session", "adopt", prefix]);
    expect(adopt.exitCode, adopt.stderr).toBe(0);
    expect(adopt.stdout).toContain(`adopted claude's session ${claudeId}`);
    const adopted = /as nudge session (\w+)/.exec(adopt.stdout)![1]!;
    // Once adopted, claude's id names the nudge session holding it: the prefix begins the recorded
    // session's id and claude's id of the adopted one, each said with what it is.
    const show = await nudge(["session", "show", prefix]);
    expect(show.exitCode).toBe(1);
    expect(show.stderr).toContain(`"${prefix}" is ambiguous`);
    const lines = show.stderr.split("\n");
    expect(lines.find((l) => l.includes(recorded.id))).toMatch(/^\s+\w+\s+nudge session$/);
    expect(lines.find((l) => l.includes(adopted))).toMatch(
      new RegExp(`^\\s+${adopted}\\s+nudge session holding claude's session ${claudeId}$`),
    );
    // More of either names it.
    expect((await nudge(["session", "show", recorded.id.slice(0, 9)])).stdout).toContain(`session ${recorded.id}`);
    expect((await nudge(["session", "show", claudeId.slice(0, 9)])).stdout).toContain(`session ${adopted}`);
  });
});
