/**
 * A `session pull --force` killed while it installs (NUDGE_FAULT=<point>:kill) must not cost the
 * session it replaces, nor a turn recorded after it: the next command of any kind undoes the
 * half-done pull from its journal before it reads or continues anything, and says so. Bob holds
 * an older copy of Ana's session (imported from her export); Ana publishes a newer one, which
 * Bob pulls with --force.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claudeEnv } from "../support/claude-env.js";
import { tempDir } from "../support/gitdir.js";
import { recordSession, runClaude, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi } from "../support/scripted-api.js";
import { configDir, origin } from "./share-support.js";

let rec: Recorded;
let clone: (name: string) => Promise<string>;
/** Ana's export of the session as it was at two turns: Bob's copy. */
let older: string;

beforeAll(async () => {
  ({ clone } = await origin({ "README.md": "# app\n" }));
  const a = await clone("ana");
  rec = await recordSession(
    a,
    [
      { tool: "Write", input: { file_path: path.join(a, "notes.txt"), content: "alpha\n" } },
      { text: "Wrote notes.txt." },
      { text: "Nothing else to do." },
    ],
    ["write notes", "anything else?"],
  );
  older = path.join(tempDir("nudge-archive-"), "older.tar.gz");
  expect((await runNudge(["session", "export", rec.id, "-o", older], { cwd: a, env: rec.env })).exitCode).toBe(0);
  const api = await startScriptedApi([{ text: "Ana's third turn." }]);
  try {
    expect(
      (await runClaude(a, ["-r", rec.id], claudeEnv(api, rec.env.CLAUDE_CONFIG_DIR!), "a third turn\n")).exitCode,
    ).toBe(0);
  } finally {
    await api.close();
  }
  const pushed = await runNudge(["session", "push", rec.id], { cwd: a, env: rec.env });
  expect(pushed.exitCode, pushed.stderr).toBe(0);
}, 120_000);
afterAll(() => rec?.api.close());

/** Bob's clone holding the older copy, fetched from origin, with his own claude config dir. */
async function bob(name: string) {
  const b = await clone(name);
  const env = { CLAUDE_CONFIG_DIR: configDir() };
  const imported = await runNudge(["session", "import", older], { cwd: b, env });
  expect(imported.exitCode, imported.stderr).toBe(0);
  expect((await runNudge(["session", "fetch"], { cwd: b, env })).exitCode).toBe(0);
  return { b, env };
}

async function listed(
  b: string,
  env: Record<string, string>,
): Promise<Array<{ id: string; turns: number; lastPrompt: string | null }>> {
  const list = await runNudge(["session", "list", "--json"], { cwd: b, env });
  expect(list.exitCode, list.stderr).toBe(0);
  return JSON.parse(list.stdout);
}

describe("a pull --force cut off while installing", () => {
  it("killed as claude's files are placed: the next claude run -r undoes it first, the new turn lands on Bob's copy, and gc and pull work after", async () => {
    const { b, env } = await bob("bob place");
    const killed = await runNudge(["session", "pull", rec.id, "--force"], {
      cwd: b,
      env: { ...env, NUDGE_FAULT: "import-place:kill" },
    });
    expect(killed.signal, killed.stderr).toBe("SIGKILL");

    const api = await startScriptedApi([{ text: "Bob's own turn." }]);
    const run = await runClaude(b, ["-r", rec.id], claudeEnv(api, env.CLAUDE_CONFIG_DIR), "bob goes on\n").finally(() =>
      api.close(),
    );
    expect(run.exitCode, run.stderr).toBe(0);
    const said = JSON.stringify(api.mainLoopRequests()[0]!.body.messages);

    // The sequence went wrong here: gc undid the pull over Bob's new turn and failed (exit 2, "cannot lock ref").
    const gc = await runNudge(["session", "gc", "--yes"], { cwd: b, env });
    expect(gc.exitCode, gc.stderr).toBe(0);
    expect(await listed(b, env)).toMatchObject([{ id: rec.id, turns: 3, lastPrompt: "bob goes on" }]);
    expect(readdirSync(path.join(b, ".git", "nudge", "work"))).toEqual([]);
    // The run undid the cut-off pull before it continued: claude was handed Bob's copy (two turns), not Ana's third turn.
    expect(run.stderr).toContain(
      `nudge: a pull of session ${rec.id} from origin was cut off (its nudge was killed): what it had done is undone; run it again`,
    );
    expect(said).toContain("anything else?");
    expect(said).not.toContain("a third turn");

    // Pulled again, whole: Bob's continued copy is set aside, and the pull says where.
    const again = await runNudge(["session", "pull", rec.id, "--force"], { cwd: b, env });
    expect(again.exitCode, again.stderr).toBe(0);
    expect((await runNudge(["session", "gc", "--yes"], { cwd: b, env })).exitCode).toBe(0);
  }, 120_000);

  it.each(["import-refs", "import-bundle"])(
    "killed at %s: the next command finds Bob's copy again, and says the pull was undone",
    async (point) => {
      const { b, env } = await bob(`bob ${point}`);
      const killed = await runNudge(["session", "pull", rec.id, "--force"], {
        cwd: b,
        env: { ...env, NUDGE_FAULT: `${point}:kill` },
      });
      expect(killed.signal, killed.stderr).toBe("SIGKILL");

      const shown = await runNudge(["session", "show", rec.id], { cwd: b, env });
      expect(shown.exitCode, shown.stderr).toBe(0);
      expect(shown.stderr).toContain(
        `nudge: a pull of session ${rec.id} from origin was cut off (its nudge was killed): what it had done is undone; run it again`,
      );
      expect(shown.stdout).toContain("anything else?");
      expect(shown.stdout).not.toContain("a third turn");
      expect(await listed(b, env)).toMatchObject([{ id: rec.id, turns: 2 }]);
    },
    120_000,
  );
});
