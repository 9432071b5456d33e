/**
 * The sessions page in real headless Chromium, as a person uses it: three sessions the real claude
 * recorded in one repository, sorted by a column's header (again to reverse) and filtered by what
 * is typed (words of the prompt, the id), with a line saying so when nothing matches.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { browserForFile, watchedPage } from "../support/browser.js";
import { gitdir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { expectCleanStop, startWeb, type WebServerRun } from "../support/web-server.js";

const browser = browserForFile();
let web: WebServerRun;
const recorded: Recorded[] = [];

beforeAll(async () => {
  const repo = await gitdir();
  // Recorded one after the other: the last recorded is the one used last.
  for (const prompts of [
    ["beta: rename the tests", "and once more"],
    ["gamma: tidy the docs"],
    ["alpha: fix the parser", "again", "and again"],
  ]) {
    recorded.push(
      await recordSession(
        repo,
        prompts.map((_, i) => ({ text: `reply ${i + 1}` })),
        prompts,
      ),
    );
  }
  web = await startWeb(repo);
}, 90_000);
afterAll(async () => {
  for (const r of recorded) await r.api.close();
  await expectCleanStop(web);
});

/** The sessions' titles, top to bottom, as the table shows them. */
async function order(page: Page): Promise<string[]> {
  return page.locator("tbody tr td:first-child a").allTextContents();
}

describe("the sessions page", () => {
  it("sorts by the column whose header is pressed, and reverses on a second press", async () => {
    const { page, watch } = await watchedPage(browser(), (url) => url.startsWith(web.origin));
    await page.goto(web.url);
    await page.getByRole("link", { name: "alpha: fix the parser" }).waitFor();
    // Newest use first.
    await expect
      .poll(() => order(page))
      .toEqual(["alpha: fix the parser", "gamma: tidy the docs", "beta: rename the tests"]);

    await page.getByRole("button", { name: "Turns" }).click();
    await expect
      .poll(() => order(page))
      .toEqual(["alpha: fix the parser", "beta: rename the tests", "gamma: tidy the docs"]);
    expect(await page.getByRole("columnheader", { name: /Turns/ }).getAttribute("aria-sort")).toBe("descending");
    await page.getByRole("button", { name: /Turns/ }).click();
    await expect
      .poll(() => order(page))
      .toEqual(["gamma: tidy the docs", "beta: rename the tests", "alpha: fix the parser"]);
    expect(await page.getByRole("columnheader", { name: /Turns/ }).getAttribute("aria-sort")).toBe("ascending");

    await page.getByRole("button", { name: "Session" }).click();
    await expect
      .poll(() => order(page))
      .toEqual(["alpha: fix the parser", "beta: rename the tests", "gamma: tidy the docs"]);
    await page.getByRole("button", { name: /Started/ }).click();
    await expect
      .poll(() => order(page))
      .toEqual(["alpha: fix the parser", "gamma: tidy the docs", "beta: rename the tests"]);
    expect(watch.errors).toEqual([]);
    await page.close();
  });

  it("filters by the words typed (prompt or id), and says when nothing matches", async () => {
    const { page, watch } = await watchedPage(browser(), (url) => url.startsWith(web.origin));
    await page.goto(web.url);
    const filter = page.getByRole("searchbox", { name: "Filter" });
    await page.getByRole("link", { name: "alpha: fix the parser" }).waitFor();

    await filter.fill("TIDY docs");
    await expect.poll(() => order(page)).toEqual(["gamma: tidy the docs"]);
    await filter.fill(recorded[0]!.id);
    await expect.poll(() => order(page)).toEqual(["beta: rename the tests"]);
    await filter.fill("parser nowhere");
    await expect.poll(() => order(page)).toEqual([]);
    await page.getByText("No session matches the filter.").waitFor();
    await filter.fill("");
    await expect.poll(() => order(page)).toHaveLength(3);
    expect(watch.errors).toEqual([]);
    await page.close();
  });

  it("searches every session from the page: each hit names its turn, marks the words, and leads to it", async () => {
    const { page, watch } = await watchedPage(browser(), (url) => url.startsWith(web.origin));
    await page.goto(web.url);
    const search = page.getByRole("region", { name: "Search every session" });
    await search.getByRole("searchbox").fill("tidy");
    const gamma = recorded[1]!.id;
    const hit = search.getByRole("link", { name: `${gamma} · turn 1` });
    await hit.waitFor();
    expect(await search.locator("mark").first().textContent()).toBe("tidy");
    await search.getByRole("searchbox").fill("nowhere-to-be-found");
    await search.getByText("Nothing found.").waitFor();
    await search.getByRole("searchbox").fill("tidy");
    await hit.click();
    await page.waitForURL(`${web.origin}/s/${gamma}?turn=1`);
    await page.getByRole("heading", { name: "gamma: tidy the docs", level: 1 }).waitFor();
    expect(watch.errors).toEqual([]);
    await page.close();
  });
});
