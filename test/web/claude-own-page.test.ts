/**
 * claude's own sessions (plain `claude -p`, nudge not involved) in `nudge web`, in real Chromium:
 * listed apart from recorded ones, opened through the same turn view (conversation, no code),
 * every project on the machine listed with a folder that is gone, a project's sessions read-only,
 * and a hostile transcript inert. The routes refuse bad ids and any path.
 */
import { execa } from "execa";
import {
  appendFileSync,
  closeSync,
  ftruncateSync,
  mkdirSync,
  readFileSync,
  openSync,
  readdirSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserForFile, watchedPage, type Watch } from "../support/browser.js";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { PAYLOADS } from "../support/hostile-session.js";
import { runClaude } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi } from "../support/scripted-api.js";
import { startWeb, type WebServerRun } from "../support/web-server.js";

const browser = browserForFile();
let repo: string;
let other: string;
let gone: string;
let config: string;
let env: Record<string, string>;
let web: WebServerRun;
const ids: Record<string, string> = {};
const HOSTILE_ID = "0b0571e0-0000-4000-8000-000000000000";

async function plainClaude(cwd: string, prompt: string): Promise<string> {
  const run = await execa(CLAUDE_BIN, ["-p", prompt, "--output-format", "json", "--allowedTools", "Bash"], {
    cwd,
    env: { ...process.env, ...env },
    reject: false,
    input: "",
  });
  expect(run.exitCode, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { session_id: string }).session_id;
}

/** claude's folder for a working directory (looked up, not guessed: claude may shorten long names). */
const folderOf = (cwd: string) =>
  readdirSync(path.join(config, "projects")).find((f) => f === cwd.replace(/[^A-Za-z0-9]/g, "-"))!;

/** A transcript as claude writes one, made of hostile text: prompt, markdown, a tool's input and output, an unknown record. */
function writeHostileTranscript(): void {
  const base = { cwd: repo, sessionId: HOSTILE_ID, version: "2.1.329", gitBranch: "main", isSidechain: false };
  const all = PAYLOADS.join("\n\n");
  const lines = [
    { ...base, type: "user", message: { role: "user", content: PAYLOADS[1] }, timestamp: "2026-11-20T10:00:00Z" },
    {
      ...base,
      type: "assistant",
      message: { model: "claude-x", role: "assistant", content: [{ type: "text", text: all }] },
      timestamp: "2026-11-20T10:00:01Z",
    },
    {
      ...base,
      type: "assistant",
      message: {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_h", name: PAYLOADS[4], input: { command: PAYLOADS[12] } }],
      },
      timestamp: "2026-11-20T10:00:02Z",
    },
    {
      ...base,
      type: "user",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_h", content: all }] },
      timestamp: "2026-11-20T10:00:03Z",
    },
    { ...base, type: "evil_future_kind", html: PAYLOADS[5], timestamp: "2026-11-20T10:00:04Z" },
  ];
  writeFileSync(
    path.join(config, "projects", folderOf(repo), `${HOSTILE_ID}.jsonl`),
    lines.map((l) => JSON.stringify(l)).join("\n") + "\n",
  );
}

beforeAll(async () => {
  [repo, other, gone] = [await gitdir(), await gitdir(), await gitdir()];
  config = path.join(tempDir(), "claude");
  const api = await startScriptedApi([
    { tool: "Bash", input: { command: "echo 工具の出力 tool-output-marker", description: "say" } },
    { text: "done 完了しました" },
    { text: "the other project's answer" },
    { text: "soon gone" },
    { text: "adopted answer" },
    { text: "recorded answer" },
  ]);
  env = claudeEnv(api, config);
  ids.root = await plainClaude(repo, "first prompt 日本語の質問");
  ids.other = await plainClaude(other, "asked in the other project");
  ids.gone = await plainClaude(gone, "asked in a folder soon gone");
  rmSync(gone, { recursive: true, force: true });
  ids.adopt = await plainClaude(repo, "adopt me from the page");
  // A session nudge recorded: listed as nudge's, never also as claude's.
  const recorded = await runClaude(repo, [], env, "recorded prompt\n");
  expect(recorded.exitCode, recorded.stderr).toBe(0);
  await api.close();
  writeHostileTranscript();
  web = await startWeb(repo, env);
}, 240_000);
afterAll(async () => {
  await web?.stop();
});

