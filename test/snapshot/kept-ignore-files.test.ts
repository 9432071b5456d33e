/**
 * The ignore files of a kept private index, noted between processes: the same answer git gives,
 * with no git process while no config file changed, and git's new answer once one did (the
 * repository's config, the global one, an included file).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { askIgnoreFiles } from "../../src/snapshot/git.js";
import { keptIgnoreFiles, type ConfigPlaces } from "../../src/snapshot/kept-ignore-files.js";
import { git, gitdir, tempDir } from "../support/gitdir.js";

const saved = { ...process.env };
let trace: string;

beforeEach(() => {
  const home = tempDir();
  process.env.GIT_CONFIG_GLOBAL = path.join(home, "gitconfig");
  writeFileSync(process.env.GIT_CONFIG_GLOBAL, "");
  trace = path.join(home, "trace.json");
  process.env.GIT_TRACE2_EVENT = trace;
});

afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
});

/** The git commands run since the last call (from git's own trace). */
function gitRun(): string[] {
  if (!existsSync(trace)) return [];
  const commands = readFileSync(trace, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { event: string; argv?: string[] })
    .filter((e) => e.event === "start")
    .map((e) => e.argv!.filter((a, i, all) => a !== "-c" && all[i - 1] !== "-c").join(" "));
  writeFileSync(trace, "");
  return commands;
}

async function places(repo: string): Promise<ConfigPlaces> {
  const gitDir = path.join(repo, ".git");
  return { commonDir: gitDir, gitDir, noteFile: path.join(tempDir(), "worktree-index.ignore-files") };
}

describe("kept ignore files", () => {
  it("git is asked once, then again only after a config file changed", async () => {
    const repo = await gitdir();
    const where = await places(repo);
    await git(repo, "config", "core.excludesFile", "/somewhere/ignore-a");
    gitRun();
    expect(await keptIgnoreFiles(repo, where)).toEqual(await askIgnoreFiles(repo));
    expect((await keptIgnoreFiles(repo, where))[1]).toBe("/somewhere/ignore-a");
    expect(gitRun().filter((c) => c.includes("config"))).toHaveLength(2); // the first call and askIgnoreFiles
    expect(await keptIgnoreFiles(repo, where)).toEqual([expect.any(String), "/somewhere/ignore-a"]);
    expect(gitRun()).toEqual([]);

    // The repository's config, then the global one (which the repository's then no longer overrides).
    await git(repo, "config", "core.excludesFile", "/somewhere/ignore-b");
    expect((await keptIgnoreFiles(repo, where))[1]).toBe("/somewhere/ignore-b");
    await git(repo, "config", "--unset", "core.excludesFile");
    gitRun();
    writeFileSync(process.env.GIT_CONFIG_GLOBAL!, "[core]\n\texcludesFile = /global/ignore\n");
    expect((await keptIgnoreFiles(repo, where))[1]).toBe("/global/ignore");
    expect(gitRun().some((c) => c.includes("config"))).toBe(true);
  });

  it("a config with an include is asked of git every time", async () => {
    const repo = await gitdir();
    const where = await places(repo);
    const included = path.join(tempDir(), "included");
    writeFileSync(included, "[core]\n\texcludesFile = /included/one\n");
    await git(repo, "config", "include.path", included);
    expect((await keptIgnoreFiles(repo, where))[1]).toBe("/included/one");
    // The included file is not one the note could watch: changed, the answer follows it.
    writeFileSync(included, "[core]\n\texcludesFile = /included/two\n");
    expect((await keptIgnoreFiles(repo, where))[1]).toBe("/included/two");
    expect(existsSync(where.noteFile)).toBe(false);
  });
});
