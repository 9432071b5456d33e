/**
 * A session recorded under claude's own UI (`nudge claude run --tui`, the real claude in tmux
 * against the scripted API), in `nudge web` in real Chromium while claude still runs: listed as
 * recording, a turn typed in the terminal shows in the open page without a reload, with its diff.
 * The same for a plain claude recorded through `hooks install --claude` (one short nudge per hook).
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { browserForFile, watchedPage } from "../support/browser.js";
import { CLAUDE_BIN } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { Terminal, tuiEnv } from "../support/tui.js";
import { startWeb, type WebServerRun } from "../support/web-server.js";

const browser = browserForFile();
let api: ScriptedApi | undefined;
let web: WebServerRun | undefined;
afterEach(async () => {
  await web?.stop();
  await api?.close();
  web = api = undefined;
});

describe("a claude run --tui session in nudge web", () => {
  it("is listed while claude runs in the terminal, follows a new turn live without a reload, and shows each turn's diff", async () => {
    const repo = await gitdir({ "README.md": "# test\n" });
    api = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "from the first turn\n" } },
      { text: "wrote a.txt" },
      { tool: "Bash", input: { command: "echo from-the-second-turn > b.txt", description: "write b" } },
      { text: "made b.txt" },
    ]);
    const env = tuiEnv(api, path.join(tempDir(), "cfg"), repo);
    const term = Terminal.nudge(
      ["claude", "run", "--tui", "--permission-mode", "acceptEdits", "--allowed-tools", "Bash"],
      { cwd: repo, env },
    );
    await term.ready();
    await term.type("write a");
    await term.waitFor(/wrote a\.txt/);

    web = await startWeb(repo);
    const { page, watch } = await watchedPage(browser(), (url) => url.startsWith(web!.origin));
    await page.goto(web.url);
    const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: "write a" }) });
    await row.waitFor();
    expect(await row.textContent()).toContain("recording");
    await row.getByRole("link", { name: "write a" }).click();
    const one = page.getByRole("region", { name: "Turn 1", exact: true });
    await one.getByText("wrote a.txt").waitFor();
    await one.getByRole("region", { name: "Diff of turn 1" }).getByText("from the first turn").waitFor();
    // A mark on the page's global object: a reload would lose it.
    await page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));

    await term.type("make b");
    await term.waitFor(/made b\.txt/);
    const two = page.getByRole("region", { name: "Turn 2", exact: true });
    await two.getByText("make b", { exact: true }).waitFor();
    await two.getByText("made b.txt").waitFor();
    await two.getByRole("region", { name: "Diff of turn 2" }).getByText("from-the-second-turn").waitFor();
    expect(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(true);

    await term.type("/exit");
    expect(await term.exited()).toBe(0);
    // claude gone: the list says the session is complete, still without a reload.
    await page.getByRole("link", { name: "Sessions" }).first().click();
    await page.getByRole("row").filter({ hasText: "write a" }).filter({ hasText: "complete" }).waitFor();
    expect(watch.errors).toEqual([]);
    await page.close();
  }, 150_000);

  it("a plain claude recorded through hooks install --claude: its next turn shows in the open page without a reload", async () => {
    const repo = await gitdir({ "README.md": "# test\n" });
    expect((await runNudge(["hooks", "install", "--claude"], { cwd: repo })).exitCode).toBe(0);
    api = await startScriptedApi([
      { text: "first hooked answer" },
      { tool: "Write", input: { file_path: path.join(repo, "c.txt"), content: "from the hooked turn\n" } },
      { text: "wrote c.txt" },
    ]);
    const env = tuiEnv(api, path.join(tempDir(), "cfg"), repo);
    const term = Terminal.open([CLAUDE_BIN, "--permission-mode", "acceptEdits"], { cwd: repo, env });
    await term.ready();
    await term.type("say hello");
    await term.waitFor(/first hooked answer/);

    web = await startWeb(repo);
    const { page, watch } = await watchedPage(browser(), (url) => url.startsWith(web!.origin));
    await page.goto(web.url);
    await page.getByRole("link", { name: "say hello" }).click();
    await page.getByRole("region", { name: "Turn 1", exact: true }).getByText("first hooked answer").waitFor();
    await page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));
    await term.type("write c");
    await term.waitFor(/wrote c\.txt/);
    const two = page.getByRole("region", { name: "Turn 2", exact: true });
    await two.getByText("wrote c.txt").waitFor();
    await two.getByRole("region", { name: "Diff of turn 2" }).getByText("from the hooked turn").waitFor();
    expect(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(true);
    await term.type("/exit");
    expect(await term.exited()).toBe(0);
    expect(watch.errors).toEqual([]);
    await page.close();
  }, 150_000);
});
