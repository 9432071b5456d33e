/**
 * Working with claude from the page in real Chromium, as a person does (the built `nudge web`, the
 * real claude, the scripted API): a session started from the sessions page; claude's Write asked
 * and allowed on the page (the file written); a Bash denied with a reason (claude receives it);
 * Stop on a slow turn; a session a terminal records is followed without a prompt box; with
 * `nudge web --repo`, a session driven in each of two repositories at once from two tabs, each
 * recorded in its own repository's store, the page under `/r/<name>/` staying in its repository.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { browserForFile, watchedPage } from "../support/browser.js";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { until } from "../support/until.js";
import { startWeb, type WebServerRun } from "../support/web-server.js";

const browser = browserForFile();
let api: ScriptedApi | undefined;
let web: WebServerRun | undefined;
afterEach(async () => {
  await web?.stop();
  await api?.close();
  web = api = undefined;
});

describe("working with claude from the page", () => {
  it("starts a session, asks for a Write and writes it once allowed, denies a Bash with the reason typed, and stops a slow turn", async () => {
    const repo = await gitdir();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    api = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(repo, "hello.txt"), content: "hello\n" } },
      { text: "Wrote **hello.txt**." },
      { tool: "Bash", input: { command: "touch ran.txt", description: "touch a file" } },
      { text: "I did not run it." },
      { textParts: ["Let me think about that… ", held, "done."] },
    ]);
    web = await startWeb(repo, { ...claudeEnv(api, path.join(tempDir(), "cfg")), NUDGE_CLAUDE_BIN: CLAUDE_BIN });
    const origin = web.origin;
    const { page, watch } = await watchedPage(browser(), (url) => url.startsWith(origin));
    await page.goto(web.url);

    await page.getByRole("textbox", { name: "New session" }).fill("write hello");
    await page.getByRole("button", { name: "Start", exact: true }).click();
    const asks = page.getByRole("group", { name: "Claude asks" });
    await asks.getByText("Allow Write(hello.txt)?").waitFor();
    // The turn above says it is being asked, not "Not answered" (QA).
    await page
      .getByRole("region", { name: "Turn 1", exact: true })
      .locator(".permission")
      .getByText("Asking", { exact: true })
      .waitFor();
    // The Write shown as the diff it would make.
    expect(await asks.getByLabel("What it would change").textContent()).toContain("+hello");
    expect(existsSync(path.join(repo, "hello.txt"))).toBe(false);
    await asks.getByRole("button", { name: "Allow", exact: true }).click();
    // Claude's reply appears in the turn, rendered, and the file is there.
    await page
      .getByRole("region", { name: "Turn 1", exact: true })
      .locator("strong", { hasText: "hello.txt" })
      .waitFor();
    expect(readFileSync(path.join(repo, "hello.txt"), "utf8")).toBe("hello\n");

    // Enter sends only once the turn has ended (its snapshot taken): claude's words show before that.
    await page.getByRole("button", { name: "Stop" }).waitFor({ state: "detached" });
    const prompt = page.getByRole("textbox", { name: "Prompt" });
    await prompt.fill("touch a file");
    await prompt.press("Enter");
    await asks.getByText("Allow Bash(touch ran.txt)?").waitFor();
    await asks.getByRole("textbox", { name: "Reason" }).fill("not today, thanks");
    await asks.getByRole("button", { name: "Deny" }).click();
    await page.getByRole("region", { name: "Turn 2", exact: true }).getByText("I did not run it.").waitFor();
    expect(existsSync(path.join(repo, "ran.txt"))).toBe(false);
    expect(JSON.stringify(api.mainLoopRequests().at(-1)!.body)).toContain("not today, thanks");

    await prompt.fill("think slowly");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("region", { name: "Turn 3", exact: true }).getByText("Let me think about that…").waitFor();
    // The status line says what claude does, and for how long.
    await expect.poll(() => page.getByRole("status").textContent()).toMatch(/^ writing · \d+s$/);
    await page.getByRole("button", { name: "Stop" }).click();
    await page.getByRole("region", { name: "Turn 3", exact: true }).getByText("interrupted").first().waitFor();
    release();
    await page.getByRole("button", { name: "Send" }).waitFor();
    expect(await page.getByRole("button", { name: "Stop" }).count()).toBe(0);
    expect(watch.errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("follows a session a terminal records, with no prompt box", async () => {
    const repo = await gitdir();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    api = await startScriptedApi([{ textParts: ["From the terminal: ", held, "finished."] }]);
    web = await startWeb(repo);
    const origin = web.origin;
    const run = runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN], {
      cwd: repo,
      env: claudeEnv(api, path.join(tempDir(), "cfg")),
      input: "typed in a terminal\n",
    });
    const { page, watch } = await watchedPage(browser(), (url) => url.startsWith(origin));
    await page.goto(web.url);
    await page.getByRole("row").filter({ hasText: "recording" }).getByRole("link").click();
    await page.getByText("From the terminal:").waitFor();
    await page.getByText("Being recorded by another nudge").waitFor();
    expect(await page.getByRole("textbox", { name: "Prompt" }).count()).toBe(0);
    expect(await page.getByRole("textbox", { name: "Continue with" }).count()).toBe(0);
    release();
    expect((await run).exitCode).toBe(0);
    // The page asked whether this server drives the session: "no" is an answer, not a failed request in the console (QA).
    expect(watch.consoleErrors).toEqual([]);
    await page.close();
  }, 60_000);

  it("AskUserQuestion on the page: options ticked and words of one's own both reach claude (QA: Other replaced them); Up recalls the first prompt", async () => {
    const repo = await gitdir();
    const extras = {
      question: "Which extras?",
      header: "Extras",
      multiSelect: true,
      options: [
        { label: "Cache", description: "keep results" },
        { label: "Queue", description: "defer work" },
        { label: "Search", description: "find things" },
      ],
    };
    api = await startScriptedApi([{ tool: "AskUserQuestion", input: { questions: [extras] } }, { text: "Noted." }]);
    web = await startWeb(repo, { ...claudeEnv(api, path.join(tempDir(), "cfg")), NUDGE_CLAUDE_BIN: CLAUDE_BIN });
    const { id } = JSON.parse((await web.post("/api/live", { prompt: "pick extras" })).body) as { id: string };
    const origin = web.origin;
    const { page, watch } = await watchedPage(browser(), (url) => url.startsWith(origin));
    await page.goto(web.url);
    await page.goto(`${origin}/s/${id}`);
    const asks = page.getByRole("group", { name: "Claude asks" });
    await asks.getByText("Extras: Which extras?").waitFor();
    await asks.getByRole("checkbox", { name: "Cache" }).check();
    await asks.getByRole("checkbox", { name: "Queue" }).check();
    await asks.getByRole("textbox", { name: "Other" }).fill("an index");
    await asks.getByRole("button", { name: "Answer" }).click();
    await page.getByRole("region", { name: "Turn 1", exact: true }).getByText("Noted.").waitFor();
    expect(JSON.stringify(api.mainLoopRequests().at(-1)!.body)).toContain(
      '\\"Which extras?\\"=\\"Cache, Queue, an index\\"',
    );
    // Up recalls the session's first prompt, typed in another box.
    const prompt = page.getByRole("textbox", { name: "Prompt" });
    // (Once the turn is saved: the session's prompts come with its saved turns.)
    await expect
      .poll(async () => {
        await prompt.press("ArrowUp");
        return prompt.inputValue();
      })
      .toBe("pick extras");
    expect(watch.errors).toEqual([]);
    await page.close();
  }, 60_000);
});

describe("continuing from the page", () => {
  it("files changed since the session ran: nudge's question, and the prompt box points at it, not at a working claude (QA)", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "a\n" } },
      { text: "wrote a" },
      { text: "seen your change" },
    ]);
    web = await startWeb(repo, { ...claudeEnv(api, path.join(tempDir(), "cfg")), NUDGE_CLAUDE_BIN: CLAUDE_BIN });
    const live = async (id: string) =>
      JSON.parse((await web!.get(`/api/live/${id}`)).body) as { busy: boolean; ended: boolean };
    const { id } = JSON.parse(
      (await web.post("/api/live", { prompt: "write a", permissionMode: "acceptEdits" })).body,
    ) as { id: string };
    await until("the turn's end", async () => ((await live(id)).busy ? undefined : true));
    await web.post(`/api/live/${id}/end`, {});
    await until("the session ends", async () => ((await live(id)).ended ? true : undefined));
    writeFileSync(path.join(repo, "a.txt"), "changed by hand\n");

    const origin = web.origin;
    const { page, watch } = await watchedPage(browser(), (url) => url.startsWith(origin));
    await page.goto(web.url);
    await page.goto(`${origin}/s/${id}`);
    await page.getByRole("textbox", { name: "Continue with" }).fill("go on");
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    const nudgeAsks = page.getByRole("group", { name: "nudge asks" });
    await nudgeAsks.getByText("a.txt").first().waitFor();
    // The question and the page's state come as two events: the box says so once both are in.
    await expect
      .poll(() => page.getByRole("textbox", { name: "Prompt" }).getAttribute("placeholder"), { timeout: 10_000 })
      .toBe("answer nudge's question above first");
    await nudgeAsks.getByRole("button", { name: "Continue and tell claude" }).click();
    await page.getByRole("region", { name: "Turn 2", exact: true }).getByText("seen your change").waitFor();
    expect(watch.errors).toEqual([]);
    await page.close();
  }, 60_000);
});

describe("nudge web --repo", () => {
  it("drives a session in each of two repositories at once, from two tabs, each recorded in its own", async () => {
    // The second folder's name has capitals and a space: its URL key does not, its link does (QA).
    const [first, second] = [await gitdir(), await gitdir(undefined, { name: "Second App" })];
    api = await startScriptedApi([
      { text: "Hello from the first." },
      { tool: "Write", input: { file_path: path.join(second, "b.txt"), content: "bee\n" } },
      { text: "Wrote b.txt in the second." },
      { text: "Still here in the first." },
    ]);
    const cfg = path.join(tempDir(), "cfg");
    web = await startWeb(first, { ...claudeEnv(api, cfg), NUDGE_CLAUDE_BIN: CLAUDE_BIN }, ["--repo", second]);
    const origin = web.origin;
    const one = await watchedPage(browser(), (url) => url.startsWith(origin));
    await one.page.goto(web.url);
    await one.page.getByRole("textbox", { name: "New session" }).fill("hello first");
    await one.page.getByRole("button", { name: "Start", exact: true }).click();
    await one.page.getByRole("region", { name: "Turn 1", exact: true }).getByText("Hello from the first.").waitFor();
    await one.page.getByRole("textbox", { name: "Prompt" }).waitFor();

    // The second tab: the sessions page lists both repositories; the second's is its own address.
    const two = await watchedPage(browser(), (url) => url.startsWith(origin));
    await two.page.goto(web.url);
    const repos = two.page.getByRole("navigation", { name: "Repositories" });
    await repos.getByRole("link", { name: "Second App", exact: true }).click();
    await expect.poll(() => new URL(two.page.url()).pathname).toMatch(/^\/r\/[^/]+\/$/);
    await repos.locator("[aria-current=page]").getByText("Second App", { exact: true }).waitFor();
    await two.page.getByRole("textbox", { name: "New session" }).fill("write b");
    await two.page.getByRole("button", { name: "Start", exact: true }).click();
    const asks = two.page.getByRole("group", { name: "Claude asks" });
    await asks.getByText("Allow Write(b.txt)?").waitFor();
    await asks.getByRole("button", { name: "Allow", exact: true }).click();
    await two.page
      .getByRole("region", { name: "Turn 1", exact: true })
      .getByText("Wrote b.txt in the second.")
      .waitFor();
    expect(readFileSync(path.join(second, "b.txt"), "utf8")).toBe("bee\n");
    expect(existsSync(path.join(first, "b.txt"))).toBe(false);
    // The session's address stays under the second repository's prefix.
    expect(new URL(two.page.url()).pathname).toMatch(/^\/r\/[^/]+\/s\/[0-9a-f]+$/);

    // Both live at once: the first tab's session still takes a prompt.
    const prompt = one.page.getByRole("textbox", { name: "Prompt" });
    await one.page.getByRole("button", { name: "Stop" }).waitFor({ state: "detached" });
    await prompt.fill("still there?");
    await prompt.press("Enter");
    await one.page.getByRole("region", { name: "Turn 2", exact: true }).getByText("Still here in the first.").waitFor();
    expect(await two.page.getByRole("textbox", { name: "Prompt" }).count()).toBe(1);

    // nudge's commands as buttons: one without an argument is sent, one with is put in the box.
    const commands = one.page.getByRole("group", { name: "nudge's commands" });
    const firstId = /\/s\/([0-9a-f]+)$/.exec(one.page.url())![1]!;
    await commands.getByRole("button", { name: "/session" }).click();
    await one.page.locator(".notices > ul").getByText(firstId).first().waitFor();
    // Notices from before the last prompt fold away (they piled up in the footer): the start's
    // "recording session" line is behind "earlier" now, /session's answer in plain sight.
    const notices = one.page.locator(".notices");
    await notices.getByText(/^\d+ earlier notices?$/).waitFor();
    expect(await notices.getByText("● nudge recording session").isVisible()).toBe(false);
    await commands.getByRole("button", { name: "/rewind N" }).click();
    expect(await prompt.inputValue()).toBe("/rewind ");
    // Its plan is nudge's question, not claude's (QA: it sat in a box titled "Claude asks"); a
    // file written by hand is what it would discard, so it asks.
    writeFileSync(path.join(first, "by-hand.txt"), "mine\n");
    await prompt.fill("/rewind 1");
    await prompt.press("Enter");
    const nudgeAsks = one.page.getByRole("group", { name: "nudge asks" });
    await nudgeAsks.getByRole("button", { name: "Cancel" }).click();
    await nudgeAsks.waitFor({ state: "detached" });
    expect(readFileSync(path.join(first, "by-hand.txt"), "utf8")).toBe("mine\n");

    // Each session was recorded in its own repository's store.
    const listed = async (repo: string) =>
      JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout) as Array<{
        firstPrompt: string;
      }>;
    expect((await listed(first)).map((s) => s.firstPrompt)).toEqual(["hello first"]);
    expect((await listed(second)).map((s) => s.firstPrompt)).toEqual(["write b"]);

    // A repository the server does not serve: one line that names those it does.
    const missing = await web.get("/r/nope/api/sessions");
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body).hint).toContain("second-app");
    expect([...one.watch.errors, ...two.watch.errors]).toEqual([]);
  }, 90_000);
});
