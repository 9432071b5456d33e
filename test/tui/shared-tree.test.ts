/**
 * Two plain claudes at once in one work tree, each recorded through the installed hooks (the real
 * claude's own UI in two terminals, each against a scripted API of its own): neither can tell
 * whose change a file is, so a turn of one that ran while the other had a turn running is marked
 * "shared work tree" (the journal, `session show`, `nudge web`), and a rewind keeps that turn's
 * files unless told otherwise. A turn while the other claude sits idle is not marked.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { browserForFile, watchedPage } from "../support/browser.js";
import { CLAUDE_BIN } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { readManifestFile } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { Terminal, tuiEnv } from "../support/tui.js";
import { until } from "../support/until.js";
import { startWeb, type WebServerRun } from "../support/web-server.js";

const browser = browserForFile();
const apis: ScriptedApi[] = [];
let web: WebServerRun | undefined;
afterEach(async () => {
  await web?.stop();
  web = undefined;
  await Promise.all(apis.splice(0).map((a) => a.close()));
});

const sessions = (repo: string) => path.join(repo, ".git", "nudge", "sessions");
const manifests = (repo: string) =>
  (existsSync(sessions(repo)) ? readdirSync(sessions(repo)).filter((d) => !d.startsWith(".")) : []).map((id) =>
    readManifestFile(path.join(sessions(repo), id)),
  );
/** The session whose first prompt is `prompt`, once it has saved `turns` turns past turn 0. */
const saved = (repo: string, prompt: string, turns: number) =>
  until(`${prompt}: ${turns} turns saved`, async () => {
    try {
      return manifests(repo).find((m) => m.turns[1]?.prompt === prompt && m.turns.length > turns);
    } catch {
      return undefined;
    }
  });

describe("two hooked claudes at once in one work tree", () => {
  it("mark each other's overlapping turns as shared work tree (journal, show, web), not a turn while the other is idle; a rewind keeps the shared turn's files", async () => {
    const repo = await gitdir({ "README.md": "# test\n" });
    expect((await runNudge(["hooks", "install", "--claude"], { cwd: repo })).exitCode).toBe(0);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const api1 = await startScriptedApi([
      { after: held, then: { tool: "Write", input: { file_path: path.join(repo, "a.txt"), content: "a\n" } } },
      { text: "A wrote" },
    ]);
    const api2 = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(repo, "b.txt"), content: "b\n" } },
      { text: "B wrote" },
      { tool: "Write", input: { file_path: path.join(repo, "c.txt"), content: "c\n" } },
      { text: "C wrote" },
    ]);
    apis.push(api1, api2);
    const open = (api: ScriptedApi) =>
      Terminal.open([CLAUDE_BIN, "--permission-mode", "acceptEdits"], {
        cwd: repo,
        env: tuiEnv(api, path.join(tempDir(), "cfg"), repo),
      });
    const one = open(api1);
    const two = open(api2);
    await one.ready();
    await two.ready();
    try {
      // One's turn is in flight (claude asked the API, which holds its answer) while two runs a whole turn.
      await one.type("write a");
      await until("one's turn asked", async () => (api1.mainLoopRequests().length >= 1 ? true : undefined));
      await two.type("write b");
      await two.waitFor(/B wrote/);
      await saved(repo, "write b", 1);
    } finally {
      release();
    }
    await one.waitFor(/A wrote/);
    const first = await saved(repo, "write a", 1);
    // One's claude is open but idle: two's next turn shares nothing.
    await two.type("write c");
    await two.waitFor(/C wrote/);
    const second = await saved(repo, "write b", 2);
    await one.type("/exit");
    await two.type("/exit");
    expect(await one.exited()).toBe(0);
    expect(await two.exited()).toBe(0);

    expect(first.turns[1]!.sharedWith).toEqual([second.id]);
    expect(second.turns[1]!.sharedWith).toEqual([first.id]);
    expect(second.turns[2]!.sharedWith).toBeUndefined();
    const show = await runNudge(["session", "show", first.id], { cwd: repo });
    expect(show.stdout).toMatch(new RegExp(`^1 +write a .*\\(shared work tree: may include ${second.id}'s\\)`, "m"));
    // session list marks both sessions, and --json names the other.
    const listed = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: repo })).stdout) as Array<{
      id: string;
      sharedWith: string[];
    }>;
    expect(listed.find((s) => s.id === first.id)?.sharedWith).toEqual([second.id]);
    expect(listed.find((s) => s.id === second.id)?.sharedWith).toEqual([first.id]);
    const table = (await runNudge(["session", "list"], { cwd: repo })).stdout;
    for (const id of [first.id, second.id]) expect(table).toMatch(new RegExp(`^${id} .*, shared work tree`, "m"));
    const plan = await runNudge(["session", "rewind", first.id, "0", "--dry-run"], { cwd: repo });
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(
      `changed while session ${second.id} also recorded here (turn 1), so perhaps not by this session: kept as they are`,
    );
    expect(plan.stdout).toMatch(/^ {4}keep +b\.txt$/m);

    web = await startWeb(repo);
    const { page, watch } = await watchedPage(browser(), (url) => url.startsWith(web!.origin));
    await page.goto(web.url);
    await page.getByRole("link", { name: "write b" }).click();
    await page
      .getByRole("region", { name: "Turn 1", exact: true })
      .getByText(`shared work tree: ${first.id} also had a turn running here during this one`)
      .waitFor();
    await page.getByRole("region", { name: "Turn 2", exact: true }).getByText("C wrote").waitFor();
    expect(await page.getByRole("region", { name: "Turn 2", exact: true }).textContent()).not.toContain(
      "shared work tree",
    );
    expect(watch.errors).toEqual([]);
    await page.close();
  }, 180_000);
});
