/**
 * The first screen of `nudge web` (the sessions page: the recorded sessions listed, the main
 * thread free) in real Chromium with 2,000 of claude's own sessions of the repository on disk,
 * against the same repository with none, one server each, in alternating rounds. claude's own
 * list comes after the first screen (its own request, from nudge's cached cards): when it is drawn
 * is measured too, warm (cards cached) and cold (the cache removed: every transcript read).
 */
import { chromium, type Browser, type BrowserContext } from "playwright-core";
import { claudeConfigs, dropCardCache } from "./claude-sessions-bench.js";
import { generateRepo } from "./repo.js";
import { prompts, runSession } from "./session.js";
import { alternate, median, progress } from "./stats.js";
import { startServer, stopServer, type Server } from "./web-bench.js";

export interface ClaudeWebResult {
  sessions: number;
  rounds: number;
  /** Navigation start to the first screen, ms medians: with none of claude's sessions, with `sessions` (cards cached). */
  none: number;
  full: number;
  /** Navigation start to claude's own list drawn (warm), and once with the card cache removed (cold). */
  listed: number;
  listedCold: number;
  firstCold: number;
}

type Doc = { document: { querySelector(s: string): unknown } };

export async function claudeWebBench(count = 2_000, rounds = 10): Promise<ClaudeWebResult> {
  progress(`web: the sessions page with ${count.toLocaleString("en")} of claude's own sessions on disk, and with none`);
  const repo = await generateRepo({ files: 100 });
  await runSession(repo, prompts(repo, 1, "small"));
  const { empty, full } = claudeConfigs(repo, count);
  const servers: Server[] = [];
  const browser: Browser = await chromium.launch({
    executablePath: process.env.NUDGE_CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
  });
  try {
    const open = async (config: string) => {
      const server = await startServer(repo, { ...process.env, CLAUDE_CONFIG_DIR: config });
      servers.push(server);
      const context = await browser.newContext();
      const login = await context.newPage();
      await login.goto(server.url); // the token becomes the context's cookie
      await login.close();
      return { context, origin: new URL(server.url).origin };
    };
    const none = await open(empty);
    const withAll = await open(full);
    const cold: Array<{ first: number; listed: number }> = [];
    for (let i = 0; i < 3; i++) {
      dropCardCache(repo);
      cold.push(await firstScreen(withAll.context, withAll.origin, true));
    }
    const s = await alternate(rounds, {
      none: async () => (await firstScreen(none.context, none.origin, false)).first,
      full: async () => (await firstScreen(withAll.context, withAll.origin, true)).first,
      listed: async () => (await firstScreen(withAll.context, withAll.origin, true)).listed,
    });
    return {
      sessions: count,
      rounds,
      none: median(s.none!),
      full: median(s.full!),
      listed: median(s.listed!),
      listedCold: median(cold.map((c) => c.listed)),
      firstCold: median(cold.map((c) => c.first)),
    };
  } finally {
    await browser.close();
    for (const server of servers) await stopServer(server);
  }
}

/** Navigation start to the recorded sessions listed with the main thread free; then (`claude`) to claude's own list drawn. */
async function firstScreen(
  context: BrowserContext,
  origin: string,
  claude: boolean,
): Promise<{ first: number; listed: number }> {
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  // Functions, not strings: the page's CSP refuses eval. The bench's tsconfig has no DOM types.
  await page.waitForFunction(() => !!(globalThis as unknown as Doc).document.querySelector("main.sessions tbody a"));
  const first = await page.evaluate(() => new Promise<number>((done) => setTimeout(() => done(performance.now()), 0)));
  let listed = 0;
  if (claude) {
    await page.waitForFunction(() => !!(globalThis as unknown as Doc).document.querySelector(".claude-own tbody a"), {
      timeout: 120_000,
    });
    listed = await page.evaluate(() => performance.now());
  }
  await page.close();
  return { first, listed };
}
