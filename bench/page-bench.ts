/**
 * The session page of a 1,000-turn session in real Chromium: a static export's page (the same
 * page `nudge web` serves, with the data inline) from file:// until it is interactive — its
 * header, every turn's section and the first turn's entries drawn, and the main thread free —
 * against the same page for a session with no turns, in the same run. Synthetic views (a prompt,
 * a markdown reply with a code fence, a tool call, a one-file diff per turn): the page's own cost,
 * not the bundle reader's.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { readPageAssets } from "../src/web/page/assets.js";
import { pageDocument } from "../src/web/page/document.js";
import type { SessionView, TurnSummaryView, TurnView } from "../src/view/view-types.js";
import { generateRepo } from "./repo.js";
import { prompts, runSession } from "./session.js";
import { alternate, median, progress } from "./stats.js";
import { startServer, stopServer } from "./web-bench.js";

export interface PageBenchResult {
  turns: number;
  rounds: number;
  /** Navigation start to interactive (header and first turn drawn, main thread free), ms: the long session, and the empty one. */
  longMs: number;
  emptyMs: number;
  /** Navigation start to every turn's section drawn (they are drawn in batches after the first ones). */
  allMs: number;
  htmlBytes: number;
}

export async function pageBench(turns = 1000, rounds = 5): Promise<PageBenchResult> {
  progress(`page: a ${turns}-turn session's page in Chromium until interactive, against a session with no turns`);
  const dir = mkdtempSync(path.join(os.tmpdir(), "nudge-bench-page-"));
  const assets = await readPageAssets();
  const write = (name: string, n: number) => {
    const file = path.join(dir, name);
    const html = pageDocument({ mode: "static", title: "bench", ...assets, data: syntheticSession(n) });
    writeFileSync(file, html);
    return { url: pathToFileURL(file).href, bytes: Buffer.byteLength(html) };
  };
  const long = write("long.html", turns);
  const empty = write("empty.html", 0);
  const browser = await launch();
  try {
    await interactive(browser, empty.url, 0); // warm-up: Chromium's first page pays for its start
    const longMs: number[] = [];
    const allMs: number[] = [];
    const emptyMs: number[] = [];
    for (let i = 0; i < rounds; i++) {
      emptyMs.push((await interactive(browser, empty.url, 0)).ms);
      const m = await interactive(browser, long.url, turns);
      longMs.push(m.ms);
      allMs.push(m.all);
    }
    return {
      turns,
      rounds,
      longMs: median(longMs),
      emptyMs: median(emptyMs),
      allMs: median(allMs),
      htmlBytes: long.bytes,
    };
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ServedPageBenchResult {
  turns: number;
  rounds: number;
  /** Navigation start to interactive, ms: the long session's page, and a one-turn session's page from the same server. */
  longMs: number;
  shortMs: number;
  /** How long recording the long session took, s (once, before the measurements). */
  recordS: number;
}

/**
 * The same page as `nudge web` serves it: a real `turns`-turn session the stand-in recorded, its
 * page opened in Chromium from the server (which builds the session's view from the bundle, and
 * each turn's when it nears the screen), against a one-turn session's page from the same server.
 */
export async function servedPageBench(turns = 1000, rounds = 5): Promise<ServedPageBenchResult> {
  progress(`page: a ${turns}-turn session recorded with the stand-in, for its served page`);
  const repo = await generateRepo({ files: 100 });
  // The short one first: its turn 0 (the uncommitted work when it began) is then empty, as the long one's nearly is.
  const short = await runSession(repo, prompts(repo, 1, "small"));
  const started = Date.now();
  const long = await runSession(repo, prompts(repo, turns, "small"));
  const recordS = (Date.now() - started) / 1000;
  progress(`page: the served pages of ${turns} turns and of 1 turn in Chromium, ${rounds} rounds each`);
  const server = await startServer(repo);
  const browser = await launch();
  try {
    const context = await browser.newContext();
    const login = await context.newPage();
    await login.goto(server.url); // the token becomes the context's cookie
    await login.close();
    const origin = new URL(server.url).origin;
    const open = async (id: string, last: number) => (await interactive(context, `${origin}/s/${id}`, last)).ms;
    await open(short.id, 1); // warm-up
    const s = await alternate(rounds, { long: () => open(long.id, turns), short: () => open(short.id, 1) });
    return { turns, rounds, longMs: median(s.long!), shortMs: median(s.short!), recordS };
  } finally {
    await browser.close();
    await stopServer(server);
  }
}

function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.NUDGE_CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
  });
}

