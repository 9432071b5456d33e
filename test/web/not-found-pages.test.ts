/**
 * Addresses of things that are not there, in real Chromium against the built CLI: a session id
 * nobody has, a prefix of several ids, claude's own session that is not there, a project folder
 * claude does not keep, a turn past the end. The page asks once, says so, and asks nothing more
 * about that id: no other request fails, and the console holds only the browser's line for that one
 * 404 (a fetch answered 404 is logged by Chromium itself).
 */
import { cpSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserForFile, watchedPage } from "../support/browser.js";
import { gitdir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { startWeb, type WebServerRun } from "../support/web-server.js";

const browser = browserForFile();
let recorded: Recorded;
let web: WebServerRun;
let twin: string;

beforeAll(async () => {
  const repo = await gitdir({ "notes.txt": "zero\n" });
  recorded = await recordSession(repo, [{ text: "Nothing to change." }], ["look at notes.txt"]);
  // A second session whose id begins as the first's does: the first two characters are ambiguous.
  twin = `${recorded.id.slice(0, 2)}${recorded.id.slice(2, 4) === "ff" ? "ee" : "ff"}${recorded.id.slice(4)}`;
  cpSync(recorded.dir, path.join(path.dirname(recorded.dir), twin), { recursive: true });
  web = await startWeb(repo, recorded.env);
}, 120_000);
afterAll(async () => {
  await web?.stop();
  await recorded?.api.close();
});

const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;

/** Opens the address logged in, waits for what it must say, then a while for anything it asks later. */
async function open(address: string, says: string) {
  const { page, watch } = await watchedPage(browser(), (url) => url.startsWith(web.origin));
  const failed: string[] = [];
  page.on("response", (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${r.request().method()} ${pathOf(r.url())}`);
  });
  page.on("requestfailed", (r) => failed.push(`failed ${r.method()} ${pathOf(r.url())}`));
  await page.goto(web.url);
  await page.getByRole("heading", { name: "Sessions", exact: true }).waitFor();
  watch.requests.length = 0;
  await page.goto(`${web.origin}${address}`);
  await page.getByText(says).first().waitFor();
  await page.waitForTimeout(1500);
  return { page, watch, failed };
}

/** The page's requests about `id` (the previous page's, cut short by the navigation, are not its). */
const about = (requests: string[], id: string) =>
  requests.map((u) => new URL(u)).filter((u) => u.pathname.startsWith("/api/") && u.href.includes(id));

/** Exactly one ask, answered 404, and nothing else failed: the console holds only the browser's line for that answer. */
function askedOnce(r: Awaited<ReturnType<typeof open>>, id: string, ask: string) {
  expect(about(r.watch.requests, id).map((u) => u.pathname + u.search)).toEqual([ask]);
  expect(r.failed.filter((f) => f.includes(id))).toEqual([`404 GET ${ask}`]);
  expect(r.watch.errors).toEqual([]);
  expect(r.watch.consoleErrors.filter((e) => !/status of 404/.test(e))).toEqual([]);
  expect(r.watch.consoleErrors.length).toBeLessThanOrEqual(1);
}

describe("an address of something that is not there", () => {
  it("a session id nobody has, with or without a turn: asked once, said once", { timeout: 60_000 }, async () => {
    for (const address of ["/s/0123456789abcdef", "/s/0123456789abcdef?turn=3", "/s/0123456789abcdef#turn-2"]) {
      const r = await open(address, "No session in this repository matches 0123456789abcdef");
      askedOnce(r, "0123456789abcdef", "/api/sessions/0123456789abcdef");
      await r.page.close();
    }
  });

  it("a prefix of two sessions' ids: both linked, asked once", { timeout: 60_000 }, async () => {
    const prefix = recorded.id.slice(0, 2);
    const r = await open(`/s/${prefix}?turn=1`, "Which session?");
    askedOnce(r, `/${prefix}`, `/api/sessions/${prefix}`);
    const links = r.page.getByRole("main").getByRole("link");
    expect(await links.allTextContents()).toEqual([recorded.id, twin].sort());
    expect(await links.first().getAttribute("href")).toBe(`/s/${[recorded.id, twin].sort()[0]}?turn=1`);
    await r.page.close();
  });

  it(
    "claude's own session that is not there, and a project folder claude does not keep",
    { timeout: 60_000 },
    async () => {
      const missing = "0b0571e0-0000-4000-8000-000000000000";
      const c = await open(`/c/${missing}?turn=2`, `no session of claude's own matches "${missing}"`);
      askedOnce(c, missing, `/api/claude-sessions/${missing}`);
      await c.page.close();
      const p = await open("/projects/-no-such-folder", 'claude keeps no project folder "-no-such-folder"');
      askedOnce(p, "no-such-folder", "/api/claude-sessions?project=-no-such-folder");
      await p.page.close();
    },
  );

  it("a turn past the end of a session that is there: said, and nothing fails", { timeout: 60_000 }, async () => {
    const r = await open(`/s/${recorded.id}?turn=99`, "This session has no turn 99: its turns are 0 to 1.");
    expect(r.failed.filter((f) => f.includes(recorded.id))).toEqual([]);
    expect(r.watch.consoleErrors).toEqual([]);
    expect(r.watch.errors).toEqual([]);
    await r.page.close();
  });
});
