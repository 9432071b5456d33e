/**
 * The sessions page's "Fork of" and "Imported from" columns sort like the others, and the filter
 * finds a fork by its parent's id as the column shows it (QA of issue 16: those two could not be
 * sorted, and filtering by the parent left its fork out). Real claude, real fork, real Chromium.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { browserForFile, watchedPage } from "../support/browser.js";
import { gitdir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { expectCleanStop, startWeb, type WebServerRun } from "../support/web-server.js";

const browser = browserForFile();
let web: WebServerRun;
let parent: Recorded;
let other: Recorded;
let forkId = "";

beforeAll(async () => {
  const repo = await gitdir();
  parent = await recordSession(repo, [{ text: "one" }, { text: "two" }], ["the parent", "more"]);
  other = await recordSession(repo, [{ text: "three" }], ["unrelated"]);
  const fork = await runNudge(["session", "fork", parent.id, "1", "--yes", "--json"], { cwd: repo });
  expect(fork.exitCode, fork.stderr).toBe(0);
  forkId = (JSON.parse(fork.stdout) as { id: string }).id;
  web = await startWeb(repo);
}, 90_000);
afterAll(async () => {
  await parent?.api.close();
  await other?.api.close();
  await expectCleanStop(web);
});

/** The sessions' ids, top to bottom. */
const ids = (page: Page) =>
  page
    .locator("tbody tr td:first-child .small")
    .evaluateAll((cells) => cells.map((c) => (c.textContent ?? "").split(" ")[0]));

describe("the sessions page's fork column", () => {
  it("sorts by Fork of, and the filter finds a fork by its parent's id", async () => {
    const { page, watch } = await watchedPage(browser(), (url) => url.startsWith(web.origin));
    await page.goto(web.url);
    await page.getByRole("link", { name: "unrelated" }).waitFor();
    await page.getByRole("button", { name: "Fork of" }).click();
    await expect.poll(() => ids(page).then((list) => list[0])).toBe(forkId);
    expect(await page.getByRole("columnheader", { name: /Fork of/ }).getAttribute("aria-sort")).toBe("descending");
    await page.getByRole("button", { name: /Fork of/ }).click();
    await expect.poll(() => ids(page).then((list) => list.at(-1))).toBe(forkId);

    await page.getByRole("searchbox", { name: "Filter" }).fill(parent.id.slice(0, 6));
    await expect.poll(() => ids(page).then((list) => [...list].sort())).toEqual([parent.id, forkId].sort());
    expect(watch.errors).toEqual([]);
    await page.close();
  });
});
