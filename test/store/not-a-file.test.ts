/**
 * Anything but a file where nudge keeps one (a FIFO, a folder): never read or written as one. A
 * FIFO opened as a file blocks its opener until someone opens the other end, so every command
 * that touched it hung (a rewind halfway through its switch); a folder failed as a nudge bug.
 * Each command here ends, with one clear line where the damage is the session's own.
 */
import { execa } from "execa";
import { mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitdir, tempDir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";

let recorded: Recorded | undefined;
afterEach(async () => {
  await recorded?.api.close();
  recorded = undefined;
});

async function twoTurns(): Promise<{ repo: string; id: string; store: string }> {
  const repo = await gitdir();
  recorded = await recordSession(
    repo,
    [
      { tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "1\n" } },
      { text: "one" },
      { tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "2\n" } },
      { text: "two" },
    ],
    ["first", "second"],
  );
  return { repo, id: recorded.id, store: path.join(repo, ".git", "nudge") };
}

/** The command, bounded: a hang is a failure, said as one. */
const nudge = (repo: string, args: string[]) => runNudge(args, { cwd: repo, timeout: 20_000 });

const fifo = (file: string) => execa("mkfifo", [file]);

describe("a FIFO or a folder where nudge keeps a file", () => {
  it("in the store's change log, its session index or a rewind record: rewind, undo, list and backups end", async () => {
    const { repo, id, store } = await twoTurns();
    rmSync(path.join(store, "sessions-changed.log"), { force: true });
    await fifo(path.join(store, "sessions-changed.log"));
    const rewind = await nudge(repo, ["session", "rewind", id, "1", "--yes"]);
    expect(rewind.timedOut, "the rewind hung").toBeFalsy();
    expect(rewind.exitCode, rewind.stderr).toBe(0);
    const undo = await nudge(repo, ["session", "rewind", "--undo", "--yes"]);
    expect(undo.exitCode, undo.stderr).toBe(0); // not "interrupted halfway": the rewind had finished

    rmSync(path.join(store, "sessions-index.txt"), { force: true });
    await fifo(path.join(store, "sessions-index.txt"));
    const list = await nudge(repo, ["session", "list"]);
    expect(list.timedOut, "the listing hung").toBeFalsy();
    expect(list.stdout).toContain(id);

    const rewinds = path.join(store, "rewinds");
    const record = readdirSync(rewinds).find((n) => n.endsWith(".json"))!;
    rmSync(path.join(rewinds, record));
    await fifo(path.join(rewinds, record));
    for (const args of [
      ["session", "backups"],
      ["session", "rewind", id, "1", "--yes"],
      ["session", "rewind", "--undo", "--yes"],
    ]) {
      const r = await nudge(repo, args);
      expect(r.timedOut, `${args.join(" ")} hung`).toBeFalsy();
      expect(r.exitCode, `${args.join(" ")}: ${r.stderr}`).toBe(0);
    }
  }, 180_000);

  it("in a session's folder: show, replay and export refuse in one line, naming the file", async () => {
    const { repo, id, store } = await twoTurns();
    const bundle = path.join(store, "sessions", id);
    const kept = path.join(tempDir(), "kept");
    for (const name of ["turns.jsonl", "timing.txt"])
      for (const kind of ["fifo", "folder"] as const) {
        renameSync(path.join(bundle, name), kept);
        if (kind === "fifo") await fifo(path.join(bundle, name));
        else mkdirSync(path.join(bundle, name));
        const commands =
          name === "turns.jsonl"
            ? [
                ["show", id],
                ["replay", id],
              ]
            : [["replay", id]];
        commands.push(["export", id, "-o", path.join(tempDir(), "out.tar.gz")]);
        for (const args of commands) {
          const r = await nudge(repo, ["session", ...args]);
          const what = `${name} as a ${kind}: ${args[0]}`;
          expect(r.timedOut, `${what} hung`).toBeFalsy();
          expect(r.exitCode, `${what}: ${r.stderr}`).toBe(1);
          expect(r.stderr, what).toMatch(new RegExp(`^error: .*${name.replace(".", "\\.")} is not a file`, "m"));
          expect(r.stderr, what).not.toMatch(/nudge bug/);
        }
        rmSync(path.join(bundle, name), { recursive: true });
        renameSync(kept, path.join(bundle, name));
      }
    expect((await nudge(repo, ["session", "show", id])).exitCode).toBe(0);
  }, 180_000);

  it("an export given as a pipe is refused in one line, not a nudge bug", async () => {
    const { repo, id } = await twoTurns();
    const archive = path.join(tempDir(), "x.tar.gz");
    expect((await nudge(repo, ["session", "export", id, "-o", archive])).exitCode).toBe(0);
    const other = await gitdir();
    const pipe = path.join(tempDir(), "pipe");
    await fifo(pipe);
    const r = await nudge(other, ["session", "import", pipe]);
    expect(r.timedOut, "the import hung").toBeFalsy();
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/is not a file \(a pipe or a device\)/);
    expect(r.stderr).toMatch(/^hint: save it to a file first/m);
  }, 180_000);
});
