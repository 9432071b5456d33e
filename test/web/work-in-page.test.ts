/**
 * Working in `nudge web` as a person does, in real Chromium against the built CLI and the real
 * claude: the live turn stays in view while claude works (a long turn 0 above it), "Jump to live"
 * after scrolling away, a stopped turn and the next prompt shown without scrolling; actions that
 * cannot be done on a live session say why before the click; a rewind undone from the page; deep
 * links to turns, a turn that does not exist, a session that does not exist; a search kept across
 * Back, driven by the keyboard; task lists, quotes, local links, a Write shown as its file, and a
 * very long answer rendered as markdown; the sessions table at a phone's width.
 */
import { execa } from "execa";
import { cpSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { browserForFile, watchedPage } from "../support/browser.js";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir, writeFiles } from "../support/gitdir.js";
import { recordSession } from "../support/record.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { startWeb, type WebServerRun } from "../support/web-server.js";

const browser = browserForFile();
let api: ScriptedApi | undefined;
let web: WebServerRun | undefined;
afterEach(async () => {
  await web?.stop();
  await api?.close();
  web = api = undefined;
});

const openPage = async (w: WebServerRun, viewport = { width: 1200, height: 800 }) => {
  const { page, watch } = await watchedPage(browser(), (url) => url.startsWith(w.origin));
  await page.setViewportSize(viewport);
  await page.goto(w.url);
  return { page, watch };
};

/** Whether any part of the element is inside the window (and not under the sticky prompt panel). */
const inView = (page: Page, name: string) =>
  page.getByRole("region", { name, exact: true }).evaluate((el) => {
    const box = el.getBoundingClientRect();
    const panel = document.querySelector(".live-panel")?.getBoundingClientRect().top ?? innerHeight;
    return box.bottom > 0 && box.top < Math.min(innerHeight, panel);
  });

describe("driving a session from the page", () => {
  it(
    "keeps the live turn in view under a long turn 0, offers Jump to live, and shows a stopped turn and the next one without scrolling",
    { timeout: 120_000 },
    async () => {
      const repo = await gitdir();
      // Uncommitted work when the session starts: turn 0's diff is several screens long.
      writeFiles(
        repo,
        Object.fromEntries(
          Array.from({ length: 30 }, (_, i) => [
            `draft-${i}.txt`,
            Array.from({ length: 20 }, (_, j) => `line ${j}`).join("\n") + "\n",
          ]),
        ),
      );
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      api = await startScriptedApi([{ textParts: ["Working on it… ", held, "done."] }, { text: "The second answer." }]);
      web = await startWeb(repo, { ...claudeEnv(api, path.join(tempDir(), "cfg")), NUDGE_CLAUDE_BIN: CLAUDE_BIN });
      const { page, watch } = await openPage(web);
      await page.getByRole("textbox", { name: "New session" }).fill("think slowly");
      await page.getByRole("button", { name: "Start", exact: true }).click();
      const turn1 = page.getByRole("region", { name: "Turn 1", exact: true });
      await turn1.getByText("Working on it…").waitFor();
      // Turn 0's diff drawn: the page is several screens long, and the live turn is at its end.
      await page.locator("#turn-0 section.diff .file").first().waitFor({ state: "attached" });
      await expect.poll(() => page.evaluate(() => document.documentElement.scrollHeight > 2 * innerHeight)).toBe(true);
      await expect.poll(() => inView(page, "Turn 1")).toBe(true);
      await expect
        .poll(() => page.locator("#turn-0-title").evaluate((el) => el.getBoundingClientRect().bottom > 0))
        .toBe(false);

      // A live session cannot be rewound, forked or deleted from its buttons: said before any click.
      await expect.poll(() => page.getByRole("button", { name: "Rewind to turn 0" }).isDisabled()).toBe(true);
      await expect.poll(() => page.getByRole("button", { name: "Fork at turn 0" }).isDisabled()).toBe(true);
      await expect.poll(() => page.getByRole("button", { name: "Delete session" }).isDisabled()).toBe(true);
      // Once the page knows it drives the session (its live state), the reason says so.
      await expect
        .poll(() => page.getByText("Rewind, fork and delete wait:").textContent())
        .toContain("This page drives the session");

      // The user scrolls away: the page stays where the user is, and offers the way back.
      await page.mouse.move(600, 200);
      await page.mouse.wheel(0, -20000);
      await expect.poll(() => inView(page, "Turn 1")).toBe(false);
      await page.getByRole("button", { name: "Jump to live" }).click();
      await expect.poll(() => inView(page, "Turn 1")).toBe(true);

      // Going to a turn by its link leaves the live end: the page stays there while the turns change.
      await page.getByRole("link", { name: "Link to turn 0" }).click();
      const turn0AtTop = () =>
        page.locator("#turn-0-title").evaluate((el) => Math.abs(el.getBoundingClientRect().top) < 80);
      await expect.poll(turn0AtTop).toBe(true);
      // Past the jump's own settling (2 s without a change of size), the page grows: it stays on turn 0.
      await page.waitForTimeout(2500);
      // (clicked from the page's script: Playwright would scroll to the button first)
      await page
        .getByRole("region", { name: "Turn 0", exact: true })
        .getByRole("button", { name: "Show all 5" })
        .evaluate((b) => (b as HTMLButtonElement).click());
      await page.waitForTimeout(800);
      expect(await turn0AtTop()).toBe(true);
      await page.getByRole("button", { name: "Jump to live" }).click();
      await expect.poll(() => inView(page, "Turn 1")).toBe(true);

      await page.getByRole("button", { name: "Stop" }).click();
      await turn1.getByText("interrupted").first().waitFor();
      release();
      // The stopped turn keeps its prompt on the page.
      await turn1.getByText("think slowly").waitFor();
      const prompt = page.getByRole("textbox", { name: "Prompt" });
      await page.getByRole("button", { name: "Send" }).waitFor();
      await prompt.fill("and now?");
      await prompt.press("Enter");
      // No scrolling: the next turn's prompt and answer come into view by themselves.
      const turn2 = page.getByRole("region", { name: "Turn 2", exact: true });
      await turn2.getByText("The second answer.").waitFor({ timeout: 20_000 });
      await expect.poll(() => inView(page, "Turn 2")).toBe(true);
      // Still following after the clicks on Stop and Send: at the end, and no "Jump to live" offered.
      await expect
        .poll(() => page.evaluate(() => innerHeight + scrollY >= document.documentElement.scrollHeight - 48))
        .toBe(true);
      expect(await page.getByRole("button", { name: "Jump to live" }).count()).toBe(0);
      expect(watch.errors).toEqual([]);
      await page.close();
    },
  );
});

