/**
 * The views keep a session's parsed manifest between requests (nudge web asks for it once per
 * turn near the screen): what they answer is never older than the bundle. A session continued
 * (its journal grows) and then rewound (its header is replaced) is seen as it is now, at once.
 */
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/store.js";
import { sessionView, turnView } from "../../src/view/session-views.js";
import { claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { recordSession, runClaude, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";

const apis: ScriptedApi[] = [];
afterAll(async () => {
  for (const api of apis) await api.close();
});

describe("a session's views, read again after it changed", () => {
  it("show a turn added by a continued recording, and a rewind, though the same session was read just before", async () => {
    const repo = await gitdir();
    const r: Recorded = await recordSession(repo, [{ text: "first reply" }, { text: "second reply" }], ["one", "two"]);
    apis.push(r.api);
    const store = await openStore(repo);
    expect((await sessionView(store, r.id)).turns.map((t) => t.prompt)).toEqual([null, "one", "two"]);
    await turnView(store, r.id, 2); // read, and kept, twice

    const api = await startScriptedApi([{ text: "third reply" }]);
    apis.push(api);
    const more = await runClaude(repo, ["-r", r.id], claudeEnv(api, path.join(tempDir(), "cfg")), "three\n");
    expect(more.exitCode, more.stderr).toBe(0);
    const grown = await sessionView(store, r.id);
    expect(grown.turns.map((t) => t.prompt)).toEqual([null, "one", "two", "three"]);
    expect((await turnView(store, r.id, 3)).entries).toContainEqual(
      expect.objectContaining({ kind: "text", markdown: "third reply" }),
    );

    const rewound = await runNudge(["session", "rewind", r.id, "1", "--yes"], { cwd: repo });
    expect(rewound.exitCode, rewound.stderr).toBe(0);
    expect((await sessionView(store, r.id)).session.rewoundTo).toBe(1);
    expect((await turnView(store, r.id, 1)).entries).toContainEqual(expect.objectContaining({ kind: "mark" }));
  }, 60_000);
});
