/**
 * `nudge session gc` cleans nudge's sync repository (<store>/remote.git): the contents of
 * publications fetched to be shown or pulled go (fetched again when needed), and so does every
 * object no ref reaches (here: a blob like a refused publication's); the cards stay, and so does
 * what this clone published (the next push builds on it).
 */
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, tempDir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { configDir, origin } from "./share-support.js";

let rec: Recorded;
let a: string;
let clone: (name: string) => Promise<string>;

beforeAll(async () => {
  ({ clone } = await origin({ "README.md": "# app\n" }));
  a = await clone("ana");
  rec = await recordSession(
    a,
    [
      { tool: "Write", input: { file_path: path.join(a, "notes.txt"), content: "alpha\n" } },
      { text: "Wrote notes.txt." },
    ],
    ["write notes"],
  );
  const pushed = await runNudge(["session", "push"], { cwd: a, env: rec.env });
  expect(pushed.exitCode, pushed.stderr).toBe(0);
}, 120_000);
afterAll(() => rec?.api.close());

const syncRepoOf = async (cwd: string) =>
  path.join(path.resolve(cwd, await git(cwd, "rev-parse", "--git-common-dir")), "nudge", "remote.git");
const has = (repo: string, id: string) =>
  git(repo, "cat-file", "-e", id).then(
    () => true,
    () => false,
  );

describe("session gc and the sync repository", () => {
  it("drops fetched contents and unreachable objects; keeps the cards and what was published from here", async () => {
    const b = await clone("bob");
    const cfg = configDir();
    expect((await runNudge(["session", "fetch"], { cwd: b })).exitCode).toBe(0);
    const shown = await runNudge(["session", "show", rec.id, "--remote"], { cwd: b, env: { CLAUDE_CONFIG_DIR: cfg } });
    expect(shown.exitCode, shown.stderr).toBe(0);
    const repo = await syncRepoOf(b);
    const dataRef = `refs/nudge/remote/origin/${rec.id}/data`;
    const data = await git(repo, "rev-parse", dataRef);
    // An object no ref reaches, as a refused publication leaves one.
    const file = path.join(tempDir(), "stray.txt");
    writeFileSync(file, "a blob no ref reaches\n");
    const planted = await git(repo, "hash-object", "-w", file);
    expect(planted).toMatch(/^[0-9a-f]{40}$/);

    const dry = await runNudge(["session", "gc", "--dry-run"], { cwd: b });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(
      "nudge's sync repository: 1 fetched publication content (fetched again when pulled or shown), objects no ref reaches, the rest repacked",
    );
    // The view `show --remote` made (a scratch repository and store) is a cache too.
    const view = path.join(path.dirname(repo), "remote-view", "origin", rec.id);
    expect(existsSync(path.join(view, "data"))).toBe(true);
    expect(dry.stdout).toContain(`the view of published session ${rec.id} that --remote made (made again when shown)`);
    expect(await has(repo, planted)).toBe(true);

    const gc = await runNudge(["session", "gc", "--yes"], { cwd: b });
    expect(gc.exitCode, gc.stderr).toBe(0);
    expect(await git(repo, "for-each-ref", "--format=%(refname)", "refs/nudge/remote/")).toBe(
      `refs/nudge/remote/origin/${rec.id}/card`,
    );
    expect(await has(repo, planted)).toBe(false);
    expect(await has(repo, data)).toBe(false);
    expect(existsSync(view)).toBe(false);
    // Nothing left to do: a second gc plans nothing there.
    const nothing = (await runNudge(["session", "gc", "--dry-run"], { cwd: b })).stdout;
    expect(nothing).not.toContain("sync repository");
    expect(nothing).not.toContain("the view of published session");

    // The listing still reads; show fetches the content again.
    const listed = await runNudge(["session", "list", "--remote", "--json"], { cwd: b });
    expect(JSON.parse(listed.stdout)).toMatchObject([{ id: rec.id }]);
    const again = await runNudge(["session", "show", rec.id, "--remote"], { cwd: b, env: { CLAUDE_CONFIG_DIR: cfg } });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toContain("write notes");
    expect(existsSync(path.join(view, "data"))).toBe(true);

    // Ana's own publication stays in hers: the next push builds on it.
    const anaRepo = await syncRepoOf(a);
    const mine = await git(anaRepo, "for-each-ref", "--format=%(objectname)", "refs/nudge/mine/");
    expect((await runNudge(["session", "gc", "--yes"], { cwd: a, env: rec.env })).exitCode).toBe(0);
    expect(await git(anaRepo, "for-each-ref", "--format=%(objectname)", "refs/nudge/mine/")).toBe(mine);
    expect(await has(anaRepo, mine)).toBe(true);
    const unchanged = await runNudge(["session", "push"], { cwd: a, env: rec.env });
    expect(unchanged.exitCode, unchanged.stderr).toBe(0);
    expect(unchanged.stdout).toContain("nothing to push");
  }, 180_000);
});
