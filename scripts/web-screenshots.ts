/**
 * The docs' pictures of `nudge web`: the sessions page (wide and at a phone's 390 px), a
 * session's page (markdown, a tool call, a diff), and a session driven from the page while claude
 * asks. Real sessions: the built CLI records the pinned claude binary against the tests' scripted
 * API (so claude's words are scripted, the rest is nudge's real output); the page is the built
 * `nudge web` in Debian's Chromium (playwright-core).
 *
 *   npm run build && node --import tsx scripts/web-screenshots.ts [out-dir]
 */
import { execa } from "execa";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Page } from "playwright-core";
import { CLAUDE_BIN, claudeEnv } from "../test/support/claude-env.js";
import { gitdir, tempDir } from "../test/support/gitdir.js";
import { startScriptedApi, type ScriptStep } from "../test/support/scripted-api.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const OUT = path.resolve(process.argv[2] ?? path.join(ROOT, "docs"));
const NUDGE = path.join(ROOT, "dist/nudge.mjs");
const CHROMIUM = process.env.NUDGE_CHROMIUM ?? "/usr/bin/chromium";

const ANSWER = [
  "## Fixed the sum",
  "",
  "`add` subtracted instead of adding. Now:",
  "",
  "- [x] `add(2, 3)` returns **5**",
  "- [ ] a test for negative numbers",
  "",
  "```js",
  "export function add(a, b) {",
  "  return a + b;",
  "}",
  "```",
].join("\n");

/** One session recorded by `nudge claude run` with the real claude; its prompts piped in. */
async function record(repo: string, steps: ScriptStep[], prompts: string[]): Promise<void> {
  const api = await startScriptedApi(steps, { chunk: 12 });
  try {
    const run = await execa(
      "node",
      [
        NUDGE,
        "claude",
        "run",
        "--claude-bin",
        CLAUDE_BIN,
        "--permission-mode",
        "acceptEdits",
        "--allowed-tools",
        "Bash",
      ],
      {
        cwd: repo,
        env: { NO_COLOR: "1", ...claudeEnv(api, path.join(tempDir(), "cfg")) },
        input: prompts.join("\n") + "\n",
        reject: false,
      },
    );
    if (run.exitCode !== 0) throw new Error(`recording failed: ${run.stderr}`);
  } finally {
    await api.close();
  }
}

async function main(): Promise<void> {
  const repo = await gitdir({ "math.js": "export function add(a, b) {\n  return a - b;\n}\n", "README.md": "# app\n" });
  await record(
    repo,
    [
      { tool: "Read", input: { file_path: path.join(repo, "math.js") } },
      {
        tool: "Write",
        input: { file_path: path.join(repo, "math.js"), content: "export function add(a, b) {\n  return a + b;\n}\n" },
      },
      { thinking: "The sign is wrong.", text: ANSWER },
      {
        tool: "Bash",
        input: {
          command: "node -e \"import('./math.js').then(m => console.log(m.add(2, 3)))\"",
          description: "check add",
        },
      },
      { text: "It prints 5." },
    ],
    ["add() is broken, fix it", "check it"],
  );
  await record(
    repo,
    [{ text: "The README says what the app does; nothing to change." }],
    ["is the README up to date?"],
  );

  // The session driven from the page asks before it writes.
  const api = await startScriptedApi(
    [
      {
        tool: "Write",
        input: {
          file_path: path.join(repo, "math.test.js"),
          content: 'import { add } from "./math.js";\nconsole.assert(add(2, 3) === 5);\n',
        },
      },
      { text: "Added math.test.js." },
    ],
    { chunk: 12 },
  );
  const web = execa("node", [NUDGE, "web", "--no-open", "--port", "0"], {
    cwd: repo,
    env: { NO_COLOR: "1", NUDGE_CLAUDE_BIN: CLAUDE_BIN, ...claudeEnv(api, path.join(tempDir(), "cfg")) },
    reject: false,
    buffer: false,
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    web.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const found = /^nudge web: (\S+)$/m.exec(out);
      if (found) resolve(found[1]!);
    });
    void web.then(() => reject(new Error("nudge web stopped")));
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
  });
  try {
    const page = await browser.newPage({
      viewport: { width: 1100, height: 760 },
      deviceScaleFactor: 1,
      colorScheme: "light",
    });
    await page.goto(url);
    await page.getByRole("link", { name: "add() is broken, fix it" }).waitFor();
    await shot(page, "screenshot-sessions.png", repo);

    await page.setViewportSize({ width: 390, height: 760 });
    await shot(page, "screenshot-sessions-narrow.png", repo);
    await page.setViewportSize({ width: 1100, height: 760 });

    await page.getByRole("link", { name: "add() is broken, fix it" }).click();
    const turn = page.getByRole("region", { name: "Turn 1", exact: true });
    await turn.getByRole("heading", { name: "Fixed the sum" }).waitFor();
    await turn.locator("summary", { hasText: "Write" }).click();
    await turn.scrollIntoViewIfNeeded();
    await page.evaluate(() => document.getElementById("turn-1")?.scrollIntoView({ block: "start" }));
    await shot(page, "screenshot-session.png", repo);

    await page.goto(url.replace(/\/\?token=.*$/, "/"));
    await page.getByRole("textbox", { name: "New session" }).fill("add a test for add()");
    await page.getByRole("button", { name: "Start", exact: true }).click();
    await page.getByRole("group", { name: "Claude asks" }).getByText("Allow Write(math.test.js)?").waitFor();
    await page.waitForTimeout(500);
    await shot(page, "screenshot-question.png", repo);
    await page.getByRole("group", { name: "Claude asks" }).getByRole("button", { name: "Allow", exact: true }).click();
    await page.getByText("Added math.test.js.").waitFor();
  } finally {
    await browser.close();
    web.kill("SIGTERM");
    await web;
    await api.close();
  }
}

/** The window as it is, the temp repository's path shown as ~/app (as the README's examples show it). */
async function shot(page: Page, name: string, repo: string): Promise<void> {
  await page.evaluate((from) => {
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode())
      if (node.nodeValue?.includes(from)) node.nodeValue = node.nodeValue.split(from).join("~/app");
  }, repo);
  const file = path.join(OUT, name);
  writeFileSync(file, await page.screenshot());
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

await main();
