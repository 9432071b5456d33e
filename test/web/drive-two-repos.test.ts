/**
 * `nudge web --repo`: one server, two repositories, a session driven in each at once from two
 * tabs (issue 17). Each session records in its own repository's store and works in its own work
 * tree; the page under `/r/<name>/` stays in its repository; a name the server does not serve is
 * a 404 that lists the ones it does.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { browserForFile, watchedPage } from "../support/browser.js";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";
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

describe("nudge web --repo", () => {
  it("drives a session in each of two repositories at once, from two tabs, each recorded in its own", async () => {
    const [first, second] = [await gitdir(), await gitdir()];
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
    await one.page.getByRole("region", { name: "Turn 1" }).getByText("Hello from the first.").waitFor();
    await one.page.getByRole("textbox", { name: "Prompt" }).waitFor();

    // The second tab: the sessions page lists both repositories; the second's is its own address.
    const two = await watchedPage(browser(), (url) => url.startsWith(origin));
    await two.page.goto(web.url);
    const repos = two.page.getByRole("navigation", { name: "Repositories" });
    await repos.getByRole("link", { name: path.basename(second).toLowerCase() }).click();
    await expect.poll(() => new URL(two.page.url()).pathname).toMatch(/^\/r\/[^/]+\/$/);
    await repos.locator("[aria-current=page]").getByText(path.basename(second).toLowerCase()).waitFor();
    await two.page.getByRole("textbox", { name: "New session" }).fill("write b");
    await two.page.getByRole("button", { name: "Start", exact: true }).click();
    const asks = two.page.getByRole("group", { name: "Claude asks" });
    await asks.getByText("Allow Write(b.txt)?").waitFor();
    await asks.getByRole("button", { name: "Allow", exact: true }).click();
    await two.page.getByRole("region", { name: "Turn 1" }).getByText("Wrote b.txt in the second.").waitFor();
    expect(readFileSync(path.join(second, "b.txt"), "utf8")).toBe("bee\n");
    expect(existsSync(path.join(first, "b.txt"))).toBe(false);
    // The session's address stays under the second repository's prefix.
    expect(new URL(two.page.url()).pathname).toMatch(/^\/r\/[^/]+\/s\/[0-9a-f]+$/);

    // Both live at once: the first tab's session still takes a prompt.
    const prompt = one.page.getByRole("textbox", { name: "Prompt" });
    await prompt.fill("still there?");
    await prompt.press("Enter");
    await one.page.getByRole("region", { name: "Turn 2" }).getByText("Still here in the first.").waitFor();
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
    const listed = async (repo: string) => JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout) as Array<{ firstPrompt: string }>;
    expect((await listed(first)).map((s) => s.firstPrompt)).toEqual(["hello first"]);
    expect((await listed(second)).map((s) => s.firstPrompt)).toEqual(["write b"]);

    // A repository the server does not serve: one line that names those it does.
    const missing = await web.get("/r/nope/api/sessions");
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body).hint).toContain(path.basename(second).toLowerCase());
    expect([...one.watch.errors, ...two.watch.errors]).toEqual([]);
  }, 90_000);
});