describe("a recorded session on the page", () => {
  it("undoes a rewind from the page, links to turns, says a turn or a session is not there, and keeps a search across Back", async () => {
    const repo = await gitdir({ "notes.txt": "one\n" });
    const recorded = await recordSession(
      repo,
      [
        { tool: "Write", input: { file_path: path.join(repo, "notes.txt"), content: "two\n" } },
        { text: "Wrote two. The word is zanzibar." },
        { tool: "Write", input: { file_path: path.join(repo, "notes.txt"), content: "three\n" } },
        { text: "Wrote three." },
      ],
      ["write two", "write three"],
    );
    api = recorded.api;
    web = await startWeb(repo);
    const { page, watch } = await openPage(web);

    // Search, by the keyboard: Enter looks it up at once, Down goes to the hits, Enter opens one.
    const search = page.getByRole("searchbox", { name: "Search every session" });
    await search.fill("zanzibar");
    await search.press("Enter");
    const hit = page.getByRole("link", { name: `${recorded.id} · turn 1` });
    await hit.waitFor();
    await search.press("ArrowDown");
    expect(await hit.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/s\/\w+\?turn=1/);
    await page.goBack();
    // Back: the query and its hits are as they were left.
    expect(await page.getByRole("searchbox", { name: "Search every session" }).inputValue()).toBe("zanzibar");
    await page.getByRole("link", { name: `${recorded.id} · turn 1` }).waitFor();

    // A deep link to a turn scrolls to it; a heading's permalink is that link.
    await page.goto(`${web.origin}/s/${recorded.id}#turn-2`);
    await page.getByRole("region", { name: "Turn 2", exact: true }).getByText("Wrote three.").waitFor();
    expect(await page.getByRole("link", { name: "Link to turn 2" }).getAttribute("href")).toBe("#turn-2");
    await page.goto(`${web.origin}/s/${recorded.id}?turn=99`);
    await page.getByText("This session has no turn 99: its turns are 0 to 2.").waitFor();
    await page.goto(`${web.origin}/s/${recorded.id}?turn=abc`);
    await page.getByText("“abc” is no turn number: this session's turns are 0 to 2.").waitFor();
    // One that does not even decode is said the same way, not a blank page.
    await page.goto(`${web.origin}/s/${recorded.id}?turn=%25`);
    await page.getByText("“%” is no turn number: this session's turns are 0 to 2.").waitFor();
    await page.goto(`${web.origin}/s/${recorded.id}#turn-%zz`);
    await page.getByText("“%zz” is no turn number: this session's turns are 0 to 2.").waitFor();

    // A rewind, then its undo, both from the page, each after its plan.
    await page.goto(`${web.origin}/s/${recorded.id}`);
    await page
      .getByRole("region", { name: "Turn 1", exact: true })
      .getByRole("button", { name: "Rewind to turn 1" })
      .click();
    const rewind = page.getByRole("dialog", { name: "Rewind to turn 1" });
    await rewind.getByRole("button", { name: "Confirm" }).click();
    await rewind.getByRole("button", { name: "Undo it" }).click();
    expect(readFileSync(path.join(repo, "notes.txt"), "utf8")).toBe("two\n");
    const undo = page.getByRole("dialog", { name: "Undo the rewind" });
    await undo.getByRole("button", { name: "Confirm" }).click();
    await undo.getByText(/undid the rewind of \w+ to turn 1/).waitFor();
    expect(readFileSync(path.join(repo, "notes.txt"), "utf8")).toBe("three\n");
    await undo.getByRole("button", { name: "Close" }).click();

    // A prefix of two sessions' ids: the page names both (from the server's answer, not its words).
    const twin = `${recorded.id.slice(0, 2)}${recorded.id.slice(2) === "ffffffff" ? "eeeeeeee" : "ffffffff"}`;
    cpSync(recorded.dir, path.join(path.dirname(recorded.dir), twin), { recursive: true });
    await page.goto(`${web.origin}/s/${recorded.id.slice(0, 2)}`);
    await page.getByRole("heading", { name: "Which session?" }).waitFor();
    expect(await page.getByRole("listitem").allTextContents()).toEqual([recorded.id, twin].sort());

    // A mistyped session's address: said as such, not as a lost login.
    await page.goto(`${web.origin}/s/nosuchsession`);
    await page.getByRole("heading", { name: "No such session" }).waitFor();
    await page.waitForTimeout(3500);
    expect(await page.getByRole("alert").count()).toBe(0);
    expect(watch.errors).toEqual([]);
    await page.close();
  });

  it("renders task lists, quotes, local links, a Write as its file, and a one-megabyte answer as markdown", async () => {
    const repo = await gitdir();
    const long = [
      ...Array.from({ length: 25_000 }, (_, i) => `Paragraph ${i} of a very long answer, with **bold** words.\n`),
      "# The end of the long answer",
      "",
    ].join("\n");
    const recorded = await recordSession(
      repo,
      [
        {
          tool: "Write",
          input: {
            file_path: path.join(repo, "port.ts"),
            content: 'export const port = Number(process.env.PORT ?? "3000");\nexport const host = "127.0.0.1";\n',
          },
        },
        {
          text: [
            "- [x] read the code",
            "- [ ] write the tests",
            "",
            "> quoted from the docs",
            "",
            "See [the notes](./NOTES.md) and [the spec][spec].",
            "",
            "[spec]: docs/spec.md",
            "",
            "```sh",
            "npm test",
            "```",
          ].join("\n"),
        },
        { text: long },
        { text: "After the long one." },
      ],
      ["write the port", "say a lot", "and after"],
    );
    api = recorded.api;
    web = await startWeb(repo);
    const { page, watch } = await openPage(web);
    await page.goto(`${web.origin}/s/${recorded.id}`);
    const turn1 = page.getByRole("region", { name: "Turn 1", exact: true });
    await turn1.getByText("read the code").waitFor();
    expect(await turn1.locator(".task.done").textContent()).toBe("☑");
    expect(await turn1.locator(".task:not(.done)").textContent()).toBe("☐");
    expect(await turn1.locator("blockquote").textContent()).toContain("quoted from the docs");
    // A path in the repository is named, not shown as raw markdown, and not a link the page would follow.
    expect(await turn1.locator(".markdown").textContent()).not.toContain("](");
    expect(await turn1.locator(".local-link", { hasText: "the spec" }).getAttribute("title")).toContain("docs/spec.md");
    expect(await turn1.getByRole("link", { name: "the notes" }).count()).toBe(0);
    // Code blocks have a Copy button.
    await turn1.getByRole("button", { name: "Copy" }).waitFor();
    // The Write's input is the file, highlighted, not JSON.
    await turn1.locator("summary", { hasText: "Write" }).click();
    const file = turn1.getByRole("figure", { name: `The file ${path.join(repo, "port.ts")}` });
    expect(await file.textContent()).toContain('export const host = "127.0.0.1";');
    expect(await file.textContent()).not.toContain("\\n");
    expect(await file.locator(".hljs-keyword").count()).toBeGreaterThan(0);

    // The megabyte answer is markdown all the way down, and the turn after it is drawn.
    const turn2 = page.getByRole("region", { name: "Turn 2", exact: true });
    await turn2.getByText("Paragraph 0 of a very long answer").waitFor();
    await page.getByRole("region", { name: "Turn 3", exact: true }).scrollIntoViewIfNeeded();
    await page.getByRole("region", { name: "Turn 3", exact: true }).getByText("After the long one.").waitFor();
    // The last piece of the long answer is next to turn 3, so it is near the screen now: rendered.
    await turn2.getByRole("heading", { name: "The end of the long answer" }).waitFor();
    expect(watch.errors).toEqual([]);
    await page.close();
  });

  it("keeps turns, cost and state in the sessions table at 390 px wide", async () => {
    const repo = await gitdir();
    const recorded = await recordSession(repo, [{ text: "Hello." }], ["say hello"]);
    // A title with a long unbroken word (a path, a tag) wraps: the page does not get wider than the phone.
    await (
      await recordSession(
        repo,
        [{ text: "Long." }],
        ["look-at-/src/components/very-long-folder-name/and/a/file-name.tsx"],
      )
    ).api.close();
    api = recorded.api;
    web = await startWeb(repo);
    const { page } = await openPage(web, { width: 390, height: 844 });
    await page.getByRole("link", { name: "say hello" }).waitFor();
    for (const name of ["Turns", "Cost", "State"]) {
      const box = await page.getByRole("columnheader", { name }).boundingBox();
      expect(box, name).not.toBeNull();
      expect(box!.x + box!.width, name).toBeLessThanOrEqual(390);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // A cost and a state are never broken inside ("$0.16 / 63", "comple / te"): each on one line.
    const lines = await page.evaluate(() =>
      Array.from(document.querySelectorAll("td.num, .state")).map((cell) => {
        const range = document.createRange();
        range.selectNodeContents(cell);
        return [cell.textContent, new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size];
      }),
    );
    expect(lines.length).toBeGreaterThan(0);
    for (const [text, count] of lines) expect(count, String(text)).toBe(1);
    await page.close();
  });

  it("lists every project claude kept sessions for, nudge or not: sessions, last use, a folder that is gone, the way to each", async () => {
    const [served, other, gone] = [await gitdir(), await gitdir(), await gitdir()];
    const config = path.join(tempDir(), "claude");
    api = await startScriptedApi([{ text: "one" }, { text: "two" }, { text: "three" }, { text: "four" }]);
    const env = claudeEnv(api, config);
    // Plain claude, nudge not involved: the sessions every user already has on disk.
    for (const cwd of [served, served, other, gone]) {
      const run = await execa(CLAUDE_BIN, ["-p", "hello"], { cwd, env: { ...process.env, ...env }, reject: false });
      expect(run.exitCode, run.stderr).toBe(0);
    }
    rmSync(gone, { recursive: true, force: true });
    // A link inside claude's folder is not followed.
    symlinkSync(served, path.join(config, "projects", "a-link"));
    web = await startWeb(served, env);
    const { page, watch } = await openPage(web);
    await page.getByRole("link", { name: "All projects" }).click();
    await page.getByRole("heading", { name: "All projects" }).waitFor();
    const row = (dir: string) => page.getByRole("row").filter({ hasText: dir });
    await row(served).getByRole("link", { name: served }).waitFor();
    expect(await row(served).getByRole("cell").nth(1).textContent()).toBe("2");
    expect(await row(other).textContent()).toContain(`nudge web --repo ${other}`);
    expect(await row(gone).textContent()).toContain("folder no longer exists");
    expect(await page.getByRole("row").count()).toBe(4); // the header and three projects: not the link
    await row(served).getByRole("link", { name: served }).click();
    await page.getByRole("heading", { name: "Sessions" }).waitFor();
    expect(watch.errors).toEqual([]);
    await page.close();
  });

  it("reading tools: the outline jumps to a turn, kinds of entry hide and show, only errors, expand and collapse all, Copy, the timeline's scale", async () => {
    const repo = await gitdir();
    const recorded = await recordSession(
      repo,
      [
        { tool: "Bash", input: { command: "echo first", description: "say first" } },
        { text: "```sh\necho copied\n```" },
        { tool: "Bash", input: { command: "exit 3", description: "fail" } },
        { text: "That failed." },
      ],
      ["run the first", "run the second"],
    );
    api = recorded.api;
    web = await startWeb(repo);
    const { page, watch } = await openPage(web);
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: web.origin });
    await page.goto(`${web.origin}/s/${recorded.id}`);
    const turn1 = page.getByRole("region", { name: "Turn 1", exact: true });
    const turn2 = page.getByRole("region", { name: "Turn 2", exact: true });
    await turn2.getByText("That failed.").waitFor();
    expect(await page.getByRole("figure").filter({ hasText: "per turn" }).textContent()).toMatch(
      /up to \$[\d.]+, turn \d; total \$[\d.]+/,
    );

    await page.getByText("Outline: 3 turns").click();
    await page
      .getByRole("navigation", { name: "Outline of the turns" })
      .getByRole("link", { name: "run the second" })
      .click();
    expect(page.url()).toContain("#turn-2");

    const tool = turn1.locator("details.tool");
    await page.getByRole("button", { name: "Expand all" }).click();
    expect(await tool.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
    await page.getByRole("button", { name: "Collapse all" }).click();
    expect(await tool.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);

    await page.getByRole("checkbox", { name: "Tools" }).uncheck();
    await expect.poll(() => tool.isVisible()).toBe(false);
    await page.getByRole("checkbox", { name: "Tools" }).check();
    await expect.poll(() => tool.isVisible()).toBe(true);
    await page.getByRole("checkbox", { name: "Only errors" }).check();
    await expect.poll(() => turn1.locator("details.tool").isVisible()).toBe(false);
    await expect.poll(() => turn2.locator("details.tool.failed").isVisible()).toBe(true);
    await expect.poll(() => turn2.getByText("That failed.").isVisible()).toBe(false);
    await page.getByRole("checkbox", { name: "Only errors" }).uncheck();

    await turn1.getByRole("button", { name: "Copy" }).click();
    await turn1.getByRole("button", { name: "Copied" }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("echo copied\n");
    expect(watch.errors).toEqual([]);
    await page.close();
  });

  it("a deep link lands on its turn, and stays there while the turns above it are fetched and drawn", async () => {
    const repo = await gitdir();
    const long = (n: number) => Array.from({ length: 120 }, (_, i) => `- point ${i} of answer ${n}`).join("\n");
    const recorded = await recordSession(
      repo,
      [{ text: long(1) }, { text: long(2) }, { text: long(3) }, { text: "The fourth answer." }, { text: long(5) }],
      ["one", "two", "three", "four", "five"],
    );
    api = recorded.api;
    web = await startWeb(repo);
    const { page, watch } = await openPage(web, { width: 1000, height: 700 });
    const top = () => page.locator("#turn-4").evaluate((el) => Math.round(el.getBoundingClientRect().top));
    for (const address of [`/s/${recorded.id}#turn-4`, `/s/${recorded.id}?turn=4`, `/s/${recorded.id}#turn-4`]) {
      await page.goto(`${web.origin}${address}`);
      await page.getByRole("region", { name: "Turn 4", exact: true }).getByText("The fourth answer.").waitFor();
      await expect.poll(top, { timeout: 10_000 }).toBeLessThan(60);
      // Once the turns around it have their real height, it is still at the top.
      await page
        .getByRole("region", { name: "Turn 3", exact: true })
        .getByText("point 119 of answer 3")
        .waitFor({ state: "attached" });
      await page.waitForTimeout(1000);
      expect(Math.abs(await top())).toBeLessThan(60);
    }
    // The outline numbers the turns as they are: turn 0 is 0.
    await page.getByText("Outline: 6 turns").click();
    expect(
      await page.getByRole("navigation", { name: "Outline of the turns" }).getByRole("listitem").first().textContent(),
    ).toMatch(/^0\. the starting state/);
    expect(watch.errors).toEqual([]);
    await page.close();
  });
});
