/**
 * `session export --html` of a real session (real claude, scripted API), opened from file:// in
 * real Chromium with every request but the file itself refused: the session shows (prompts,
 * markdown rendered and highlighted, a tool call, a permission decision, a turn's diff) and the
 * in-page search finds a word.
 */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { recordWebSession } from "../support/web-session.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { recordSession } from "../support/record.js";
import { loadCorpus } from "../support/secret-corpus.js";
import { browserForFile, watchedPage } from "../support/browser.js";

const browser = browserForFile();
let r: Recorded & { repo: string };
let file: string;

beforeAll(async () => {
  r = await recordWebSession();
  file = path.join(tempDir("nudge-html-"), "session.html");
  const run = await runNudge(["session", "export", r.id, "--html", "-o", file], { cwd: r.repo });
  expect(run.exitCode, run.stderr).toBe(0);
  expect(run.stdout).toContain(`exported session ${r.id} → ${file}`);
}, 90_000);
afterAll(async () => {
  await r?.api.close();
});

async function open() {
  const url = pathToFileURL(file).href;
  const { page, watch } = await watchedPage(browser(), (u) => u === url);
  await page.goto(url);
  await page.getByRole("heading", { name: "fix add in math.js", level: 1 }).waitFor();
  return { page, watch };
}

describe("the static page", () => {
  it("is one file readable by its owner only, with a CSP that allows no connection", () => {
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const html = readFileSync(file, "utf8");
    expect(html).toMatch(
      /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+';[^"]*connect-src 'none'/,
    );
    expect(html).not.toMatch(/<script[^>]+src=|<link /);
  });

  it("shows the prompts, the markdown rendered and highlighted, a tool call, the permission decision and the diff, loading nothing", async () => {
    const { page, watch } = await open();
    const turn1 = page.getByRole("region", { name: "Turn 1", exact: true });
    await expect.poll(() => turn1.getByText("fix add in math.js", { exact: true }).count()).toBe(1);
    // Markdown: a heading, bold, a highlighted code block.
    await turn1.getByRole("heading", { name: "Fixed the sum" }).waitFor();
    expect(await turn1.locator("strong", { hasText: "add" }).count()).toBe(1);
    expect(await turn1.locator("pre code .hljs-keyword").first().textContent()).toBe("export");
    // The tool call, collapsed, its detail in the summary; opened, its output.
    const tool = turn1.locator("details.tool", { hasText: "Write" });
    await tool.locator("summary").click();
    expect(await tool.getByText("updated successfully", { exact: false }).isVisible()).toBe(true);
    // The turn's diff, with its file and the changed line.
    const diff = turn1.getByRole("region", { name: "Diff of turn 1" });
    await diff.getByText("math.js", { exact: true }).waitFor();
    expect(await diff.locator("tr.add").first().textContent()).toContain("return a + b;");
    await diff.getByRole("button", { name: "Side by side" }).click();
    expect(await diff.locator("table.split").count()).toBe(1);
    // Turn 2: the permission question, denied.
    const turn2 = page.getByRole("region", { name: "Turn 2", exact: true });
    await turn2.getByText("Denied", { exact: true }).waitFor();
    expect(await turn2.locator(".permission").textContent()).toContain("WebFetch(https://example.com/docs)");
    // No actions or live updates in a file.
    expect(await page.getByRole("button", { name: "Rewind to turn 1" }).count()).toBe(0);
    expect(watch).toEqual({ dialogs: [], requests: [pathToFileURL(file).href], errors: [], consoleErrors: [] });
    await page.close();
  });

  it("its search finds a word in a collapsed tool output and jumps to it", async () => {
    const { page, watch } = await open();
    await page.getByRole("searchbox", { name: "Search" }).fill("status.txt");
    await expect.poll(() => page.getByRole("search").locator("[aria-live]").textContent()).toMatch(/^1 of \d+$/);
    // The CSS Custom Highlight API's registry: the marked ranges (the test's tsconfig has no DOM types).
    const marked = () =>
      page.evaluate(
        () =>
          (globalThis as unknown as { CSS: { highlights: Map<string, Set<unknown>> } }).CSS.highlights.get("search")!
            .size,
      );
    // The marks are set as the count is shown, and again at each of the search's later looks: read as they settle.
    await expect.poll(marked).toBeGreaterThan(1);
    await page.getByRole("button", { name: "Next" }).click();
    // The search looks again a few times after typing (0.03 to 2.5 s): the count is read as the page shows it then.
    await expect
      .poll(async () => `${await page.getByRole("search").locator("[aria-live]").textContent()} / ${await marked()}`)
      .toMatch(/^2 of (\d+) \/ \1$/);
    expect(watch.requests).toEqual([pathToFileURL(file).href]);
    await page.close();
  });

  it("its search counts only the words in the box now, whatever was typed before (QA: an earlier query's late looks set its hits)", async () => {
    const count = () => page.getByRole("search").locator("[aria-live]").textContent();
    const { page, watch } = await open();
    const box = page.getByRole("searchbox", { name: "Search" });
    await box.fill("status.txt");
    await expect.poll(count).toMatch(/^1 of \d+$/);
    const alone = await count();
    // Another query first, and then this one while the other's looks are still due.
    await page.reload();
    await page.getByRole("heading", { name: "fix add in math.js", level: 1 }).waitFor();
    // The other query's looks come 0.03, 0.25, 1 and 2.5 s after it is searched (0.15 s after typing):
    // this one is typed before its last, and read after that last one is due.
    await box.fill("e");
    await page.waitForTimeout(2_000);
    await box.fill("status.txt");
    await page.waitForTimeout(900);
    expect(await count()).toBe(alone);
    expect(watch.errors).toEqual([]);
    await page.close();
  });

  it("masks a secret in the first prompt everywhere, the page's <title> included", async () => {
    const secret = loadCorpus().secrets.find((c) => c.kind === "aws-access-key-id")!;
    const repo = await gitdir();
    const rec = await recordSession(repo, [{ text: "Noted." }], [`deploy with ${secret.text}`]);
    try {
      const out = path.join(tempDir("nudge-html-"), "secret.html");
      const run = await runNudge(["session", "export", rec.id, "--html", "-o", out], { cwd: repo });
      expect(run.exitCode, run.stderr).toBe(0);
      const html = readFileSync(out, "utf8");
      for (const needle of secret.needles) expect(html).not.toContain(needle);
      expect(/<title>([^<]*)<\/title>/.exec(html)![1]).toContain("[REDACTED:aws-access-key-id]");
    } finally {
      await rec.api.close();
    }
  }, 60_000);
});
