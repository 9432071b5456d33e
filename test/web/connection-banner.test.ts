/**
 * A served page whose live updates stop says so instead of going quietly stale (real Chromium, the
 * built `nudge web`): the server stopped → "Reconnecting…", gone again once the server is back
 * (its kept login still holds); the server back with a new login → "Disconnected", with what to do.
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { browserForFile, watchedPage } from "../support/browser.js";
import { gitdir } from "../support/gitdir.js";
import { startWeb, type WebServerRun } from "../support/web-server.js";

const browser = browserForFile();
let web: WebServerRun | undefined;
afterEach(async () => {
  await web?.stop();
  web = undefined;
});

/** nudge web started on a new repository, its sessions page open, then the server stopped (its port and login kept). */
async function sessionsPageThenStopped() {
  const repo = await gitdir();
  web = await startWeb(repo);
  const port = String(web.port);
  const origin = web.origin;
  const { page } = await watchedPage(browser(), (url) => url.startsWith(origin));
  await page.goto(web.url);
  await page.getByRole("heading", { name: "Sessions" }).waitFor();
  await web.stop();
  web = undefined;
  return { repo, port, page, banner: page.locator(".banner") };
}

describe("the connection banner", () => {
  it("says the server is not answering while it is down, and goes once it is back; says the login is refused after a restart with a new one", async () => {
    const repo = await gitdir();
    web = await startWeb(repo);
    const port = String(web.port);
    const origin = web.origin;
    const { page } = await watchedPage(browser(), (url) => url.startsWith(origin));
    // The list of claude's own sessions, asked for after the first paint, goes out only once the
    // server is down (as it did under a loaded CI): it fails for real, and must not stay failed.
    let serverDown!: () => void;
    const down = new Promise<void>((resolve) => (serverDown = resolve));
    await page.route(/\/api\/claude-sessions/, async (route) => {
      await down;
      await route.continue().catch(() => undefined);
    });
    await page.goto(web.url);
    await page.getByRole("heading", { name: "Sessions" }).waitFor();
    const banner = page.locator(".banner");
    expect(await banner.count()).toBe(0);

    await web.stop();
    web = undefined;
    serverDown();
    await page.getByText("not answering").first().waitFor();
    // Bounded by the test's time, not a guess: under a loaded CI the browser's retries come late.
    await banner.filter({ hasText: "Reconnecting…" }).waitFor({ timeout: 45_000 });
    expect(await banner.textContent()).toContain(`not answering at 127.0.0.1:${port}`);

    // Back on its port with the login it kept: the stream reconnects and the banner goes. When is
    // up to the browser's own EventSource retry (3 s apart, a failed try slow under load): a CI
    // run once took longer than 15 s, so the wait is bounded by the test's time, not a guess.
    web = await startWeb(repo, {}, [], port);
    await banner.waitFor({ state: "detached", timeout: 45_000 });
    // Nothing stale is left: a fetch that failed while the server was down is not still on show.
    await page.getByText("not answering").waitFor({ state: "detached" });

    // Back with a new login (its kept one deleted): the page's cookie is refused for good.
    await web.stop();
    rmSync(path.join(repo, ".git", "nudge", "web-login.json"));
    web = await startWeb(repo, {}, [], port);
    await banner.filter({ hasText: "Disconnected:" }).waitFor({ timeout: 45_000 });
    expect(await banner.textContent()).toContain("Open the address nudge web printed.");
    await page.close();
  }, 180_000);

  it("opens a fresh stream by itself when the browser gives one up (a 503 while the server starts) or its retry is lost", async () => {
    const { repo, port, page, banner } = await sessionsPageThenStopped();
    await banner.filter({ hasText: "Reconnecting…" }).waitFor({ timeout: 45_000 });
    // A failure nothing real causes on demand: the next stream is answered 503 (EventSource then
    // gives up for good), and the one after never answered (a retry lost).
    const seen: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/api\/events/, async (route) => {
      if (route.request().method() !== "GET") return route.continue().catch(() => undefined);
      seen.push(seen.length === 0 ? "503" : seen.length === 1 ? "held" : "through");
      if (seen.length === 1) return route.fulfill({ status: 503, body: "starting" });
      if (seen.length === 2) await held;
      await route.continue().catch(() => undefined);
    });
    web = await startWeb(repo, {}, [], port);
    // The login was kept: the banner goes, and never said "Disconnected".
    // Three probes' delays at most (3, 6, 10 s), under a loaded CI slower: bounded by the test's time.
    await banner.waitFor({ state: "detached", timeout: 90_000 });
    expect(seen.slice(0, 3)).toEqual(["503", "held", "through"]);
    release();
    await page.close();
  }, 180_000);

  it("asks again for a stream that keeps failing only after a delay, never in a loop, and says it is reconnecting", async () => {
    const repo = await gitdir();
    web = await startWeb(repo);
    const origin = web.origin;
    const { page } = await watchedPage(browser(), (url) => url.startsWith(origin));
    let streams = 0;
    await page.route(/\/api\/events/, async (route) => {
      if (route.request().method() !== "GET") return route.continue();
      streams++;
      return route.fulfill({ status: 503, body: "busy" });
    });
    await page.goto(web.url);
    await page.getByRole("heading", { name: "Sessions" }).waitFor();
    await page.locator(".banner").filter({ hasText: "Reconnecting…" }).waitFor({ timeout: 45_000 });
    const seen = streams;
    await page.waitForTimeout(5000);
    // One at once, then one per probe (3 s, then 6 s, …): a page asking in a loop made hundreds.
    expect(streams - seen).toBeLessThanOrEqual(3);
    expect(streams).toBeGreaterThanOrEqual(2);
    await page.close();
  }, 120_000);

  it("goes once nudge web is back after another server answered on its port while it was down (a 404, an HTML page)", async () => {
    const { repo, port, page, banner } = await sessionsPageThenStopped();
    // Another program on the port: its answers, not nudge's (404 to the stream and its HEAD, then a page).
    let answered = 0;
    const foreign = async (route: import("playwright-core").Route) => {
      answered++;
      await route.fulfill(
        answered <= 2 ? { status: 404, body: "Not Found" } : { status: 200, contentType: "text/html", body: "<p>hi" },
      );
    };
    await page.route(/\/api\/events/, foreign);
    await banner.filter({ hasText: "Reconnecting…" }).waitFor({ timeout: 45_000 });
    // Both kinds of answer seen: the 404s, then the page (to the HEAD, then the stream itself).
    await expect.poll(() => answered, { timeout: 45_000 }).toBeGreaterThan(4);
    await page.unroute(/\/api\/events/, foreign);
    web = await startWeb(repo, {}, [], port);
    await banner.waitFor({ state: "detached", timeout: 45_000 });
    await page.close();
  }, 180_000);

  it("goes once nudge web is back with this page's login after another server refused it (a 403) while it was down", async () => {
    const { repo, port, page, banner } = await sessionsPageThenStopped();
    const refuse = (route: import("playwright-core").Route) => route.fulfill({ status: 403, body: "Forbidden" });
    await page.route(/\/api\/events/, refuse);
    // Refused, as nudge web refuses a login it does not know: said so…
    await banner.filter({ hasText: "Disconnected:" }).waitFor({ timeout: 45_000 });
    await page.unroute(/\/api\/events/, refuse);
    // …and still asked, seldom: nudge web back with the login this page holds takes it again.
    web = await startWeb(repo, {}, [], port);
    await banner.waitFor({ state: "detached", timeout: 45_000 });
    await page.close();
  }, 180_000);
});
