/**
 * A turn that changes many files (here 30, written by one Bash command of the real claude): its
 * diff draws the first 25 files, names the rest and shows them on a press, so a turn that adds a
 * generated folder does not hold the page; the static export's search still finds a word in the
 * last file, kept behind that button until it looked.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserForFile, watchedPage } from "../support/browser.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";

const browser = browserForFile();
let r: Recorded;
let file: string;

beforeAll(async () => {
  const repo = await gitdir();
  // And a file of one 5,000-character line ending in a word (a minified bundle, a data blob).
  const command =
    'for i in $(seq -w 1 30); do echo "needle$i" > "gen-$i.txt"; done; (printf \'x%.0s\' $(seq 1 5000); echo tailword) > zz-long.txt';
  r = await recordSession(
    repo,
    [{ tool: "Bash", input: { command, description: "generate" } }, { text: "Generated." }],
    ["generate thirty files"],
  );
  file = path.join(tempDir("nudge-html-"), "session.html");
  const run = await runNudge(["session", "export", r.id, "--html", "-o", file], { cwd: repo });
  expect(run.exitCode, run.stderr).toBe(0);
}, 60_000);
afterAll(async () => {
  await r?.api.close();
});

async function open() {
  const url = pathToFileURL(file).href;
  const { page, watch } = await watchedPage(browser(), (u) => u === url);
  await page.goto(url);
  const diff = page.getByRole("region", { name: "Diff of turn 1" });
  await diff.getByText("gen-01.txt", { exact: true }).waitFor();
  return { page, watch, diff };
}

describe("a diff of many files", () => {
  it("draws the first 25, names the others, and draws them all on a press", async () => {
    const { page, watch, diff } = await open();
    expect(await diff.locator(".file").count()).toBe(25);
    expect(
      await diff
        .getByText("6 more files changed: gen-26.txt, gen-27.txt, gen-28.txt, gen-29.txt, gen-30.txt, …")
        .count(),
    ).toBe(1);
    await diff.getByRole("button", { name: "Show all 6" }).click();
    await expect.poll(() => diff.locator(".file").count()).toBe(31);
    expect(await diff.getByText("needle30").count()).toBe(1);
    // The long line shows its start and a button for the rest (QA: it wrapped into a screen-tall block).
    const long = diff.locator(".file").filter({ hasText: "zz-long.txt" });
    const more = long.getByRole("button", { name: "… 4,608 more characters" }); // 5,008 characters, 400 shown
    await more.waitFor();
    expect(await long.getByText("tailword").count()).toBe(0);
    await more.click();
    await long.getByText(/tailword$/).waitFor();
    expect(watch.errors).toEqual([]);
    await page.close();
  });

  it("the in-page search finds a word in a file past the first 25", async () => {
    const { page, diff } = await open();
    await page.getByRole("searchbox", { name: "Search" }).fill("needle30");
    await expect.poll(() => page.getByRole("search").locator("[aria-live]").textContent()).toBe("1 of 1");
    expect(await diff.locator(".file").count()).toBe(31);
    // Inside a long line's clipped rest too (and in the Bash command that wrote it).
    await page.getByRole("searchbox", { name: "Search" }).fill("tailword");
    await expect.poll(() => page.getByRole("search").locator("[aria-live]").textContent()).toBe("1 of 2");
    await page.close();
  });
});
