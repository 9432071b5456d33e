/**
 * A long session's page (1,000 turns; the bench's synthetic views, as a static export) in real
 * Chromium: the sections are drawn a chunk at a time while the browser is idle, and End before
 * they are all drawn still goes to the last turn (QA of issue 16: End stopped at turn 213).
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { syntheticSession } from "../../bench/page-bench.js";
import { readPageAssets } from "../../src/web/page/assets.js";
import { pageDocument } from "../../src/web/page/document.js";
import { browserForFile, watchedPage } from "../support/browser.js";
import { tempDir } from "../support/gitdir.js";

const browser = browserForFile();

describe("a long session's page", () => {
  it("goes to the last turn on End, drawing what was not drawn yet", async () => {
    const file = path.join(tempDir("nudge-html-"), "long.html");
    writeFileSync(
      file,
      pageDocument({ mode: "static", title: "long", ...(await readPageAssets()), data: syntheticSession(1000) }),
    );
    const url = pathToFileURL(file).href;
    const { page, watch } = await watchedPage(browser(), (u) => u === url);
    // A machine four times slower (CI's is loaded): the sections near the end then take their
    // real height after the first scroll to the end, which left the last turn below the screen.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
    await page.goto(url);
    await page.locator("#turn-1 .entries").waitFor();
    // Not all drawn yet: the first chunks only.
    expect(await page.locator("#turn-1000").count()).toBe(0);
    await page.keyboard.press("End");
    await expect.poll(() => page.locator("#turn-1000").isVisible(), { timeout: 10_000 }).toBe(true);
    await expect
      .poll(
        () =>
          page
            .locator("#turn-1000")
            .evaluate(
              (el) => el.getBoundingClientRect().top < (globalThis as unknown as { innerHeight: number }).innerHeight,
            ),
        { timeout: 10_000 },
      )
      .toBe(true);
    expect(watch.errors).toEqual([]);
    await page.close();
  });

  it("printing draws every turn with its entries first (QA: turns not drawn yet were lost on paper)", async () => {
    const file = path.join(tempDir("nudge-html-"), "long.html");
    writeFileSync(
      file,
      pageDocument({ mode: "static", title: "long", ...(await readPageAssets()), data: syntheticSession(1000) }),
    );
    const url = pathToFileURL(file).href;
    const { page, watch } = await watchedPage(browser(), (u) => u === url);
    await page.goto(url);
    await page.locator("#turn-1 .entries").waitFor();
    expect(await page.locator("#turn-1000").count()).toBe(0);
    // What the browser fires before it lays the page out for print (Ctrl-P).
    await page.evaluate(() => (globalThis as unknown as EventTarget).dispatchEvent(new Event("beforeprint")));
    await page.emulateMedia({ media: "print" });
    expect(await page.locator("section.turn").count()).toBe(1001); // turns 0 to 1000
    expect(await page.locator("#turn-1000 .entries").count()).toBe(1);
    expect(watch.errors).toEqual([]);
    await page.close();
  });
});
