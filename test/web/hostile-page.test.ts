/**
 * A session made of hostile text (fixtures/hostile-session: script tags, event handlers,
 * javascript: and data: links, SVG, iframes, CSS injection, meta refresh, remote images, ANSI,
 * a 10 MB line, invalid UTF-8, a </script> breakout, template injection, bidi overrides, a
 * __proto__ key) rendered in real Chromium, as a static export from file:// and served by
 * `nudge web`: no dialog, no request leaves, no global set, and the payloads show as text.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { browserForFile, watchedPage, type Watch } from "../support/browser.js";
import { tempDir } from "../support/gitdir.js";
import { HOSTILE_FILE, PAYLOADS, writeHostileSession } from "../support/hostile-session.js";
import { runNudge } from "../support/run-nudge.js";
import { startWeb, type WebServerRun } from "../support/web-server.js";

const browser = browserForFile();
let repo: string;
let id: string;
let web: WebServerRun | undefined;

beforeAll(async () => {
  ({ repo, id } = await writeHostileSession());
}, 60_000);
afterAll(async () => {
  await web?.stop();
});

/** What nothing in a session may make the page do or hold. */
async function expectInert(page: Page, watch: Watch, allowed: (url: string) => boolean) {
  // Let anything that would fire (onerror, onload, a refresh) have its chance.
  await page.waitForTimeout(300);
  expect(watch.dialogs).toEqual([]);
  expect(watch.requests.filter((u) => !allowed(u))).toEqual([]);
  expect(watch.errors).toEqual([]);
  expect(
    await page.evaluate(() => [
      typeof (globalThis as { pwned?: unknown }).pwned,
      typeof ({} as { pwned?: unknown }).pwned,
    ]),
  ).toEqual(["undefined", "undefined"]);
  // No element a payload could have smuggled in (the page's own search and New session forms aside), and no link but http(s), opened apart.
  const smuggled = await page
    .locator("#app")
    .locator(
      "script, img, iframe, object, embed, meta, link, base, form:not(.search):not(.start-session):not(.compare-form), math, style, [onerror], [onload], [style]",
    )
    .evaluateAll((els) => els.map((e) => e.outerHTML.slice(0, 200)));
  expect(smuggled).toEqual([]);
  for (const a of await page.locator("#app a[href]").all()) {
    const href = (await a.getAttribute("href"))!;
    // The page's own links: sessions and forks; a turn's permalink and the outline's links to turns (never the session's: markdown links are http(s) or text).
    if (href.startsWith("/") || /^#turn-\d+$/.test(href)) {
      expect(await a.evaluate((el) => el.closest(".markdown") === null)).toBe(true);
      continue;
    }
    expect(href).toMatch(/^(https?|mailto):/);
    expect([href, await a.getAttribute("target"), await a.getAttribute("rel")]).toEqual([
      href,
      "_blank",
      "noopener noreferrer",
    ]);
  }
}

/** The payloads are on the page as text. */
async function expectShownAsText(page: Page) {
  const turn1 = page.getByRole("region", { name: "Turn 1", exact: true });
  await turn1.getByText(PAYLOADS[0]!, { exact: true }).first().waitFor();
  const markdown = (await turn1.locator(".markdown").first().textContent())!;
  for (const p of [PAYLOADS[1]!, PAYLOADS[4]!, PAYLOADS[5]!, PAYLOADS[12]!]) expect(markdown).toContain(p);
  // ANSI and bidi controls arrive as visible escapes, never obeyed.
  expect(markdown).toContain("\\x1b]0;pwned title\\x07\\x1b[31mred text");
  expect(markdown).toContain("abc\\u202eevil.txt\\u2066hidden\\u2069");
  // The permission's answer, the unknown line, the invalid UTF-8, the hostile file name in the diff.
  await turn1.getByText("Denied", { exact: true }).waitFor();
  expect(await turn1.locator(".permission").textContent()).toContain(PAYLOADS[1]);
  expect(await turn1.locator("details.raw").count()).toBe(2);
  expect(await turn1.locator("details.raw summary").first().textContent()).toContain("A line nudge does not know");
  const diff = turn1.getByRole("region", { name: "Diff of turn 1" });
  await diff.getByText(HOSTILE_FILE.replace("\u202e", "\\u202e"), { exact: true }).waitFor();
  expect(await diff.textContent()).toContain(PAYLOADS[0]);
  // A tool's input as JSON: its controls in the one style (`\x1b`), not JSON's (`\u001b`).
  const tool = turn1.locator("details.tool").first();
  await tool.locator("summary").first().click();
  const input = (await tool.locator("pre").first().textContent())!;
  expect(input).toContain('"ansi": "\\x1b]0;pwned title\\x07\\x1b[31mred text');
  expect(input).not.toContain("\\u001b");
  // The 10 MB tool output, collapsed, with its payload only as text.
  const turn2 = page.getByRole("region", { name: "Turn 2", exact: true });
  await turn2.locator("details.tool").first().waitFor();
  // A Write shown as the file it writes: its name and text with their controls as escapes.
  const write = turn2.locator("details.tool").filter({ has: page.locator("summary", { hasText: "Write" }) });
  await write.locator("summary").click();
  const file = write.locator("figure.file-input");
  expect(await file.locator("figcaption").textContent()).toContain("bidi\\u202etxt.exe");
  expect(await file.getAttribute("aria-label")).toContain("bidi\\u202etxt.exe");
  const text = (await file.locator("pre").textContent())!;
  expect(text).toContain("abc \\u202e olleh \\u2066x\\u2069 \\u200b zero\n\\x1b[2J\\x1b]8;;http://evil\\x07link");
  expect(text).not.toMatch(/[\u001b\u0007\u200b\u202e\u2066\u2069]/);
}

describe("a hostile session", () => {
  it("as a static export from file://: nothing runs, nothing loads, everything shows as text", async () => {
    const file = path.join(tempDir("nudge-hostile-"), "hostile.html");
    const run = await runNudge(["session", "export", id, "--html", "-o", file], { cwd: repo });
    expect(run.exitCode, run.stderr).toBe(0);
    const url = pathToFileURL(file).href;
    const { page, watch } = await watchedPage(browser(), (u) => u === url);
    await page.goto(url);
    await expectShownAsText(page);
    await expectInert(page, watch, (u) => u === url);
    await page.close();
  }, 120_000);

  it("served by nudge web: the sessions page and the session page, nothing runs, no request leaves", async () => {
    web = await startWeb(repo);
    const origin = web.origin;
    const { page, watch } = await watchedPage(browser(), (u) => u.startsWith(`${origin}/`));
    await page.goto(web.url);
    const row = page.getByRole("row").filter({ hasText: id });
    await row.getByRole("link", { name: PAYLOADS[0] }).waitFor();
    await expectInert(page, watch, (u) => u.startsWith(`${origin}/`));
    await row.getByRole("link", { name: PAYLOADS[0] }).click();
    await page.getByRole("heading", { level: 1, name: PAYLOADS[0] }).waitFor();
    await expectShownAsText(page);
    // Served, a 10 MB output shows its start, and its whole is a download, never drawn.
    const tool = page.getByRole("region", { name: "Turn 2", exact: true }).locator("details.tool").first();
    await tool.locator("summary").click();
    await tool.getByRole("link", { name: "Download whole (10.0 MB)" }).waitFor();
    await expectInert(page, watch, (u) => u.startsWith(`${origin}/`));
    await page.close();
  }, 120_000);
});