/**
 * Navigation start to interactive: the header and the first turn's entries drawn, and the main
 * thread free (a task queued then runs at once); then to the last turn's section drawn.
 */
async function interactive(
  opener: { newPage(): Promise<Page> },
  url: string,
  last: number,
): Promise<{ ms: number; all: number }> {
  const page = await opener.newPage();
  await page.goto(url);
  // Functions, not strings: the page's CSP refuses eval. The bench's tsconfig has no DOM types.
  await page.waitForFunction((n) => {
    const d = (globalThis as unknown as { document: { querySelector(selector: string): unknown } }).document;
    return !!d.querySelector("h1") && (n === 0 || !!d.querySelector("#turn-1 .entries"));
  }, last);
  const ms = await page.evaluate(() => new Promise<number>((done) => setTimeout(() => done(performance.now()), 0)));
  await page.waitForFunction(
    (n) =>
      !!(globalThis as unknown as { document: { querySelector(selector: string): unknown } }).document.querySelector(
        `#turn-${n}`,
      ),
    last,
  );
  const all = await page.evaluate(() => performance.now());
  await page.close();
  return { ms, all };
}

export function syntheticSession(turns: number): { session: SessionView; turns: TurnView[] } {
  const summaries: TurnSummaryView[] = Array.from({ length: turns + 1 }, (_, n) => ({
    n,
    prompt: n === 0 ? null : `make change ${n} to the parser`,
    status: "success",
    startedAt: new Date(Date.UTC(2026, 10, 1, 0, 0, n)).toISOString(),
    endedAt: new Date(Date.UTC(2026, 10, 1, 0, 0, n + 1)).toISOString(),
    costUsd: n === 0 ? null : 0.01 + (n % 17) / 100,
    durationMs: n === 0 ? null : 1000 + (n % 13) * 300,
    tokens: n === 0 ? null : { input: 20_000 + n, output: 300, cacheRead: 0, cacheWrite: 0 },
    files: n === 0 ? 0 : 1,
    added: n === 0 ? 0 : 1,
    removed: n === 0 ? 0 : 1,
    edits: null,
    check: null,
    compaction: null,
    sharedWith: [],
    loop: null,
  }));
  const view = (s: TurnSummaryView): TurnView => ({
    summary: s,
    entries:
      s.n === 0
        ? []
        : [
            { kind: "prompt", text: s.prompt! },
            {
              kind: "tool",
              id: `t${s.n}`,
              name: "Edit",
              input: { text: `{"file_path":"src/parse.ts"}`, length: 28 },
              detail: "src/parse.ts",
              result: { content: { text: "ok", length: 2 }, isError: false },
              children: [],
              parent: null,
            },
            {
              kind: "text",
              markdown: `Changed **line ${s.n}**:\n\n\`\`\`ts\nexport const v${s.n} = ${s.n};\n\`\`\``,
              parent: null,
            },
          ],
    edits: null,
    diff: {
      files:
        s.n === 0
          ? []
          : [
              {
                path: "src/parse.ts",
                oldPath: null,
                status: "modified",
                binary: false,
                symlink: false,
                oldMode: "100644",
                newMode: "100644",
                added: 1,
                removed: 1,
              },
            ],
      patch:
        s.n === 0
          ? ""
          : `diff --git a/src/parse.ts b/src/parse.ts\nindex 1111111..2222222 100644\n--- a/src/parse.ts\n+++ b/src/parse.ts\n@@ -1 +1 @@\n-export const v = ${s.n - 1};\n+export const v = ${s.n};\n`,
      truncated: false,
    },
  });
  const total = summaries.reduce((sum, t) => sum + (t.costUsd ?? 0), 0);
  return {
    session: {
      session: {
        id: "bench00000",
        path: "/bench",
        startedAt: summaries[0]!.startedAt,
        updatedAt: summaries.at(-1)!.endedAt,
        branch: "main",
        turns,
        firstPrompt: summaries[1]?.prompt ?? null,
        lastPrompt: summaries.at(-1)?.prompt ?? null,
        costUsd: total,
        durationMs: 0,
        state: "complete",
        parent: null,
        rewoundTo: null,
        origin: null,
        repairedAt: null,
        sharedWith: [],
        children: [],
      },
      repo: { root: "/bench", branch: "main" },
      turns: summaries,
      pending: null,
    },
    turns: summaries.map(view),
  };
}

// `node --import tsx bench/page-bench.ts [turns]`: this measurement alone.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const r = await pageBench(Number(process.argv[2] ?? 1000));
  console.log(JSON.stringify(r));
}
