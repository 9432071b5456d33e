/**
 * Driving a session from the page, over real HTTP (the built `nudge web`, the real claude, the
 * scripted API): start it with a prompt; claude's Write is asked and allowed (the file is
 * written); a Bash is denied with a reason (claude receives the reason, nothing ran); the turns
 * are recorded as a terminal records them; a prompt sent while claude works is refused; Stop
 * interrupts a slow turn; stopping the server saves the session and releases its lock.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { until } from "../support/until.js";
import { openSse, startWeb, type WebServerRun } from "../support/web-server.js";
import { DATABASE_QUESTION } from "../support/questions.js";

let api: ScriptedApi | undefined;
let web: WebServerRun | undefined;
afterEach(async () => {
  await web?.stop();
  await api?.close();
  web = api = undefined;
});

interface LiveState {
  busy: boolean;
  ended: boolean;
  question: { id: number; kind: string; tool?: string; input?: Record<string, unknown> } | null;
  notices: Array<{ text: string }>;
}

const state = async (id: string) => JSON.parse((await web!.get(`/api/live/${id}`)).body) as LiveState;
const question = (id: string) => until("a question", async () => (await state(id)).question ?? undefined);
const idle = (id: string) => until("the turn's end", async () => ((await state(id)).busy ? undefined : true));

/** `nudge web` in `repo`, its sessions' claude the real one talking to `scripted`. */
const serveDriving = (repo: string, scripted: ScriptedApi, args: string[] = []) =>
  startWeb(repo, { ...claudeEnv(scripted, path.join(tempDir(), "cfg")), NUDGE_CLAUDE_BIN: CLAUDE_BIN }, args);

/** A session driven from the page with two saved turns, one Write each (a.txt, then b.txt); its id. */
async function twoWrites(repo: string): Promise<string> {
  api = await startScriptedApi([
    { tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "a\n" } },
    { text: "wrote a" },
    { tool: "Write", input: { file_path: path.join(repo, "b.txt"), content: "b\n" } },
    { text: "wrote b" },
  ]);
  web = await serveDriving(repo, api);
  const { id } = JSON.parse(
    (await web.post("/api/live", { prompt: "write a", permissionMode: "acceptEdits" })).body,
  ) as { id: string };
  await idle(id);
  await web.post(`/api/live/${id}/prompt`, { text: "write b" });
  await idle(id);
  return id;
}

