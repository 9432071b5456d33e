/**
 * The first index of many recorded sessions is built by a background process: the search that
 * finds them not indexed answers at once from what is indexed and says how far the build is; once
 * it is done, the same search finds everything. An index of an older version is rebuilt the same way.
 */
import Database from "better-sqlite3";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeCorpus, PLANTED } from "../../bench/search-corpus.js";
import { gitdir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";

const PROGRESS =
  /^indexing (\d+) of 30 sessions \((\d+)%\) in the background — results so far are from the indexed part$/m;

describe("the search index's first build", () => {
  it("runs in the background with a progress line; a search meanwhile answers, and later finds all", async () => {
    const repo = await gitdir({ "README.md": "# test\n" });
    await makeCorpus(path.join(repo, ".git", "nudge"), repo, { sessions: 30, turns: 3, outputChars: 4000 });
    const search = (args: string[]) => runNudge(["session", "search", ...args], { cwd: repo });
    const done = async () => {
      for (let i = 0; i < 300; i++) {
        const run = await search([PLANTED.rare, "--json"]);
        if (!PROGRESS.test(run.stderr)) return run;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      throw new Error("the index was not built in 60 s");
    };
    const first = await search([PLANTED.rare]);
    expect(first.stderr).toMatch(PROGRESS);
    expect(Number(PROGRESS.exec(first.stderr)![1])).toBeLessThan(30);
    const built = await done();
    expect(built.exitCode, built.stderr).toBe(0);
    expect(
      (JSON.parse(built.stdout) as Array<{ session: string; turn: number }>).map((h) => [h.session, h.turn]),
    ).toEqual([["b000000007", 3]]);

    // An index of an older version: rebuilt, in the background again, with the same answer at the end.
    const db = new Database(path.join(repo, ".git", "nudge", "search", "index.sqlite"));
    db.prepare("UPDATE meta SET value = '3' WHERE key = 'version'").run();
    db.close();
    expect((await search([PLANTED.rare])).stderr).toMatch(PROGRESS);
    expect((await done()).stdout).toBe(built.stdout);
  }, 120_000);
});
