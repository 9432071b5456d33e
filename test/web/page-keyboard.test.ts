/**
 * The page from the keyboard alone, named as a screen reader names it, in real Chromium against the
 * built CLI: a destructive plan opens with focus on Cancel, Tab and Shift+Tab stay inside the open
 * modal, Escape closes it with focus back on the button that opened it (nothing done); Escape folds
 * the Outline; the session page's headings go down one level at a time; the sessions table's sort
 * buttons are named by their column (the order is the header's aria-sort).
 */
import { existsSync } from "node:fs";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserForFile, watchedPage } from "../support/browser.js";
import { gitdir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { startWeb, type WebServerRun } from "../support/web-server.js";

const browser = browserForFile();
let recorded: Recorded;
let web: WebServerRun;

beforeAll(async () => {
  const repo = await gitdir({ "notes.txt": "zero\n" });
  recorded = await recordSession(
    repo,
    [
      { tool: "Bash", input: { command: "echo hi > hi.txt", description: "write hi" } },
      { text: "Nothing to change." },
      { text: "Still nothing." },
    ],
    ["look at notes.txt", "look again"],
  );
  web = await startWeb(repo, recorded.env);
}, 120_000);
afterAll(async () => {
  await web?.stop();
  await recorded?.api.close();
});

/** What has focus, as a person would name it: its role's name, and whether it is inside an open dialog. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return {
      name: (el?.getAttribute("aria-label") ?? el?.textContent ?? "").trim(),
      tag: el?.tagName.toLowerCase() ?? "",
      inDialog: !!el?.closest("dialog[open]"),
    };
  });

async function openSession() {
  const { page, watch } = await watchedPage(browser(), (url) => url.startsWith(web.origin));
  await page.goto(web.url);
  await page.goto(`${web.origin}/s/${recorded.id}`);
  await page.getByRole("region", { name: "Turn 2", exact: true }).getByText("Still nothing.").waitFor();
  return { page, watch };
}

/** Presses Enter on the named button (focused as Tab would reach it), and waits for its dialog's plan. */
async function openWithKeyboard(page: Page, opener: ReturnType<Page["getByRole"]>, dialog: string) {
  await opener.focus();
  await page.keyboard.press("Enter");
  const d = page.getByRole("dialog", { name: dialog });
  await d.getByRole("button", { name: "Cancel" }).waitFor();
  return d;
}

describe("the page from the keyboard and a screen reader", () => {
  it(
    "Delete session: focus on Cancel, Tab kept inside, Escape back to Delete session",
    { timeout: 60_000 },
    async () => {
      const { page, watch } = await openSession();
      const opener = page.getByRole("button", { name: "Delete session" });
      const dialog = await openWithKeyboard(page, opener, "Delete session");
      expect(await focused(page)).toMatchObject({ name: "Cancel", inDialog: true });
      for (let i = 0; i < 5; i++) {
        await page.keyboard.press("Tab");
        expect((await focused(page)).inDialog).toBe(true);
      }
      for (let i = 0; i < 5; i++) {
        await page.keyboard.press("Shift+Tab");
        expect((await focused(page)).inDialog).toBe(true);
      }
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      await page.waitForTimeout(100);
      expect(await focused(page)).toMatchObject({ name: "Delete session", tag: "button", inDialog: false });
      // Escape is Cancel: the session is still there.
      expect(existsSync(recorded.dir)).toBe(true);
      expect(watch.errors).toEqual([]);
      await page.close();
    },
  );

  it("Rewind to a turn: focus on Cancel; Escape back to that turn's Rewind button", { timeout: 60_000 }, async () => {
    const { page } = await openSession();
    const opener = page
      .getByRole("region", { name: "Turn 1", exact: true })
      .getByRole("button", { name: "Rewind to turn 1" });
    const dialog = await openWithKeyboard(page, opener, "Rewind to turn 1");
    expect(await focused(page)).toMatchObject({ name: "Cancel", inDialog: true });
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await page.waitForTimeout(100);
    expect(await focused(page)).toMatchObject({ name: "Rewind to turn 1", inDialog: false });
    // Cancel, pressed with Enter, also gives focus back.
    await openWithKeyboard(page, opener, "Rewind to turn 1");
    await page.keyboard.press("Enter");
    await dialog.waitFor({ state: "detached" });
    await page.waitForTimeout(100);
    expect(await focused(page)).toMatchObject({ name: "Rewind to turn 1", inDialog: false });
    await page.close();
  });

  it(
    "Export (changes nothing): focus starts inside the dialog; Escape back to Export",
    { timeout: 60_000 },
    async () => {
      const { page } = await openSession();
      const opener = page.getByRole("button", { name: "Export", exact: true });
      const dialog = await openWithKeyboard(page, opener, "Export");
      expect((await focused(page)).inDialog).toBe(true);
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      await page.waitForTimeout(100);
      expect(await focused(page)).toMatchObject({ name: "Export", inDialog: false });
      await page.close();
    },
  );

  it("the session page's headings never skip a level (a tool call's Input and Output are under its turn)", async () => {
    const { page } = await openSession();
    const turn1 = page.getByRole("region", { name: "Turn 1", exact: true });
    await turn1
      .getByRole("group")
      .first()
      .evaluate((d) => ((d as HTMLDetailsElement).open = true));
    await turn1.getByRole("heading", { name: "Output" }).waitFor();
    const levels = await page.evaluate(() =>
      Array.from(document.querySelectorAll("main h1, main h2, main h3, main h4, main h5, main h6"), (h) =>
        Number(h.tagName[1]),
      ),
    );
    expect(levels[0]).toBe(1);
    const skips = levels.flatMap((l, i) => (i > 0 && l > levels[i - 1]! + 1 ? [`h${levels[i - 1]} → h${l}`] : []));
    expect(skips).toEqual([]);
    await page.close();
  });

  it("the Outline opened from the keyboard folds on Escape, focus back on its summary", async () => {
    const { page } = await openSession();
    const summary = page.getByText("Outline: 3 turns");
    await summary.focus();
    await page.keyboard.press("Enter");
    const outline = page.getByRole("navigation", { name: "Outline of the turns" });
    await outline.waitFor();
    await page.keyboard.press("Tab");
    expect((await focused(page)).name).toBe("the starting state");
    await page.keyboard.press("Escape");
    await outline.waitFor({ state: "hidden" });
    expect(await focused(page)).toMatchObject({ name: "Outline: 3 turns", tag: "summary" });
    await page.close();
  });

  it("the sessions table's sort buttons are named by their column alone; the order is the header's aria-sort", async () => {
    const { page } = await watchedPage(browser(), (url) => url.startsWith(web.origin));
    await page.goto(web.url);
    const lastUsed = page.getByRole("columnheader", { name: "Last used", exact: true });
    expect(await lastUsed.getAttribute("aria-sort")).toBe("descending");
    await lastUsed.getByRole("button", { name: "Last used", exact: true }).press("Enter");
    await page.getByRole("columnheader", { name: "Last used", exact: true, includeHidden: false }).waitFor();
    expect(await lastUsed.getAttribute("aria-sort")).toBe("ascending");
    await page.close();
  });
});