describe("driving a session from the page", () => {
  it("asks for a Write and writes it once allowed, denies a Bash with a reason claude receives, and records both turns", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(repo, "hello.txt"), content: "hello\n" } },
      { text: "Wrote hello.txt." },
      { tool: "Bash", input: { command: "touch ran.txt", description: "touch" } },
      { text: "Not run, as you said." },
    ]);
    web = await serveDriving(repo, api);
    const started = await web.post("/api/live", { prompt: "write hello" });
    expect(started.status, started.body).toBe(200);
    const { id } = JSON.parse(started.body) as { id: string };
    const events = openSse(web.port, `/api/sessions/${id}/events`, { cookie: web.cookie });
    await events.opened;

    const write = await question(id);
    expect(write).toMatchObject({ kind: "permission", tool: "Write" });
    expect(existsSync(path.join(repo, "hello.txt"))).toBe(false);
    // A prompt while claude waits on its question is refused, with why.
    const early = await web.post(`/api/live/${id}/prompt`, { text: "and more" });
    expect(early.status).toBe(409);
    expect(JSON.parse(early.body).error).toContain("waiting for an answer");
    expect(
      (
        await web.post(`/api/live/${id}/answer`, {
          question: write.id,
          reply: { kind: "permission", answer: { kind: "yes" } },
        })
      ).status,
    ).toBe(200);
    await idle(id);
    expect(readFileSync(path.join(repo, "hello.txt"), "utf8")).toBe("hello\n");
    // The page heard of it on the session's stream.
    await events.next((e) => e.event === "live");

    expect((await web.post(`/api/live/${id}/prompt`, { text: "touch a file" })).status).toBe(202);
    const bash = await question(id);
    expect(bash).toMatchObject({ kind: "permission", tool: "Bash" });
    // An answer to a question no longer asked is refused.
    expect(
      (
        await web.post(`/api/live/${id}/answer`, {
          question: write.id,
          reply: { kind: "permission", answer: { kind: "yes" } },
        })
      ).status,
    ).toBe(409);
    const reason = "no touching files today";
    expect(
      (
        await web.post(`/api/live/${id}/answer`, {
          question: bash.id,
          reply: { kind: "permission", answer: { kind: "no", reason } },
        })
      ).status,
    ).toBe(200);
    await idle(id);
    expect(existsSync(path.join(repo, "ran.txt"))).toBe(false);
    expect(JSON.stringify(api.mainLoopRequests().at(-1)!.body)).toContain(reason);

    expect((await web.post(`/api/live/${id}/end`, {})).status).toBe(200);
    await until("the session ends", async () => ((await state(id)).ended ? true : undefined));
    events.close();
    // Recorded as a terminal records: show and diff work on it.
    const show = await runNudge(["session", "show", id], { cwd: repo });
    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/write hello/);
    expect(show.stdout).toMatch(/touch a file/);
    const list = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout) as Array<{
      id: string;
      state: string;
      turns: number;
    }>;
    expect(list.find((s) => s.id === id)).toMatchObject({ state: "complete", turns: 2 });
  }, 60_000);

  it("stops a slow turn on Stop, and a server stopped mid-session leaves it saved and unlocked", async () => {
    const repo = await gitdir();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    api = await startScriptedApi([
      { textParts: ["Thinking it over… ", held, "done."] },
      { text: "second" },
      { textParts: ["slow again ", new Promise(() => {})] },
    ]);
    web = await serveDriving(repo, api);
    const { id } = JSON.parse((await web.post("/api/live", { prompt: "take your time" })).body) as { id: string };
    await until("claude asks the API", async () => (api!.mainLoopRequests().length === 1 ? true : undefined));
    const busy = await web.post(`/api/live/${id}/prompt`, { text: "hurry" });
    expect(busy.status).toBe(409);
    expect(JSON.parse(busy.body).error).toContain("still working");
    const stopped = await web.post(`/api/live/${id}/stop`, {});
    expect(JSON.parse(stopped.body)).toEqual({ state: "interrupting" });
    await idle(id);
    release();
    expect((await web.post(`/api/live/${id}/prompt`, { text: "again" })).status).toBe(202);
    await idle(id);
    expect((await web.post(`/api/live/${id}/prompt`, { text: "one more, slowly" })).status).toBe(202);
    await until("claude asks the API", async () => (api!.mainLoopRequests().length === 3 ? true : undefined));
    const end = await web.stop();
    web = undefined;
    expect(end.exitCode).toBe(0);
    const list = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout) as Array<{
      id: string;
      state: string;
      turns: number;
    }>;
    expect(list.find((s) => s.id === id)).toMatchObject({ state: "complete", turns: 3 });
    const show = JSON.parse((await runNudge(["session", "show", id, "--json"], { cwd: repo })).stdout) as {
      turns: Array<{ n: number; status: string }>;
    };
    expect(show.turns.filter((t) => t.n > 0).map((t) => t.status)).toEqual(["interrupted", "complete", "interrupted"]);
  }, 60_000);

  it("a prompt sent while the last turn is still being saved: Stop takes it back; the server stopped then says it was not sent (QA)", async () => {
    const repo = await gitdir();
    const release = path.join(tempDir(), "release");
    api = await startScriptedApi([{ text: "first done" }, { text: "never asked for" }]);
    // Turn 1's save held after its snapshot (turn 0 has no such point): the page is idle (claude's result is in), the loop is not.
    web = await startWeb(repo, {
      ...claudeEnv(api, path.join(tempDir(), "cfg")),
      NUDGE_CLAUDE_BIN: CLAUDE_BIN,
      NUDGE_FAULT: "after-snapshot:hold",
      NUDGE_FAULT_RELEASE: release,
    });
    const { id } = JSON.parse((await web.post("/api/live", { prompt: "first" })).body) as { id: string };
    await idle(id);
    expect((await web.post(`/api/live/${id}/prompt`, { text: "second, please" })).status).toBe(202);
    expect((await state(id)).busy).toBe(true);
    const stopped = await web.post(`/api/live/${id}/stop`, {});
    expect(JSON.parse(stopped.body)).toEqual({ state: "withdrawn" });
    const after = await state(id);
    expect(after.busy).toBe(false);
    expect(after.notices.map((n) => n.text)).toContain("stopped before it went to claude: not sent: second, please");
    // Sent again, then the server is stopped while it still waits for the save.
    expect((await web.post(`/api/live/${id}/prompt`, { text: "third one" })).status).toBe(202);
    const stopping = web.stop();
    await until("the server's word on the prompt", async () => (web!.stderr().includes("not sent") ? true : undefined));
    writeFileSync(release, "");
    const end = await stopping;
    web = undefined;
    expect(end.exitCode).toBe(0);
    expect(end.stderr).toContain(
      `! session ${id}: a prompt from the page was not sent, the session ended first: "third one"`,
    );
    expect(end.stderr).not.toContain("second, please");
    // Neither reached claude; the first turn is saved whole.
    expect(api.mainLoopRequests()).toHaveLength(1);
    const show = JSON.parse((await runNudge(["session", "show", id, "--json"], { cwd: repo })).stdout) as {
      turns: Array<{ n: number; prompt: string | null; status: string }>;
    };
    expect(show.turns.filter((t) => t.n > 0).map((t) => [t.prompt, t.status])).toEqual([["first", "complete"]]);
  }, 60_000);

  it("drives at most --max-live sessions at once, and a start past it says why", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ text: "first" }]);
    web = await serveDriving(repo, api, ["--max-live", "1"]);
    const first = await web.post("/api/live", { prompt: "one" });
    expect(first.status, first.body).toBe(200);
    const second = await web.post("/api/live", { prompt: "two" });
    expect(second.status).toBe(409);
    expect(JSON.parse(second.body)).toMatchObject({
      error: "a session is already driven from this page (--max-live 1)",
      hint: expect.stringContaining("End session"),
    });
    // Bad input is refused before anything starts: an option that would be a flag of claude's.
    const flag = await web.post("/api/live", { prompt: "x", model: "--dangerously-skip-permissions" });
    expect(flag.status).toBe(400);
  }, 60_000);

  it("'always' is not asked again for the same call; AskUserQuestion's answer and a plan's approval reach claude", async () => {
    const repo = await gitdir();
    const write = { tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "a\n" } };
    api = await startScriptedApi([
      write,
      write,
      { text: "wrote it twice" },
      { tool: "AskUserQuestion", input: { questions: [DATABASE_QUESTION] } },
      { text: "SQLite it is" },
      { tool: "ExitPlanMode", input: { plan: "1. Add the function\n2. Test it" } },
      { text: "IMPLEMENTING" },
    ]);
    web = await serveDriving(repo, api);
    const { id } = JSON.parse((await web.post("/api/live", { prompt: "write it twice" })).body) as { id: string };
    const first = await question(id);
    expect(
      (
        await web.post(`/api/live/${id}/answer`, {
          question: first.id,
          reply: { kind: "permission", answer: { kind: "always" } },
        })
      ).status,
    ).toBe(200);
    await idle(id);
    expect(api.mainLoopRequests()).toHaveLength(3); // both Writes ran, one question asked
    expect((await state(id)).question).toBeNull();

    await web.post(`/api/live/${id}/prompt`, { text: "pick a database" });
    const asked = await question(id);
    expect(asked).toMatchObject({
      kind: "questions",
      questions: [expect.objectContaining({ question: "Which database should I use?" })],
    });
    await web.post(`/api/live/${id}/answer`, {
      question: asked.id,
      reply: { kind: "questions", answers: { "Which database should I use?": "SQLite" } },
    });
    await idle(id);
    expect(JSON.stringify(api.mainLoopRequests()[4]!.body)).toContain(
      '\\"Which database should I use?\\"=\\"SQLite\\"',
    );

    // A plan is asked in plan mode: a second session, started so.
    await web.post(`/api/live/${id}/end`, {});
    await until("the first session ends", async () => ((await state(id)).ended ? true : undefined));
    const planning = JSON.parse((await web.post("/api/live", { prompt: "plan it", permissionMode: "plan" })).body) as {
      id: string;
    };
    const plan = await question(planning.id);
    expect(plan).toMatchObject({ kind: "plan", plan: "1. Add the function\n2. Test it" });
    await web.post(`/api/live/${planning.id}/answer`, {
      question: plan.id,
      reply: { kind: "plan", answer: { approve: true } },
    });
    await idle(planning.id);
    expect(JSON.stringify(api.mainLoopRequests()[6]!.body)).toContain("User has approved");
  }, 60_000);

  it("claude killed between turns: the page is told, and the next prompt resumes the same conversation", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ text: "remembered: the word is PELICAN" }, { text: "it was PELICAN" }]);
    web = await serveDriving(repo, api);
    const { id } = JSON.parse((await web.post("/api/live", { prompt: "remember PELICAN" })).body) as { id: string };
    await idle(id);
    const lockFile = path.join(repo, ".git", "nudge", "sessions", id, "lock");
    const pid = await until(
      "claude's pid is in the lock",
      async () => (JSON.parse(readFileSync(lockFile, "utf8")) as { claude: { pid: number } | null }).claude?.pid,
    );
    process.kill(pid, "SIGKILL");
    await until("the page is told claude stopped", async () =>
      (await state(id)).notices.some((n) => /claude/i.test(n.text)) ? true : undefined,
    );
    const sent = await web.post(`/api/live/${id}/prompt`, { text: "what was the word?" });
    expect(sent.status, sent.body).toBe(202);
    await until("the second turn", async () =>
      api!.mainLoopRequests().length === 2 && !(await state(id)).busy ? true : undefined,
    );
    expect(JSON.stringify(api.mainLoopRequests()[1]!.body)).toContain("remember PELICAN");
  }, 60_000);

  it("a typed /rewind shows its plan as a question; confirmed, the files go back; cancelled, nothing changes", async () => {
    const repo = await gitdir();
    const id = await twoWrites(repo);
    expect(existsSync(path.join(repo, "b.txt"))).toBe(true);

    await web!.post(`/api/live/${id}/prompt`, { text: "/rewind 1" });
    const cancelled = await question(id);
    expect(cancelled).toMatchObject({ kind: "confirm", question: expect.stringContaining("turn 1") });
    expect(JSON.stringify(cancelled)).toContain("b.txt");
    await web!.post(`/api/live/${id}/answer`, { question: cancelled.id, reply: { kind: "confirm", yes: false } });
    await until("the cancel is said", async () =>
      (await state(id)).notices.some((n) => /cancel|nothing was changed|not rewound/i.test(n.text)) ? true : undefined,
    );
    expect(existsSync(path.join(repo, "b.txt"))).toBe(true);

    await web!.post(`/api/live/${id}/prompt`, { text: "/rewind 1" });
    const asked = await question(id);
    await web!.post(`/api/live/${id}/answer`, { question: asked.id, reply: { kind: "confirm", yes: true } });
    await until("b.txt is gone", async () => (existsSync(path.join(repo, "b.txt")) ? undefined : true));
    expect(readFileSync(path.join(repo, "a.txt"), "utf8")).toBe("a\n");

    // /help names the page's own way to end the session, not the terminal's key (QA). The rewind
    // goes on in a new session once its switch is done: the prompt goes there (the old id is a 409).
    await until("the rewind's switch", async () =>
      (await state(id)).notices.some((n) => n.text.startsWith("rewound to turn 1")) ? true : undefined,
    );
    const now = ((await state(id)) as { sessionId?: string }).sessionId ?? id;
    expect((await web!.post(`/api/live/${now}/prompt`, { text: "/help" })).status).toBe(202);
    const help = await until("/help's lines", async () =>
      (await state(now)).notices.find((n) => n.text.startsWith("/exit")),
    );
    expect(help.text).toContain("End session button");
    expect(help.text).not.toContain("Ctrl-D");
  }, 60_000);

  it("Continue: a session's files changed since it ran are asked about on the page; 'tell' goes on in the same session", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "a\n" } },
      { text: "wrote a" },
      { text: "seen your change" },
    ]);
    web = await serveDriving(repo, api);
    const { id } = JSON.parse(
      (await web.post("/api/live", { prompt: "write a", permissionMode: "acceptEdits" })).body,
    ) as { id: string };
    await idle(id);
    await web.post(`/api/live/${id}/end`, {});
    await until("the session ends", async () => ((await state(id)).ended ? true : undefined));
    writeFileSync(path.join(repo, "a.txt"), "changed by hand\n");

    const continued = await web.post("/api/live", { prompt: "go on", resume: id });
    expect(continued.status, continued.body).toBe(200);
    expect(JSON.parse(continued.body)).toEqual({ id });
    const asked = await question(id);
    expect(asked).toMatchObject({ kind: "mismatch", changed: ["a.txt"] });
    await web.post(`/api/live/${id}/answer`, { question: asked.id, reply: { kind: "mismatch", choice: "tell" } });
    await until("the second turn", async () =>
      api!.mainLoopRequests().length === 3 && !(await state(id)).busy ? true : undefined,
    );
    expect(JSON.stringify(api.mainLoopRequests()[2]!.body)).toContain("a.txt");
    expect(readFileSync(path.join(repo, "a.txt"), "utf8")).toBe("changed by hand\n");
  }, 60_000);

  it("from QA: one driven session per work tree; a question ends with its turn; an answer of the wrong kind is a 400", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { tool: "Bash", input: { command: "touch k.txt", description: "touch" } },
      { text: "stopped" },
      { text: "next" },
    ]);
    web = await serveDriving(repo, api);
    const { id } = JSON.parse((await web.post("/api/live", { prompt: "touch it" })).body) as { id: string };
    // A second session in the same work tree is refused, as a second nudge would be.
    const second = await web.post("/api/live", { prompt: "another one here" });
    expect(second.status).toBe(409);
    expect(JSON.parse(second.body).error).toBe(`session ${id} is already driven from this page in this work tree`);
    const asked = await question(id);
    const wrong = await web.post(`/api/live/${id}/answer`, {
      question: asked.id,
      reply: { kind: "plan", answer: { approve: true } },
    });
    expect(wrong.status).toBe(400);
    // Stop while claude asks: the turn ends, and so does its question (the prompt box is not held by it).
    await web.post(`/api/live/${id}/stop`, {});
    await idle(id);
    expect((await state(id)).question).toBeNull();
    expect(existsSync(path.join(repo, "k.txt"))).toBe(false);
    expect((await web.post(`/api/live/${id}/prompt`, { text: "go on" })).status).toBe(202);
  }, 60_000);

  it("from QA: refusals in the page's words: a bad form field by its label, a work tree a terminal records without the terminal's --force", async () => {
    const repo = await gitdir();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    api = await startScriptedApi([{ textParts: ["From the terminal… ", held, "done."] }]);
    web = await serveDriving(repo, api);
    const badModel = await web.post("/api/live", { prompt: "hi", model: "-x" });
    expect(badModel.status).toBe(400);
    expect(JSON.parse(badModel.body)).toEqual({
      error: "Model: one word, not starting with -",
      hint: "correct it and try again",
    });
    const terminal = runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN], {
      cwd: repo,
      env: claudeEnv(api, path.join(tempDir(), "cfg")),
      input: "typed in a terminal\n",
    });
    await until("the terminal's recording", async () =>
      /"recording"/.test((await web!.get("/api/sessions")).body) ? true : undefined,
    );
    const refused = await web.post("/api/live", { prompt: "here too" });
    expect(refused.status).toBe(409);
    const body = JSON.parse(refused.body) as { error: string; hint: string };
    expect(body.error).toContain("is being recorded by another nudge process");
    expect(body.hint).toContain("follow it live from the sessions page");
    expect(body.hint).not.toContain("--force");
    release();
    expect((await terminal).exitCode).toBe(0);
  }, 60_000);

  it("from QA: /undo after a /fork takes the page back to the session it came from", async () => {
    const repo = await gitdir();
    const id = await twoWrites(repo);
    const ids: string[] = [];
    // Each command is sent where the session is now, as the page (which follows it) sends it.
    let at = id;
    for (const command of ["/fork 1", "/undo"]) {
      if (command === "/undo") {
        // From QA: the old page's prompt box no longer drives the session that moved on.
        const stale = await web!.post(`/api/live/${id}/prompt`, { text: "sent from the old page" });
        expect(stale.status).toBe(409);
        expect(JSON.parse(stale.body)).toMatchObject({
          error: `session ${id} went on in session ${at}`,
          sessionId: at,
        });
      }
      await web!.post(`/api/live/${at}/prompt`, { text: command });
      const asked = await question(at);
      await web!.post(`/api/live/${at}/answer`, { question: asked.id, reply: { kind: "confirm", yes: true } });
      const sessionId = async () => ((await state(id)) as unknown as { sessionId: string }).sessionId;
      // The fork goes on in another session; the undo comes back to this one.
      ids.push(
        await until(`${command} is done`, async () => {
          const now = await sessionId();
          return (now !== id) === (command === "/fork 1") ? now : undefined;
        }),
      );
      at = ids.at(-1)!;
    }
    await until("b.txt is back", async () => (existsSync(path.join(repo, "b.txt")) ? true : undefined));
    const [fork, back] = ids;
    expect(fork).not.toBe(id); // the fork goes on in another session
    expect(back).toBe(id); // and the undo came back
    // Asked by either id, the session is where it is now: the original one.
    for (const asked of [id, fork!])
      expect(JSON.parse((await web!.get(`/api/live/${asked}`)).body)).toMatchObject({ sessionId: id, ended: false });
  }, 60_000);

  it("from QA: a claude that refuses to start: the page can read why, though nothing was kept", async () => {
    const repo = await gitdir();
    const bad = path.join(tempDir(), "claude");
    writeFileSync(bad, "#!/bin/sh\necho 'claude: this build refuses to start here' >&2\nexit 1\n");
    chmodSync(bad, 0o755);
    web = await startWeb(repo, { NUDGE_CLAUDE_BIN: bad });
    // It records before claude is asked anything: the start answers with the id, and the session goes with claude.
    const started = await web.post("/api/live", { prompt: "hello" });
    expect(started.status).toBe(200);
    const { id } = JSON.parse(started.body) as { id: string };
    const ended = await until("it ends", async () => {
      const s = JSON.parse((await web!.get(`/api/live/${id}`)).body) as {
        ended: boolean;
        notices: Array<{ level: string; text: string }>;
      };
      return s.ended ? s : undefined;
    });
    expect(
      ended.notices
        .filter((n) => n.level === "error")
        .map((n) => n.text)
        .join("\n"),
    ).toMatch(/claude/);
    expect((await web.get(`/api/sessions/${id}`)).status).toBe(404);
  }, 60_000);
});
