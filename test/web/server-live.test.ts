/**
 * Live, over real HTTP: a session recorded by the real claude (scripted API, its reply held in
 * parts) while `nudge web` serves the repository. The sessions stream says a session appeared;
 * the session's stream sends a `turn` event while claude writes, the turn in flight is served,
 * and a `session` event when the turn is saved; a reconnect with Last-Event-ID is answered at
 * once. SIGINT stops the server with status 0 and ends the open streams.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { until } from "../support/until.js";
import { expectCleanStop, openSse, startWeb, type WebServerRun } from "../support/web-server.js";

let api: ScriptedApi | undefined;
let web: WebServerRun | undefined;
afterEach(async () => {
  await web?.stop();
  await api?.close();
  web = api = undefined;
});

const gate = () => {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
};

describe("nudge web: live", () => {
  it("streams a turn event while claude writes, serves the turn in flight, and a session event when it is saved", async () => {
    const repo = await gitdir();
    web = await startWeb(repo);
    const list = openSse(web.port, "/api/events", { cookie: web.cookie });
    await list.opened;
    const first = gate();
    const second = gate();
    api = await startScriptedApi([
      { textParts: ["The first part, ", first.promise, "the second part, ", second.promise, "and the last part."] },
    ]);
    const run = runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN], {
      cwd: repo,
      env: claudeEnv(api, path.join(tempDir(), "cfg")),
      input: "tell it in parts\n",
    });

    await list.next((e) => e.event === "sessions");
    const id = await until("the live session is listed", async () => {
      const items = JSON.parse((await web!.get("/api/sessions")).body) as Array<{ id: string; state: string }>;
      return items.find((s) => s.state === "recording")?.id;
    });
    // The turn is in flight: its view comes from the journal's unsaved record.
    const inFlight = await until("the turn in flight is served", async () => {
      const answer = await web!.get(`/api/sessions/${id}/turns/1`);
      return answer.status === 200
        ? (JSON.parse(answer.body) as { summary: { n: number }; entries: Array<{ kind: string; text?: string }> })
        : undefined;
    });
    expect(inFlight.summary.n).toBe(1);
    // Titled by its prompt from the start, not "(no prompt)" until the first turn is saved (QA of issue 16).
    const listed = JSON.parse((await web.get("/api/sessions")).body) as Array<{
      id: string;
      firstPrompt: string | null;
    }>;
    expect(listed.find((s) => s.id === id)?.firstPrompt).toBe("tell it in parts");
    expect(
      (JSON.parse((await web.get(`/api/sessions/${id}`)).body) as { session: { firstPrompt: string | null } }).session
        .firstPrompt,
    ).toBe("tell it in parts");
    expect(inFlight.entries).toContainEqual(expect.objectContaining({ kind: "prompt", text: "tell it in parts" }));

    const stream = openSse(web.port, `/api/sessions/${id}/events`, { cookie: web.cookie });
    const res = await stream.opened;
    expect(res.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    first.open();
    const turn = await stream.next((e) => e.event === "turn");
    expect(JSON.parse(turn.data)).toEqual({ n: 1 });
    // Still recording: claude has not finished its reply.
    const view = JSON.parse((await web.get(`/api/sessions/${id}`)).body) as {
      pending: { n: number } | null;
      session: { state: string };
    };
    expect(view.pending?.n).toBe(1);
    expect(view.session.state).toBe("recording");

    second.open();
    const saved = await stream.next(
      (e) => e.event === "session" && (JSON.parse(e.data) as { turns: number }).turns === 1,
    );
    expect(JSON.parse(saved.data)).toEqual({ turns: 1, pending: null });
    const ids = stream.events.map((e) => Number(e.id));
    expect(ids).toEqual(ids.map((_, i) => i + 1)); // one counter, no gaps
    const done = JSON.parse((await web.get(`/api/sessions/${id}/turns/1`)).body) as {
      entries: Array<{ kind: string; markdown?: string }>;
    };
    expect(done.entries.filter((e) => e.kind === "text").map((e) => e.markdown)).toEqual([
      "The first part, the second part, and the last part.",
    ]);
    expect((await run).exitCode).toBe(0);

    // A reconnect (EventSource sends the last id it saw): the state at once, ids going on from there.
    const again = openSse(web.port, `/api/sessions/${id}/events`, { cookie: web.cookie, "last-event-id": "41" });
    const caughtUp = await again.next((e) => e.event === "session");
    expect(caughtUp.id).toBe("42");
    expect(JSON.parse(caughtUp.data)).toMatchObject({ turns: 1, pending: null });
    again.close();
    stream.close();
    list.close();
  });

  it("a restart keeps the page's login: same port, its cookie and CSRF token still work, its event stream reconnects and catches up", async () => {
    const repo = await gitdir();
    const first = await startWeb(repo, {}, [], null);
    const page = { cookie: first.cookie, csrf: first.csrf, origin: first.origin, port: first.port };
    await expectCleanStop(first);
    expect(statSync(path.join(repo, ".git", "nudge", "web-login.json")).mode & 0o777).toBe(0o600);

    web = await startWeb(repo, {}, [], null);
    expect(web.port).toBe(page.port);
    expect((await web.request("/api/sessions", { headers: { cookie: page.cookie } })).status).toBe(200);
    const stream = openSse(web.port, "/api/events", { cookie: page.cookie, "last-event-id": "7" });
    expect((await stream.opened).statusCode).toBe(200);
    stream.close();
    // The page's CSRF token, read from its document before the restart, still passes the guard.
    const action = await web.request("/api/sessions/nosuchsession/rm", {
      method: "POST",
      headers: {
        cookie: page.cookie,
        origin: page.origin,
        "x-nudge-csrf": page.csrf,
        "content-type": "application/json",
      },
      body: JSON.stringify({ confirm: false }),
    });
    expect(action.status).toBe(404);
  });

  it("stops on SIGINT with status 0, ending the open event streams", async () => {
    const repo = await gitdir();
    web = await startWeb(repo);
    const streams = [
      openSse(web.port, "/api/events", { cookie: web.cookie }),
      openSse(web.port, "/api/events", { cookie: web.cookie }),
    ];
    await Promise.all(streams.map((s) => s.opened));
    const stopped = await web.stop("SIGINT");
    web = undefined;
    expect(stopped.exitCode).toBe(0);
    await Promise.all(streams.map((s) => s.ended));
    expect(stopped.stderr).not.toMatch(/error|bug/i);
  });
});
