/**
 * A session recorded under claude's own UI (`nudge claude run --tui`, the real claude in tmux
 * against the scripted API) handed on: Ana pushes it to `git daemon` on loopback, Bob (another
 * clone, another claude config) fetches and pulls it and continues it in claude's UI with
 * `--tui -r`: the next API request holds Ana's turns. The same through `export` / `import` to Carol.
 */
import path from "node:path";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { git, tempDir } from "../support/gitdir.js";
import { startGitDaemon } from "../support/git-servers.js";
import { readManifestFile } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi, type ScriptStep } from "../support/scripted-api.js";
import { Terminal, tuiEnv } from "../support/tui.js";
import { origin } from "../sharing/share-support.js";

const apis: ScriptedApi[] = [];
afterEach(async () => {
  await Promise.all(apis.splice(0).map((a) => a.close()));
});

const sessions = (repo: string) => path.join(repo, ".git", "nudge", "sessions");

/**
 * Claude's UI under nudge in `repo`: each prompt typed and the answer `answers[i]` waited for (a
 * resumed screen shows the earlier turns' answers too: each is unique), then /exit; the session id.
 */
async function tui(repo: string, args: string[], steps: ScriptStep[], prompts: string[], answers: string[]) {
  const api = await startScriptedApi(steps);
  apis.push(api);
  const env = tuiEnv(api, path.join(tempDir(), "cfg"), repo);
  const term = Terminal.nudge(
    ["claude", "run", "--tui", ...args, "--permission-mode", "acceptEdits", "--allowed-tools", "Bash"],
    { cwd: repo, env },
  );
  await term.ready();
  for (const [i, prompt] of prompts.entries()) {
    await term.type(prompt);
    await term.waitFor(new RegExp(answers[i]!));
  }
  await term.type("/exit");
  expect(await term.exited()).toBe(0);
  const id = /recorded session (\w+):/.exec(term.screen())?.[1];
  expect(id, term.screen()).toBeDefined();
  return { id: id!, api, env };
}

describe("a claude run --tui session shared", () => {
  it("pushed to git daemon, pulled by a teammate who continues it in claude's UI; exported and imported likewise", async () => {
    const { bare, clone } = await origin({ "README.md": "# app\n" });
    const a = await clone("ana");
    const ana = await tui(
      a,
      [],
      [
        { tool: "Write", input: { file_path: path.join(a, "notes.txt"), content: "alpha\nbeta\n" } },
        { text: "wrote notes.txt" },
        { tool: "Bash", input: { command: "sed -i s/beta/BETA/ notes.txt", description: "edit notes" } },
        { text: "edited notes.txt" },
      ],
      ["write notes", "shout beta"],
      ["wrote notes", "edited notes"],
    );

    const base = tempDir("nudge-servers-");
    await git(base, "clone", "-q", "--bare", bare, path.join(base, "team.git"));
    const url = (await startGitDaemon(base)).url("team.git");
    const pushed = await runNudge(["session", "push", ana.id, "--remote", url], { cwd: a });
    expect(pushed.exitCode, pushed.stderr).toBe(0);
    expect(pushed.stdout).toContain(`published session ${ana.id} to ${url} (2 turns)`);

    // Bob: another clone, another claude config.
    const b = await clone("bob");
    expect((await runNudge(["session", "fetch", "--remote", url], { cwd: b })).exitCode).toBe(0);
    const pulled = await runNudge(["session", "pull", ana.id, "--remote", url], { cwd: b });
    expect(pulled.exitCode, pulled.stderr).toBe(0);
    const shown = await runNudge(["session", "show", ana.id], { cwd: b });
    expect(shown.stdout).toContain("shout beta");
    const rewound = await runNudge(["session", "rewind", ana.id, "2", "--yes"], { cwd: b });
    expect(rewound.exitCode, rewound.stderr).toBe(0);
    expect(readFileSync(path.join(b, "notes.txt"), "utf8")).toBe("alpha\nBETA\n");
    const bob = await tui(
      b,
      ["-r", ana.id],
      [{ text: "we wrote and shouted" }],
      ["what did we do?"],
      ["we wrote and shouted"],
    );
    expect(bob.id).toBe(ana.id);
    const asked = JSON.stringify(bob.api.mainLoopRequests()[0]!.body.messages);
    for (const said of ["write notes", "wrote notes.txt", "shout beta", "edited notes.txt", "what did we do?"])
      expect(asked).toContain(said);
    expect(readManifestFile(path.join(sessions(b), ana.id)).turns.map((t) => t.prompt)).toEqual([
      null,
      "write notes",
      "shout beta",
      "what did we do?",
    ]);
    // His continuation goes back as a fork of Ana's.
    const forked = await runNudge(["session", "push", ana.id, "--remote", url], { cwd: b });
    expect(forked.exitCode, forked.stderr).toBe(0);
    expect(forked.stdout).toMatch(new RegExp(`as [0-9a-f]{10}, a fork of ${ana.id}@2 \\(3 turns\\)`));

    // Carol gets it as a file.
    const archive = path.join(tempDir(), "ana.tar.gz");
    const exported = await runNudge(["session", "export", ana.id, "-o", archive], { cwd: a });
    expect(exported.exitCode, exported.stderr).toBe(0);
    const c = await clone("carol");
    const imported = await runNudge(["session", "import", archive], { cwd: c });
    expect(imported.exitCode, imported.stderr).toBe(0);
    expect((await runNudge(["session", "rewind", ana.id, "1", "--yes"], { cwd: c })).exitCode).toBe(0);
    expect(readFileSync(path.join(c, "notes.txt"), "utf8")).toBe("alpha\nbeta\n");
    const carol = await tui(
      c,
      ["-r", ana.id],
      [{ text: "going on from turn one" }],
      ["where are we?"],
      ["going on from turn one"],
    );
    const carolAsked = JSON.stringify(carol.api.mainLoopRequests()[0]!.body.messages);
    expect(carolAsked).toContain("wrote notes.txt");
    expect(carolAsked).toContain("where are we?");
    expect(carolAsked).not.toContain("shout beta");
    const replay = await runNudge(["session", "replay", carol.id], { cwd: c });
    expect(replay.stdout).toContain("going on from turn one");
  }, 240_000);
});
