/**
 * `npm run bench`: nudge's performance goals, each a ratio against git (or node) on the
 * same repository in the same run, measured through the real built CLI driving a stand-in claude.
 * Prints a markdown table for bench/results/README.md (between the bench markers), then details that explain
 * it (traces, a profile, storage by part). Progress goes to stderr.
 *
 *   npm run bench                          1k, 10k and 100k files, everything (~7–15 min on 2 cores)
 *   npm run bench -- 1000 10000            fewer sizes (the long session and the binaries need 10k)
 *   npm run bench -- --only=between,start  some sections: between, typed, scripted, rewind, long, storage, conversation, start, recorder, render, export, import, web, big, page, sessions, claude, claude-web, search, claude-index, sync, tui, install
 *   npm run bench -- --only=tui 1000 10000 --tui-rounds=3 --tui-turns=5 --tui-pause=2000   claude's own UI in tmux, under nudge ÷ plain (real claude)
 *   npm run bench -- --only=big --big-mb=50   a session with one Write of 50 MB (the default), read by nudge web and the CLI
 *   npm run bench -- --only=install        a user's install from the packed package (fetches from the npm registry; not in the default run)
 *   npm run bench -- --long-turns=200      a shorter long session (for trying the bench out)
 *   npm run bench -- --only=search --search-sessions=100   a smaller search corpus (default 1,000 sessions, ~1 GB)
 *   npm run bench -- --only=search --search-dir=/tmp/corpus   the corpus kept there for later runs (each builds the index again)
 *   npm run bench -- --only=claude-index --claude-index-mb=100   the first index of claude's own transcripts (default 1,000 MB)
 *   npm run bench -- --keep                keep the generated repositories (their path is printed)
 *   npm run bench -- --write               also put the table in bench/results/README.md (a full run: its rows replace the table's)
 *   BENCH_CLI=other/dist/nudge.mjs npm run bench -- …   measure another build of nudge
 */
import { rmSync } from "node:fs";
import os from "node:os";
import { betweenTurns, profileBetweenTurns, type BetweenResult } from "./between-turns.js";
import { cliStart, longSessionListing } from "./cli-start.js";
import { binaryTurnStorage, longSession } from "./long-session.js";
import { conversationStorage } from "./conversation-storage.js";
import { exportBench } from "./export-bench.js";
import { importBench } from "./import-bench.js";
import { installBench } from "./install-bench.js";
import { webBench } from "./web-bench.js";
import { bigContentBench } from "./big-content-bench.js";
import { pageBench, servedPageBench } from "./page-bench.js";
import { manySessions } from "./many-sessions.js";
import { claudeSessionsBench } from "./claude-sessions-bench.js";
import { claudeWebBench } from "./claude-web-bench.js";
import { recorderBench } from "./recorder.js";
import { renderBench } from "./render-bench.js";
import { generateRepo, scratchRoot } from "./repo.js";
import { report, writeTable, type BenchResults } from "./report.js";
import { rewindBench, type RewindResult } from "./rewind.js";
import { searchBench } from "./search-bench.js";
import { claudeIndexBench } from "./claude-index-bench.js";
import { typedPrompt, type TypedResult } from "./typed-prompt.js";
import { scriptedSession, type ScriptedSessionResult } from "./scripted-session.js";
import { syncBench, syncReport, type SyncBenchResult } from "./sync-bench.js";
import { tuiTurnsBench, tuiTurnsReport } from "./tui-turns-bench.js";
import { progress } from "./stats.js";

const SECTIONS = [
  "between",
  "typed",
  "scripted",
  "rewind",
  "long",
  "storage",
  "conversation",
  "start",
  "recorder",
  "render",
  "export",
  "import",
  "web",
  "big",
  "page",
  "sessions",
  "claude",
  "claude-web",
  "search",
  "claude-index",
  "sync",
  "tui",
  "install",
] as const;
type Section = (typeof SECTIONS)[number];

const args = process.argv.slice(2);
const sizes = args.filter((a) => /^\d+$/.test(a)).map(Number);
const fileCounts = sizes.length ? sizes.sort((a, b) => a - b) : [1_000, 10_000, 100_000];
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const longTurns = Number(option("long-turns") ?? 1000);
// The install fetches every package from the npm registry: only when asked for.
const only = option("only")?.split(",") ?? SECTIONS.filter((s) => s !== "install");
for (const s of only)
  if (!SECTIONS.includes(s as Section))
    throw new Error(`unknown section ${s}; the sections are ${SECTIONS.join(", ")}`);
const wanted = (s: Section) => only.includes(s);
const keep = args.includes("--keep");

/** Turns measured per size (after two warm-up turns): fewer where each costs more. */
const turnsFor = (files: number) => (files > 50_000 ? 10 : 16);

