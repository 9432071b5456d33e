/**
 * `nudge web` in real headless Chromium, driven as a person drives it (roles and visible text),
 * against the built CLI serving sessions the real claude recorded: the URL with its token logs in;
 * the sessions page lists them; a session recorded while its page is open shows claude's new text
 * without a reload; a rewind from the page changes the files only after its plan is confirmed.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { browserForFile, watchedPage } from "../support/browser.js";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi } from "../support/scripted-api.js";
import { serveThreeTurnsForFile, type WebServerRun } from "../support/web-server.js";

const browser = browserForFile();
let repo = "";
let id = "";
let web: WebServerRun;
serveThreeTurnsForFile((served) => ((repo = served.repo), (id = served.id), (web = served.web)));

/** A page that may load only from this server. */
const openPage = () => watchedPage(browser(), (url) => url.startsWith(web.origin));
const notes = () => readFileSync(path.join(repo, "notes.txt"), "utf8");

describe("nudge web in Chromium", () => {
  it("logs in with the printed URL and lists the recorded sessions", async () => {
    const { page, watch } = await openPage();
    await page.goto(web.url);
    expect(page.url()).toBe(`${web.origin}/`); // the token left the address bar
    await page.getByRole("link", { name: "write notes" }).waitFor();
    const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: "write notes" }) });
    expect(await row.textContent()).toContain("3"); // turns
    expect(watch.errors).toEqual([]);
    // A fresh browser without the token gets nothing.
    const { page: stranger } = await openPage();
    const refused = await stranger.goto(`${web.origin}/`);
    expect(refused?.status()).toBe(403);
    await page.close();
    await stranger.close();
  });

  it("gives a diff's code the width, not its line numbers (unified and side by side)", async () => {
    const { page, watch } = await openPage();
    await page.goto(web.url);
    await page.getByRole("link", { name: "write notes" }).click();
    const turn = page.getByRole("region", { name: "Turn 2", exact: true });
    // The table's first row is the hunk header spanning every column; the gutters stay narrow all the same.
    const widths = async (table: string) => {
      await turn.locator(table).first().waitFor();
      return turn
        .locator(table)
        .first()
        .evaluate((t) => ({
          table: t.getBoundingClientRect().width,
          ln: t.querySelector("td.ln")!.getBoundingClientRect().width,
        }));
    };
    const unified = await widths("table.lines.unified");
    expect(unified.ln).toBeLessThan(unified.table * 0.1);
    await turn.getByRole("button", { name: "Side by side" }).click();
    const split = await widths("table.lines.split");
    expect(split.ln).toBeLessThan(split.table * 0.1);
    expect(watch.errors).toEqual([]);
    await page.close();
  });

  it("shows a live session's new text without a reload", async () => {
    const { page, watch } = await openPage();
    await page.goto(web.url);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const api = await startScriptedApi([{ textParts: ["Working on it: ", held, "the live answer arrived."] }]);
    try {
      const run = runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN], {
        cwd: repo,
        env: claudeEnv(api, path.join(tempDir(), "cfg")),
        input: "answer me live\n",
      });
      // The sessions page hears of the new session by itself. (Its title, the first prompt, is known once that turn is saved.)
      await page.getByRole("row").filter({ hasText: "recording" }).getByRole("link").click();
      await page.getByRole("region", { name: "Turn 1", exact: true }).getByText("answer me live").waitFor();
      // A mark on the page's global object: a reload would lose it. (No DOM types here: globalThis is the window.)
      await page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));
      release();
      await page.getByRole("region", { name: "Turn 1", exact: true }).getByText("the live answer arrived.").waitFor();
      expect(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(true);
      expect((await run).exitCode).toBe(0);
      expect(watch.errors).toEqual([]);
    } finally {
      release();
      await api.close();
      await page.close();
    }
  });

  it("rewinds from the page: the plan in a dialog, the files changed only after Confirm", async () => {
    const { page, watch } = await openPage();
    await page.goto(web.url);
    await page.getByRole("link", { name: "write notes" }).click();
    await page.getByRole("region", { name: "Turn 1", exact: true }).waitFor();
    await page.getByRole("button", { name: "Rewind to turn 1" }).click();
    const dialog = page.getByRole("dialog", { name: "Rewind to turn 1" });
    await dialog.getByText(`rewind session ${id} to turn 1`).waitFor();
    expect(await dialog.textContent()).toContain("notes.txt");
    expect(notes()).toBe("alpha\nBETA\ngamma\n"); // asked, not done
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await dialog.getByText(/^rewound to turn 1 · backup/).waitFor();
    expect(notes()).toBe("alpha\nbeta\ngamma\n");
    expect(watch.errors).toEqual([]);
    await page.close();
  });

  it("exports from the page: the tarball downloads once under its name, and the link gives way (QA: a second click saved the refusal as true.json)", async () => {
    const { page, watch } = await openPage();
    await page.goto(web.url);
    await page.getByRole("link", { name: "write notes" }).click();
    await page.getByRole("button", { name: "Export" }).click();
    const dialog = page.getByRole("dialog", { name: "Export" });
    await dialog.getByRole("button", { name: "Confirm" }).click();
    const downloaded = page.waitForEvent("download");
    await dialog.getByRole("link", { name: "Download the export" }).click();
    expect((await downloaded).suggestedFilename()).toMatch(/^nudge-[0-9a-f]+\.tar\.gz$/);
    await dialog.getByText("the server gives this export once").waitFor();
    expect(await dialog.getByRole("link", { name: "Download the export" }).count()).toBe(0);
    expect(watch.errors).toEqual([]);
    await page.close();
  });

  it("compares two turns: what was typed stays, a wrong number is named, Enter compares (QA: 99 became 0 or 3 unasked)", async () => {
    const { page, watch } = await openPage();
    await page.goto(web.url);
    await page.getByRole("link", { name: "write notes" }).click();
    const compare = page.getByRole("region", { name: "Compare turns" });
    const from = compare.getByRole("spinbutton", { name: "From turn" });
    const to = compare.getByRole("spinbutton", { name: "to turn" });
    await from.fill("1");
    await to.fill("99");
    await compare.getByRole("button", { name: "Compare" }).click();
    await compare.getByText("the second turn 99 is not in this session (turns 0 to 3)").waitFor();
    expect([await from.inputValue(), await to.inputValue()]).toEqual(["1", "99"]);
    await from.fill("2");
    await to.fill("1");
    await to.press("Enter");
    await compare.getByText("the first turn must come before the second (2 is not before 1)").waitFor();
    await to.fill("3");
    await to.press("Enter");
    await compare.getByRole("region", { name: "Changes from turn 2 to turn 3" }).waitFor();
    expect(await compare.getByRole("alert").count()).toBe(0);
    expect(watch.errors).toEqual([]);
    await page.close();
  });

  // Last: it deletes the file's session.
  it("deleted from its own page: one line says so, not an error in every turn (QA: the same error three times)", async () => {
    const { page, watch } = await openPage();
    await page.goto(web.url);
    await page.getByRole("link", { name: "write notes" }).click();
    await page.getByRole("region", { name: "Turn 1", exact: true }).waitFor();
    await page.getByRole("button", { name: "Delete session" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete session" });
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await page.getByText(`Session ${id} is no longer in this repository (deleted).`).waitFor();
    expect(await page.getByText(/no session matches/).count()).toBe(0);
    expect(watch.errors).toEqual([]);
    await page.close();
  });
});
