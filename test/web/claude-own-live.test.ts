/**
 * claude's own sessions kept up to date on an open page (real Chromium, the built `nudge web`,
 * hand-written transcripts in a temp CLAUDE_CONFIG_DIR that has no projects folder at first): a
 * session claude starts appears on the sessions page, a turn added by `claude --resume` appears on
 * its page, and that page says so when the server stops, as every page does.
 */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserForFile, watchedPage } from "../support/browser.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { startWeb, type WebServerRun } from "../support/web-server.js";

const browser = browserForFile();
const ID = "5e551011-0000-4000-8000-000000000001";
let repo: string;
let config: string;
let web: WebServerRun | undefined;

/** One turn as claude writes it: the prompt, then its reply. */
function turnLines(prompt: string, reply: string, at: number): string {
  const base = { cwd: repo, sessionId: ID, version: "2.1.329", gitBranch: "main", isSidechain: false };
  const time = (s: number) => new Date(Date.UTC(2026, 11, 1, 10, 0, at + s)).toISOString();
  return (
    [
      { ...base, type: "user", message: { role: "user", content: prompt }, timestamp: time(0) },
      {
        ...base,
        type: "assistant",
        message: { model: "claude-x", role: "assistant", content: [{ type: "text", text: reply }] },
        timestamp: time(1),
      },
    ]
      .map((l) => JSON.stringify(l))
      .join("\n") + "\n"
  );
}

const transcript = () => path.join(config, "projects", repo.replace(/[^A-Za-z0-9]/g, "-"), `${ID}.jsonl`);

beforeAll(async () => {
  repo = await gitdir();
  config = path.join(tempDir(), "claude");
  // claude's config folder, but claude never kept a session with it: nothing to watch but it.
  mkdirSync(config, { recursive: true });
  web = await startWeb(repo, { CLAUDE_CONFIG_DIR: config });
}, 60_000);
afterAll(async () => {
  await web?.stop();
});

describe("claude's own sessions, live", () => {
  it("a session claude starts in the repository appears on the open sessions page, no reload", async () => {
    const { page, watch } = await watchedPage(browser(), (url) => url.startsWith(web!.origin));
    await page.goto(web!.url);
    await page.getByRole("heading", { name: "Sessions" }).waitFor();
    await page.waitForLoadState("networkidle");
    expect(await page.getByRole("region", { name: "claude's own sessions" }).count()).toBe(0);
    mkdirSync(path.dirname(transcript()), { recursive: true });
    writeFileSync(transcript(), turnLines("brand new from a terminal", "first reply", 0));
    const own = page.getByRole("region", { name: "claude's own sessions" });
    await own.getByRole("link", { name: "brand new from a terminal" }).waitFor({ timeout: 10_000 });
    expect(watch.errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("a turn added to the session (claude --resume) appears on its open page, no reload", async () => {
    const { page, watch } = await watchedPage(browser(), (url) => url.startsWith(web!.origin));
    await page.goto(web!.url);
    await page.goto(`${web!.origin}/c/${ID}`);
    await page.getByRole("heading", { level: 1, name: "brand new from a terminal" }).waitFor();
    await page.getByRole("region", { name: "Turn 1", exact: true }).getByText("first reply").waitFor();
    await page.waitForLoadState("networkidle");
    appendFileSync(transcript(), turnLines("resumed in a terminal", "second reply", 10));
    const turn2 = page.getByRole("region", { name: "Turn 2", exact: true });
    await turn2.getByText("second reply").waitFor({ timeout: 10_000 });
    expect(await page.locator(".session-header").textContent()).toContain("2 turns");
    expect(watch.errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("its stream answers a HEAD, refuses a missing login, a foreign Origin and an unknown id", async () => {
    const events = `/api/claude-sessions/${ID}/events`;
    const head = await web!.request(events, { method: "HEAD", headers: { cookie: web!.cookie } });
    expect(head.status).toBe(200);
    expect(head.headers["content-type"]).toContain("text/event-stream");
    expect((await web!.request(events, { method: "HEAD" })).status).toBe(403);
    const foreign = await web!.request(events, { headers: { cookie: web!.cookie, origin: "http://evil.example" } });
    expect(foreign.status).toBe(403);
    const unknown = await web!.request("/api/claude-sessions/0000dead/events", {
      method: "HEAD",
      headers: { cookie: web!.cookie },
    });
    expect(unknown.status).toBe(404);
  });

  it("its page says 'Reconnecting…' when the server stops", async () => {
    const origin = web!.origin;
    const { page } = await watchedPage(browser(), (url) => url.startsWith(origin));
    await page.goto(web!.url);
    await page.goto(`${origin}/c/${ID}`);
    await page.getByRole("heading", { level: 1, name: "brand new from a terminal" }).waitFor();
    await page.waitForLoadState("networkidle");
    await web!.stop();
    web = undefined;
    await page.locator(".banner").filter({ hasText: "Reconnecting…" }).waitFor({ timeout: 45_000 });
    await page.close();
  }, 90_000);
});