const results: BenchResults = {
  args,
  fileCounts,
  started: Date.now(),
  loadBefore: os.loadavg(),
  between: new Map<number, BetweenResult>(),
  typed: new Map<number, TypedResult>(),
  scripted: new Map<number, ScriptedSessionResult>(),
  binaries: null,
  profile: null,
  rewinds: new Map<string, RewindResult>(),
  long: null,
  listing: null,
  binaryTurn: null,
  start: null,
  recorder: null,
  render: null,
  exported: null,
  imported: null,
  web: null,
  page: null,
  servedPage: null,
  sessions: null,
  search: null,
  conversation: [],
  install: null,
  big: null,
};

try {
  if (wanted("between")) {
    for (const files of fileCounts) results.between.set(files, await betweenTurns({ files }, turnsFor(files)));
  }
  if (wanted("between")) {
    if (fileCounts.includes(10_000))
      results.binaries = await betweenTurns({ files: 10_000, untrackedBinaryMB: 90 }, 10);
    const largest = results.between.get(fileCounts.at(-1)!)!;
    progress(`profile: one traced, CPU-profiled session at ${largest.shape.files.toLocaleString("en")} files`);
    results.profile = { files: largest.shape.files, ...(await profileBetweenTurns(largest.repo, 3)) };
  }
  if (wanted("typed")) {
    for (const files of fileCounts) results.typed.set(files, await typedPrompt({ files }, files > 50_000 ? 8 : 12));
  }
  if (wanted("scripted")) {
    for (const files of fileCounts)
      results.scripted.set(files, await scriptedSession(files, 20, files > 50_000 ? 2 : 3));
  }
  if (wanted("rewind")) {
    // Their repositories are kept under /tmp between runs (rewind.ts): 100k files take minutes to make.
    for (const files of fileCounts.filter((f) => f >= 10_000)) {
      for (const change of ["small", "many"] as const)
        results.rewinds.set(`${files}-${change}`, await rewindBench(files, change, files >= 100_000 ? 5 : 8));
    }
  }
  if (wanted("long") && fileCounts.includes(10_000)) {
    results.long = await longSession(10_000, longTurns);
    results.listing = await longSessionListing(results.long.repo, results.long.id, results.long.turns, 10);
  }
  if (wanted("storage")) results.binaryTurn = await binaryTurnStorage();
  if (wanted("conversation")) {
    // The real claude (pinned), the scripted API on loopback: blocks in one piece, then in token-sized pieces.
    for (const chunk of [undefined, 8]) results.conversation.push(await conversationStorage(3, 15, chunk));
  }
  if (wanted("start") || wanted("recorder") || wanted("render")) {
    const small = results.between.get(fileCounts[0]!)?.repo ?? (await generateRepo({ files: 1_000 }));
    if (wanted("start")) results.start = await cliStart(small, 20, 12);
    if (wanted("recorder")) results.recorder = await recorderBench(small, 256);
    if (wanted("render")) results.render = await renderBench(small, 200);
  }
  if (wanted("export")) {
    progress(
      "export: a 200-turn session recorded in a 1k-file repository, exported and imported, against git bundle create",
    );
    results.exported = await exportBench(200, 1_000);
  }
  if (wanted("import")) results.imported = await importBench(200, 1_000, 8);
  if (wanted("sessions")) results.sessions = await manySessions(5_000, 20);
  if (wanted("claude")) results.claudeSessions = await claudeSessionsBench(2_000, 20);
  if (wanted("claude-web")) results.claudeWeb = await claudeWebBench(2_000, 10);
  if (wanted("web")) results.web = await webBench(200, 10);
  if (wanted("big")) results.big = await bigContentBench(Number(option("big-mb") ?? 50));
  if (wanted("page")) {
    results.page = await pageBench(1000, 5);
    results.servedPage = await servedPageBench(1000, 5);
  }
  if (wanted("page")) results.page = await pageBench(1000, 5);
  if (wanted("search"))
    results.search = await searchBench(
      { sessions: Number(option("search-sessions") ?? 1000), turns: 10, outputChars: 45_000 },
      7,
      option("search-dir"),
    );
  if (wanted("claude-index")) results.claudeIndex = await claudeIndexBench(Number(option("claude-index-mb") ?? 1000));
  if (wanted("install")) results.install = await installBench();
  const sync: SyncBenchResult | null = wanted("sync") ? await syncBench() : null;
  // Real claude in a terminal per turn: seconds each, so fewer rounds than elsewhere; 100k files only when asked for.
  const tui = wanted("tui")
    ? await tuiTurnsBench(
        sizes.length ? fileCounts : [1_000, 10_000],
        Number(option("tui-rounds") ?? 3),
        Number(option("tui-turns") ?? 5),
        Number(option("tui-pause") ?? 2000),
      )
    : [];
  const lines = report(results);
  process.stdout.write(lines.join("\n") + "\n");
  if (args.includes("--write")) writeTable(lines, new URL("./results/README.md", import.meta.url).pathname);
  if (sync)
    process.stdout.write(
      [
        "",
        ...syncReport(sync),
        `(load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(", ")} after)`,
      ].join("\n") + "\n",
    );
  if (tui.length) process.stdout.write(tuiTurnsReport(tui).join("\n") + "\n");
} finally {
  if (!keep) rmSync(scratchRoot, { recursive: true, force: true });
  else progress(`kept ${scratchRoot}`);
}