async function openPage(at = "/"): Promise<{ page: Page; watch: Watch }> {
  const { page, watch } = await watchedPage(browser(), (url) => url.startsWith(`${web.origin}/`));
  await page.goto(web.url);
  if (at !== "/") await page.goto(`${web.origin}${at}`);
  return { page, watch };
}

describe("claude's own sessions in nudge web", () => {
  it("the sessions page lists them apart from recorded ones, with prompt, turns and cost; one opens as its conversation, no code", async () => {
    const { page, watch } = await openPage();
    await page.getByRole("link", { name: "recorded prompt" }).waitFor();
    const own = page.getByRole("region", { name: "claude's own sessions" });
    const row = own.getByRole("row").filter({ hasText: ids.root! });
    await row.getByRole("link", { name: "first prompt 日本語の質問" }).waitFor();
    expect(await row.textContent()).toContain("claude's own");
    expect(await row.getByRole("cell").nth(3).textContent()).toBe("1");
    expect(await row.getByRole("cell").nth(4).textContent()).toMatch(/^\$\d/);
    // Not another project's, and the recorded one not twice.
    expect(await own.textContent()).not.toContain(ids.other!);
    expect(await own.textContent()).not.toContain("recorded prompt");
    await row.getByRole("link", { name: "first prompt 日本語の質問" }).click();
    await page.getByRole("heading", { level: 1, name: "first prompt 日本語の質問" }).waitFor();
    expect(page.url()).toBe(`${web.origin}/c/${ids.root}`);
    const note = await page.getByRole("note").textContent();
    expect(note).toContain("No code snapshots: recorded by claude, not nudge");
    expect(note).toContain(`nudge session adopt ${ids.root}`);
    const turn1 = page.getByRole("region", { name: "Turn 1", exact: true });
    await turn1.getByText("done 完了しました").waitFor();
    await turn1.locator("details.tool summary").first().click();
    await turn1.getByText("工具の出力 tool-output-marker").first().waitFor();
    // Its conversation only: no rewind or fork, no diff.
    expect(await page.getByRole("button", { name: /Rewind|Fork|Delete/ }).count()).toBe(0);
    expect(await page.getByRole("region", { name: /^Diff/ }).count()).toBe(0);
    // Its turns have no cost of their own: the timeline says the session's total, never "$0".
    const caption = (await page.locator("figure.timeline figcaption").textContent())!;
    expect(caption).toMatch(/no cost per turn \(the session's total: \$\d/);
    expect(caption).not.toMatch(/\$0\.0+\b/);
    expect(watch.errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("the page's search finds them (tool output, CJK) once indexed in the background, marked as claude's own, and a hit opens its turn", async () => {
    const { page, watch } = await openPage();
    const box = page.getByRole("searchbox", { name: "Search every session" });
    // Two hits in the turn: the command and its output.
    const hit = page.getByRole("link", { name: `${ids.root} · turn 1` }).first();
    // The first search starts the background indexing of claude's sessions; asked again until it has them.
    for (
      const end = Date.now() + 60_000;
      Date.now() < end && !(await hit.isVisible());
      await page.waitForTimeout(500)
    ) {
      await box.fill("工具の出力");
      await box.press("Enter");
      await page.waitForTimeout(300);
    }
    await hit.waitFor({ timeout: 1000 });
    const item = page
      .getByRole("listitem")
      .filter({ hasText: `${ids.root} · turn 1` })
      .first();
    expect(await item.textContent()).toContain("claude's own");
    expect(await item.locator("mark").first().textContent()).toBe("工具の出力");
    await hit.click();
    await page.getByRole("heading", { level: 1, name: "first prompt 日本語の質問" }).waitFor();
    expect(page.url()).toBe(`${web.origin}/c/${ids.root}?turn=1`);
    await page.getByRole("region", { name: "Turn 1", exact: true }).getByText("done 完了しました").waitFor();
    expect(watch.errors).toEqual([]);
    await page.close();
  }, 90_000);

  it("All projects lists every project with its sessions and cost, a folder that is gone as such, and a project's sessions read-only", async () => {
    const { page, watch } = await openPage("/projects");
    await page.getByRole("heading", { name: "All projects" }).waitFor();
    const row = (dir: string) => page.getByRole("row").filter({ hasText: dir });
    await row(repo).getByRole("link", { name: repo, exact: true }).waitFor();
    expect(await row(gone).textContent()).toContain("folder no longer exists");
    expect(await row(other).getByRole("cell").nth(3).textContent()).toMatch(/^\$\d/);
    await row(gone).getByRole("link", { name: "1", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: gone }).waitFor();
    // A folder that is gone: said, with no command that could not work.
    const intro = page.locator("main.sessions > p.muted").first();
    await intro.getByText("Its folder no longer exists").waitFor();
    expect(await intro.textContent()).not.toContain("nudge web --repo");
    await page.getByRole("link", { name: "asked in a folder soon gone" }).click();
    await page.getByRole("region", { name: "Turn 1", exact: true }).getByText("soon gone", { exact: true }).waitFor();
    // The project this server serves: its sessions page, not a command to serve it.
    await page.goto(`${web.origin}/projects/${folderOf(repo)}`);
    const served = page.getByRole("link", { name: "its sessions page" });
    await served.waitFor();
    expect(await served.getAttribute("href")).toBe("/");
    expect(await page.locator("main.sessions > p.muted").first().textContent()).not.toContain("nudge web --repo");
    expect(watch.errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("a hostile transcript is inert on the list and on its page: nothing runs, nothing loads, it shows as text", async () => {
    const { page, watch } = await openPage();
    const link = page.getByRole("region", { name: "claude's own sessions" }).getByRole("link", { name: PAYLOADS[1] });
    await link.waitFor();
    await link.click();
    await page.getByRole("heading", { level: 1, name: PAYLOADS[1] }).waitFor();
    const turn1 = page.getByRole("region", { name: "Turn 1", exact: true });
    await turn1.getByText(PAYLOADS[1]!, { exact: true }).first().waitFor();
    const markdown = (await turn1.locator(".markdown").first().textContent())!;
    for (const p of [PAYLOADS[0]!, PAYLOADS[4]!, PAYLOADS[5]!, PAYLOADS[12]!]) expect(markdown).toContain(p);
    // ANSI and bidi controls arrive as visible escapes, never obeyed.
    expect(markdown).toContain("\\x1b]0;pwned title\\x07\\x1b[31mred text");
    expect(markdown).toContain("abc\\u202eevil.txt\\u2066hidden\\u2069");
    await page.waitForTimeout(300);
    expect(watch.dialogs).toEqual([]);
    expect(watch.requests.filter((u) => !u.startsWith(`${web.origin}/`))).toEqual([]);
    expect(watch.errors).toEqual([]);
    expect(await page.evaluate(() => typeof (globalThis as { pwned?: unknown }).pwned)).toBe("undefined");
    const smuggled = await page
      .locator("#app")
      .locator("script, img, iframe, object, embed, meta, link, base, form, math, style, [onerror], [onload], [style]")
      .evaluateAll((els) => els.map((e) => e.outerHTML.slice(0, 200)));
    expect(smuggled).toEqual([]);
    for (const a of await page.locator("#app a[href]").all())
      expect(await a.getAttribute("href")).toMatch(/^(\/|#turn-\d+$|https?:|mailto:)/);
    await page.close();
  }, 60_000);
});

describe("the routes of claude's own sessions", () => {
  it("answer a session, its turn and a project's list; refuse a bad id, a bad turn, a path and an unknown project", async () => {
    const one = await web.get(`/api/claude-sessions/${ids.root!.slice(0, 8)}`);
    expect(one.status, one.body).toBe(200);
    expect(JSON.parse(one.body)).toMatchObject({ session: { id: ids.root, source: "claude", turns: 1 } });
    expect(one.body).not.toContain(config); // where claude keeps the file is not sent
    const turn = await web.get(`/api/claude-sessions/${ids.root}/turns/1`);
    expect(turn.status).toBe(200);
    expect(JSON.parse(turn.body)).toMatchObject({ diff: { files: [] }, edits: null });
    const list = JSON.parse((await web.get(`/api/claude-sessions?project=${folderOf(other)}`)).body) as {
      project: { cwd: string };
      sessions: Array<{ id: string }>;
    };
    expect(list.project).toMatchObject({ cwd: other, exists: true, served: null });
    const project = async (folder: string) =>
      (JSON.parse((await web.get(`/api/claude-sessions?project=${folder}`)).body) as { project: unknown }).project;
    expect(await project(folderOf(repo))).toMatchObject({ cwd: repo, exists: true, served: "/" });
    expect(await project(folderOf(gone))).toMatchObject({ cwd: gone, exists: false });
    expect(list.sessions.map((s) => s.id)).toEqual([ids.other]);
    for (const [url, status] of [
      ["/api/claude-sessions/..%2F..%2Fetc%2Fpasswd", 400],
      ["/api/claude-sessions/%2Fetc%2Fpasswd", 400],
      ["/api/claude-sessions/.jsonl", 400],
      ["/api/claude-sessions/ffffffff-0000-4000-8000-000000000000", 404],
      [`/api/claude-sessions/${ids.root}/turns/abc`, 400],
      [`/api/claude-sessions/${ids.root}/turns/9`, 404],
      ["/api/claude-sessions?project=..", 400],
      ["/api/claude-sessions?project=%2Fetc", 400],
      ["/api/claude-sessions?project=..%2F..%2Fetc", 400],
      ["/api/claude-sessions?project=-no-such-folder", 404],
      ["/api/claude-sessions?limit=100000", 400],
    ] as const) {
      const answer = await web.get(url);
      expect(answer.status, url).toBe(status);
      expect(JSON.parse(answer.body).error, url).toBeTruthy();
    }
    // The session nudge recorded is nudge's: not served as claude's own.
    const recorded = JSON.parse((await web.get("/api/sessions")).body) as Array<{ id: string }>;
    expect(recorded).toHaveLength(1);
    const claudeIds = readdirSync(path.join(config, "projects", folderOf(repo))).map((f) => f.replace(".jsonl", ""));
    const own = JSON.parse((await web.get("/api/claude-sessions")).body) as { sessions: Array<{ id: string }> };
    const heldByNudge = claudeIds.filter(
      (i) => i !== ids.root && i !== ids.adopt && i !== HOSTILE_ID && /^[0-9a-f-]{36}$/.test(i),
    );
    expect(heldByNudge).toHaveLength(1);
    expect(own.sessions.map((s) => s.id).sort()).toEqual([ids.root, ids.adopt, HOSTILE_ID].sort());
    expect((await web.get(`/api/claude-sessions/${heldByNudge[0]}`)).status).toBe(404);
    // A long prompt written as one string (its line read with strings cut at 16 KB): one prompt entry.
    const longId = "5a0c0000-0000-4000-8000-000000000000";
    const say = (content: string, at: string) =>
      JSON.stringify({ type: "user", cwd: repo, sessionId: longId, message: { role: "user", content }, timestamp: at });
    writeFileSync(
      path.join(config, "projects", folderOf(repo), `${longId}.jsonl`),
      [say("first", "2026-01-03T00:00:00Z"), say("p".repeat(70_000), "2026-01-03T00:01:00Z")].join("\n") + "\n",
    );
    const longTurn = JSON.parse((await web.get(`/api/claude-sessions/${longId}/turns/2`)).body) as {
      entries: Array<{ kind: string }>;
    };
    expect(longTurn.entries.filter((e) => e.kind === "prompt")).toHaveLength(1);
    // A transcript with a 600 MB line (sparse: no disk): its session and turn answer, the line said, not held.
    const hugeId = "0b19e000-0000-4000-8000-000000000000";
    const fd = openSync(path.join(config, "projects", folderOf(repo), `${hugeId}.jsonl`), "w");
    const first = { type: "user", message: { role: "user", content: "before the huge line" }, cwd: repo };
    writeSync(fd, JSON.stringify({ ...first, sessionId: hugeId, timestamp: "2026-01-02T00:00:00Z" }) + "\n");
    ftruncateSync(fd, 600 * 1024 * 1024);
    closeSync(fd);
    const huge = await web.get(`/api/claude-sessions/${hugeId}`);
    expect(huge.status, huge.body).toBe(200);
    expect(JSON.parse(huge.body)).toMatchObject({ session: { firstPrompt: "before the huge line" } });
    const hugeTurn = JSON.parse((await web.get(`/api/claude-sessions/${hugeId}/turns/1`)).body) as {
      entries: Array<{ kind: string; line?: { text: string } }>;
    };
    // Named with its real size, not as a line nudge does not know.
    expect(hugeTurn.entries).toContainEqual(
      expect.objectContaining({
        kind: "notice",
        text: expect.stringMatching(/^a line of [\d,]{11} bytes .*too long to read/),
      }),
    );
    // Without the login cookie: nothing.
    expect((await web.request(`/api/claude-sessions/${ids.root}`)).status).toBeGreaterThanOrEqual(401);
  }, 60_000);
});

describe("adopting one from the page", () => {
  it("the plan for another project's session says where it ran and where it goes", async () => {
    const plan = await web.post(`/api/claude-sessions/${ids.other}/adopt`, { confirm: false });
    expect(plan.status, plan.body).toBe(200);
    expect(plan.body).toContain(`this session ran in ${other}, another project; it is adopted into ${repo}`);
    const mine = await web.post(`/api/claude-sessions/${ids.root}/adopt`, { confirm: false });
    expect(mine.body).not.toContain("another project");
  });

  it("asks with the plan (the work tree as its code), refuses a stale or missing token, then makes it a nudge session", async () => {
    const url = `/api/claude-sessions/${ids.adopt}/adopt`;
    expect((await web.post(url, { confirm: true })).status).toBe(409);
    expect((await web.post("/api/claude-sessions/..%2Fx/adopt", { confirm: false })).status).toBe(400);
    // claude went on meanwhile: the plan shown no longer holds.
    const shown = JSON.parse((await web.post(url, { confirm: false })).body) as { confirmToken: string };
    const file = path.join(config, "projects", folderOf(repo), `${ids.adopt}.jsonl`);
    appendFileSync(file, JSON.stringify({ type: "last-prompt", lastPrompt: "adopt me", sessionId: ids.adopt }) + "\n");
    const stale = await web.post(url, { confirm: true, confirmToken: shown.confirmToken });
    expect(stale.status).toBe(409);
    expect(JSON.parse(stale.body).error).toContain("the plan changed since it was shown");

    const { page, watch } = await openPage(`/c/${ids.adopt}`);
    await page.getByRole("heading", { level: 1, name: "adopt me from the page" }).waitFor();
    await page.getByRole("button", { name: "Adopt" }).click();
    const dialog = page.getByRole("dialog", { name: "Adopt this session" });
    await dialog.getByText("its code state is the work tree as it is now (turn 0)", { exact: false }).first().waitFor();
    await dialog.getByRole("button", { name: "Confirm" }).click();
    const open = dialog.getByRole("link", { name: /^Open nudge session / });
    await open.waitFor();
    const id = (await open.textContent())!.replace("Open nudge session ", "");
    await open.click();
    await page.getByRole("heading", { level: 1, name: "adopt me from the page" }).waitFor();
    expect(page.url()).toBe(`${web.origin}/s/${id}`);
    await page.getByRole("region", { name: "Turn 1", exact: true }).getByText("adopted answer").waitFor();
    // Listed once, as nudge's.
    const own = JSON.parse((await web.get("/api/claude-sessions")).body) as { sessions: Array<{ id: string }> };
    expect(own.sessions.map((s) => s.id)).not.toContain(ids.adopt);
    expect((await web.get(`/api/claude-sessions/${ids.adopt}`)).status).toBe(404);
    expect(watch.errors).toEqual([]);
    await page.close();
  }, 60_000);
});

// Last: these add sessions (one adopted) that the tests above count.
describe("claude's own sessions in nudge web, with more of them", () => {
  it("a project whose folder is gone and whose sessions nudge adopted all: its page names the folder it ran in and says it is gone", async () => {
    const left = await gitdir();
    const id = "90ad0000-0000-4000-8000-000000000000";
    const folder = left.replace(/[^A-Za-z0-9]/g, "-");
    mkdirSync(path.join(config, "projects", folder), { recursive: true });
    const real = readFileSync(path.join(config, "projects", folderOf(repo), `${ids.root}.jsonl`), "utf8");
    writeFileSync(
      path.join(config, "projects", folder, `${id}.jsonl`),
      real.replaceAll(ids.root!, id).replaceAll(JSON.stringify(repo), JSON.stringify(left)),
    );
    const adopted = await runNudge(["session", "adopt", id], { cwd: repo, env });
    expect(adopted.exitCode, adopted.stderr).toBe(0);
    rmSync(left, { recursive: true, force: true });
    const { page, watch } = await openPage(`/projects/${folder}`);
    await page.getByRole("heading", { level: 1, name: left }).waitFor();
    await page.locator("main.sessions > p.muted").first().getByText("Its folder no longer exists").waitFor();
    expect(watch.errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("a session adopted while its page is open: the page says it is nudge's now and links there, no Adopt; opened again it says so; adopting it again is refused naming the nudge session", async () => {
    const id = "ad0a0000-0000-4000-8000-000000000000";
    const folder = path.join(config, "projects", folderOf(repo));
    const real = readFileSync(path.join(folder, `${ids.root}.jsonl`), "utf8");
    writeFileSync(path.join(folder, `${id}.jsonl`), real.replaceAll(ids.root!, id));
    const { page, watch } = await openPage(`/c/${id}`);
    await page.getByRole("heading", { level: 1, name: "first prompt 日本語の質問" }).waitFor();
    await page.getByRole("button", { name: "Adopt" }).waitFor();
    // Adopted elsewhere (its transcript is not written then): the open page learns it.
    const adopted = await runNudge(["session", "adopt", id], { cwd: repo, env });
    expect(adopted.exitCode, adopted.stderr).toBe(0);
    const nudgeId = /as nudge session (\w+)/.exec(adopted.stdout)![1]!;
    const note = page.getByRole("note").filter({ hasText: "Adopted" });
    await note.getByRole("link", { name: nudgeId }).waitFor();
    expect(await note.textContent()).toContain(`claude's session ${id} is nudge's now`);
    expect(await page.getByRole("button", { name: "Adopt" }).count()).toBe(0);
    // Opened again: said at once, and the link opens the nudge session.
    await page.goto(`${web.origin}/c/${id}`);
    await page.getByRole("heading", { level: 1, name: "Adopted by nudge" }).waitFor();
    await page.getByRole("note").getByRole("link", { name: nudgeId }).click();
    await page.getByRole("heading", { level: 1, name: "first prompt 日本語の質問" }).waitFor();
    expect(page.url()).toBe(`${web.origin}/s/${nudgeId}`);
    expect(watch.errors).toEqual([]);
    await page.close();
    // The routes say which nudge session holds it, by its id or a prefix; adopting it again is refused.
    for (const typed of [id, "ad0a00"]) {
      const answer = await web.get(`/api/claude-sessions/${typed}`);
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.body)).toMatchObject({ claudeId: id, heldBy: [nudgeId] });
    }
    const again = await web.post(`/api/claude-sessions/${id}/adopt`, { confirm: false });
    expect(again.status).toBe(409);
    expect(JSON.parse(again.body).error).toBe(
      `claude's session ${id} is nudge's already: nudge session ${nudgeId} (recorded or adopted)`,
    );
  }, 60_000);

  it("a prefix that begins two claude sessions, one or both adopted, is ambiguous on the page and its routes, each listed with the nudge session holding it; an adopted turn keeps its time", async () => {
    const folder = path.join(config, "projects", folderOf(repo));
    const real = readFileSync(path.join(folder, `${ids.root}.jsonl`), "utf8");
    const [a, b] = ["3f2a0000-0000-4000-8000-000000000000", "3f2b0000-0000-4000-8000-000000000000"];
    for (const id of [a, b]) writeFileSync(path.join(folder, `${id}.jsonl`), real.replaceAll(ids.root!, id));
    const adopt = async (id: string) => {
      const run = await runNudge(["session", "adopt", id, "--json"], { cwd: repo, env });
      expect(run.exitCode, run.stderr).toBe(0);
      return (JSON.parse(run.stdout) as { id: string }).id;
    };
    const held = { [a]: await adopt(a) };
    // One adopted, one claude's own: the prefix names neither alone, and Adopt takes neither (refused, as an action is).
    const one = await web.get(`/api/claude-sessions/3f2`);
    expect(one.status, one.body).toBe(404);
    expect(JSON.parse(one.body).error).toBe(
      `"3f2" is ambiguous among claude's sessions: ${a} (nudge's already: nudge session ${held[a]}), ${b}`,
    );
    const adoptOne = await web.post(`/api/claude-sessions/3f2/adopt`, { confirm: false });
    expect(adoptOne.status).toBe(409);
    expect(JSON.parse(adoptOne.body).error).toContain(`"3f2" is ambiguous`);
    held[b] = await adopt(b);
    const both = await web.get(`/api/claude-sessions/3f2`);
    expect(both.status).toBe(404);
    const error = `"3f2" is ambiguous among claude's sessions: ${a} (nudge's already: nudge session ${held[a]}), ${b} (nudge's already: nudge session ${held[b]})`;
    expect(JSON.parse(both.body)).toMatchObject({ error, hint: "type more of the id", matches: [a, b] });
    const { page, watch } = await openPage(`/c/3f2`);
    await page.getByRole("alert").getByText(error).waitFor();
    // An adopted turn's time is its span in claude's transcript (claude reported no duration).
    const shown = await runNudge(["session", "show", held[a]!, "--json"], { cwd: repo, env });
    const turn1 = (JSON.parse(shown.stdout) as { turns: Array<{ n: number; startedAt: string; endedAt: string }> })
      .turns[1]!;
    const span = Date.parse(turn1.endedAt) - Date.parse(turn1.startedAt);
    const view = JSON.parse((await web.get(`/api/sessions/${held[a]}`)).body) as {
      turns: Array<{ n: number; durationMs: number | null }>;
    };
    expect(view.turns.find((t) => t.n === 1)?.durationMs).toBe(span);
    await page.goto(`${web.origin}/s/${held[a]}`);
    const caption = page.locator("figure.timeline figcaption");
    await caption.waitFor();
    expect(await caption.textContent()).not.toContain("total 0ms");
    expect(watch.errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("headings in claude's reply sit under the page's own: one h1, no level skipped, whatever levels claude wrote", async () => {
    const api = await startScriptedApi([
      { text: "# The plan\n\nfirst this\n\n### A detail\n\nthen that\n\n## Next steps\n\n##### deep\n\ndone" },
    ]);
    const run = await execa(CLAUDE_BIN, ["-p", "plan it with headings", "--output-format", "json"], {
      cwd: repo,
      env: { ...process.env, ...claudeEnv(api, config) },
      reject: false,
      input: "",
    });
    await api.close();
    expect(run.exitCode, run.stderr).toBe(0);
    const id = (JSON.parse(run.stdout) as { session_id: string }).session_id;
    const { page, watch } = await openPage(`/c/${id}`);
    const turn1 = page.getByRole("region", { name: "Turn 1", exact: true });
    await turn1.getByRole("heading", { name: "The plan" }).waitFor();
    const levels = await page.evaluate(() =>
      Array.from(document.querySelectorAll("h1, h2, h3, h4, h5, h6, [role=heading]")).map((h) =>
        Number(h.getAttribute("aria-level") ?? h.tagName.slice(1)),
      ),
    );
    expect(levels.filter((l) => l === 1)).toHaveLength(1);
    expect(levels[0]).toBe(1);
    for (const [i, l] of levels.entries())
      if (i > 0) expect(l, levels.join(" ")).toBeLessThanOrEqual(levels[i - 1]! + 1);
    // Claude's headings are still headings, under the turn's.
    for (const name of ["The plan", "A detail", "Next steps", "deep"])
      expect(await turn1.getByRole("heading", { name }).evaluate((h) => Number(h.tagName.slice(1)))).toBeGreaterThan(2);
    expect(watch.errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("the search route's session filter takes claude's own session by its id or a prefix, as session search --session does", async () => {
    type Hits = { hits: Array<{ session: string }> };
    let hits: Hits["hits"] = [];
    for (const end = Date.now() + 60_000; Date.now() < end; await new Promise((r) => setTimeout(r, 300))) {
      const answer = await web.get(`/api/search?q=${encodeURIComponent("prompt")}&session=${ids.root!.slice(0, 8)}`);
      expect(answer.status, answer.body).toBe(200);
      hits = (JSON.parse(answer.body) as Hits).hits;
      if (hits.length > 0) break;
    }
    expect(hits.length).toBeGreaterThan(0);
    expect(new Set(hits.map((h) => h.session))).toEqual(new Set([ids.root]));
    const whole = await web.get(`/api/search?q=prompt&session=${ids.root}`);
    expect(whole.status).toBe(200);
  }, 90_000);
});
