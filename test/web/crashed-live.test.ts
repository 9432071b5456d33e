/**
 * A recording whose nudge dies (kill -9) changes no file: only its lock stops being held. The
 * open pages hear of it all the same — the session's stream and the sessions stream each send an
 * event, and the session reads "crashed" — instead of showing it live until a reload.
 */
import { execa } from "execa";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { NUDGE_CLI } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { until } from "../support/until.js";
import { openSse, startWeb, type WebServerRun } from "../support/web-server.js";

let api: ScriptedApi | undefined;
let web: WebServerRun | undefined;
let release: (() => void) | undefined;
let orphan: number | undefined;
afterEach(async () => {
  if (orphan) process.kill(orphan, "SIGKILL");
  release?.();
  await web?.stop();
  await api?.close();
  web = api = release = orphan = undefined;
});

describe("nudge web: a recording killed", () => {
  it("is told to the open streams, and reads crashed", async () => {
    const repo = await gitdir();
    web = await startWeb(repo);
    const held = new Promise<void>((resolve) => (release = resolve));
    api = await startScriptedApi([{ textParts: ["Working, ", held, "done."] }]);
    const run = execa("node", [NUDGE_CLI, "claude", "run", "--claude-bin", CLAUDE_BIN], {
      cwd: repo,
      env: { NO_COLOR: "1", ...claudeEnv(api, path.join(tempDir(), "cfg")) },
      input: "work slowly\n",
      reject: false,
    });
    const id = await until("the live session is listed", async () => {
      const items = JSON.parse((await web!.get("/api/sessions")).body) as Array<{ id: string; state: string }>;
      return items.find((s) => s.state === "recording")?.id;
    });
    const lockFile = path.join(repo, ".git", "nudge", "sessions", id, "lock");
    orphan = await until(
      "claude's pid is in the lock",
      async () => (JSON.parse(readFileSync(lockFile, "utf8")) as { claude?: { pid: number } }).claude?.pid,
    );
    const list = openSse(web.port, "/api/events", { cookie: web.cookie });
    const session = openSse(web.port, `/api/sessions/${id}/events`, { cookie: web.cookie });
    await Promise.all([list.opened, session.opened]);
    await new Promise((r) => setTimeout(r, 1_200)); // both watches have had a look at the live state

    run.kill("SIGKILL");
    await run;
    const heard = Promise.all([session.next((e) => e.event === "session"), list.next((e) => e.event === "sessions")]);
    await Promise.race([
      heard,
      new Promise((_, reject) => setTimeout(() => reject(new Error("no event within 15 s of the kill")), 15_000)),
    ]);
    const view = JSON.parse((await web.get(`/api/sessions/${id}`)).body) as { session: { state: string } };
    expect(view.session.state).toBe("crashed");
    list.close();
    session.close();
  }, 60_000);
});
