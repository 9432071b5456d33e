/**
 * The bench's output: the markdown table for bench/results/README.md (between the bench markers;
 * only the rows of the sections that ran), then details that are not for it.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import os from "node:os";
import type { BetweenProfile, BetweenResult } from "./between-turns.js";
import type { LongListResult, StartResult } from "./cli-start.js";
import type { ExportBenchRow } from "./export-bench.js";
import type { ImportBenchRow } from "./import-bench.js";
import type { InstallResult } from "./install-bench.js";
import type { BinaryTurnResult, LongSessionResult } from "./long-session.js";
import type { LatencyFigures, RecorderResult } from "./recorder.js";
import type { RenderResult } from "./render-bench.js";
import type { RewindResult } from "./rewind.js";
import { CLI } from "./session.js";
import type { StoreSizes } from "./store-size.js";
import type { WebBenchResult } from "./web-bench.js";
import type { PageBenchResult, ServedPageBenchResult } from "./page-bench.js";
import type { ManySessionsResult } from "./many-sessions.js";
import type { ClaudeSessionsResult } from "./claude-sessions-bench.js";
import type { ClaudeWebResult } from "./claude-web-bench.js";
import type { SearchBenchResult } from "./search-bench.js";
import type { ClaudeIndexResult } from "./claude-index-bench.js";
import type { TypedResult } from "./typed-prompt.js";
import type { ScriptedSessionResult } from "./scripted-session.js";
import { bigContentRows, type BigContentResult } from "./big-content-bench.js";
import { fmtBytes, fmtMs, fmtRatio, median } from "./stats.js";
import { conversationBytes, perTurn, type ConversationStorageResult } from "./conversation-storage.js";

export interface BenchResults {
  args: string[];
  fileCounts: number[];
  started: number;
  loadBefore: number[];
  between: Map<number, BetweenResult>;
  typed: Map<number, TypedResult>;
  scripted: Map<number, ScriptedSessionResult>;
  binaries: BetweenResult | null;
  profile: (BetweenProfile & { files: number }) | null;
  /** By `${files}-${change}`. */
  rewinds: Map<string, RewindResult>;
  long: LongSessionResult | null;
  listing: LongListResult | null;
  binaryTurn: BinaryTurnResult | null;
  start: StartResult | null;
  recorder: RecorderResult | null;
  render: RenderResult | null;
  exported: ExportBenchRow | null;
  imported: ImportBenchRow | null;
  web: WebBenchResult | null;
  page: PageBenchResult | null;
  servedPage: ServedPageBenchResult | null;
  sessions: ManySessionsResult | null;
  claudeSessions?: ClaudeSessionsResult | null;
  claudeWeb?: ClaudeWebResult | null;
  search: SearchBenchResult | null;
  claudeIndex?: ClaudeIndexResult | null;
  /** Conversation storage with the real claude: one piece a block, and streamed in small pieces. */
  conversation: ConversationStorageResult[];
  install: InstallResult | null;
  big: BigContentResult | null;
}

const mark = (ok: boolean) => (ok ? "✓" : "✗");
const kFiles = (f: number) => (f >= 1000 ? `${f / 1000}k` : String(f));
/** Code storage: the snapshots' objects and refs, the private index, and the patches nudge keeps. */
const codeBytes = (s: StoreSizes) => s.git + s.privateIndex + s.bundle.patches;
const signed = (b: number) => `${b >= 0 ? "+" : "−"}${fmtBytes(Math.abs(b))}`;

export function report(r: BenchResults): string[] {
  const out: string[] = [];
  const say = (line = "") => out.push(line);
  const gitVersion = execFileSync("git", ["--version"])
    .toString()
    .trim()
    .replace(/^git version /, "");
  say("<!-- bench:start -->");
  say(
    `Measured ${new Date().toISOString().slice(0, 10)} on Linux, ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? "unknown CPU"}), git ${gitVersion}, node ${process.version}, with \`npm run bench${r.args.length ? ` -- ${r.args.join(" ")}` : ""}\`.`,
  );
  say(
    "Medians of alternating runs (n = how many); every ratio is against git (or node) on the same repository in the same run, both medians beside it.",
  );
  if (r.between.size) {
    say(
      "Between turns: from claude's `result` line to the next prompt reaching claude, through `nudge claude run` (prompts queued on stdin) driving a stand-in claude; each turn edits one file, adds one, and adds ~40 KB to claude's transcript.",
    );
  }
  if (r.typed.size) {
    say(
      "Typed prompt: the user edits a file (one changed, one added) and types a prompt after the last turn's end line; from Enter to the prompt reaching the stand-in claude, whose Edit then waits for nudge's capture of those edits (a PreToolUse hook, as the real claude calls it).",
    );
  }
  if (r.scripted.size) {
    say(
      "Scripted session: 20 turns (each writes a file and answers) through `nudge claude run` and given straight to the real `claude -p` (the next prompt at each result, as nudge sends them), both with the pinned claude and the scripted Messages API; whole sessions, start included, alternating.",
    );
  }
  if (r.between.size || r.rewinds.size || r.typed.size || r.scripted.size) sizeTable(r, say);
  say("");
  say("| | measured | goal |");
  say("|---|---:|---|");
  otherRows(r, say);
  say("<!-- bench:end -->");
  details(r, say);
  return out;
}

function sizeTable(r: BenchResults, say: (line?: string) => void): void {
  say("");
  say(`| | ${r.fileCounts.map((f) => `${kFiles(f)} files`).join(" | ")} | goal |`);
  say(`|---|${r.fileCounts.map(() => "---:").join("|")}|---|`);
  const row = (label: string, cell: (files: number) => string, goal: string) =>
    say(`| ${label} | ${r.fileCounts.map(cell).join(" | ")} | ${goal} |`);
  if (r.between.size && r.profile) {
    row(
      "between turns ÷ `git status --porcelain -uall`",
      (f) => {
        const b = r.between.get(f)!;
        const goal =
          f >= 100_000
            ? ` ${mark(b.ratio <= 1.0)}`
            : f === 10_000
              ? ` ${mark(b.ratio <= 1.3)}`
              : ` ${mark(b.betweenMs <= b.statusMs + 20)}`;
        return `${fmtRatio(b.ratio)}${goal} (${fmtMs(b.betweenMs)} / ${fmtMs(b.statusMs)}, n=${b.runs})`;
      },
      "≤ 1.0× at 100k, ≤ 1.3× at 10k, within 20 ms at 1k",
    );
    row(
      "claude's `result` → nudge's end-of-turn line (prompts queued)",
      (f) => {
        const b = r.between.get(f)!;
        return `${fmtMs(b.endLineMs)} ${mark(b.endLineMs <= 100)} (the changes line under it, once saved: ${fmtMs(b.changesLineMs)}; n=${b.endLineRuns})`;
      },
      "≤ 100 ms",
    );
    row(
      "git processes nudge starts between result and prompt (median, range)",
      (f) => {
        const g = r.between.get(f)!.gitProcesses;
        return `${g.median} ${mark(g.max <= 2)} (${g.min}–${g.max}, n=${g.turns})`;
      },
      "≤ 2 (the critical path)",
    );
    row(
      "git processes nudge starts per turn, in all (median, range)",
      (f) => {
        const g = r.between.get(f)!.gitProcessesPerTurn;
        return `${g.median} ${mark(g.max <= 4)} (${g.min}–${g.max}, n=${g.turns})`;
      },
      "≤ 4, or their start off nudge's event loop",
    );
    const bin = r.binaries;
    if (bin)
      row(
        "same as the first row, with 90 MB of untracked binaries",
        (f) =>
          f === 10_000
            ? `${fmtRatio(bin.ratio)} (${fmtMs(bin.betweenMs)} / ${fmtMs(bin.statusMs)}, n=${bin.runs})`
            : "",
        "as without them",
      );
  }
  if (r.typed.size) {
    row(
      "typed prompt → claude (the user's edits captured beside it) ÷ `git status --porcelain -uall`",
      (f) => {
        const t = r.typed.get(f);
        if (!t) return "";
        const goal = f === 1_000 ? ` ${mark(t.typedMs <= 50)}` : f >= 10_000 ? ` ${mark(t.ratio <= 0.5)}` : "";
        return `${fmtRatio(t.ratio)}${goal} (${fmtMs(t.typedMs)} / ${fmtMs(t.statusMs)}, n=${t.runs})`;
      },
      "≤ 50 ms at 1k; ≤ 0.5× at 10k and 100k",
    );
    row(
      "typed prompt → claude's first tool allowed (after the edits' capture) ÷ `git status --porcelain -uall`",
      (f) => {
        const t = r.typed.get(f);
        return t ? `${fmtRatio(t.toolMs / t.statusMs)} (${fmtMs(t.toolMs)} / ${fmtMs(t.statusMs)}, n=${t.runs})` : "";
      },
      "(claude's own API round trip hides it)",
    );
  }
  if (r.scripted.size) {
    row(
      "a scripted 20-turn session: `nudge claude run` − straight `claude -p`, per turn (start included) − `git status -uall`",
      (f) => {
        const s = r.scripted.get(f);
        if (!s) return "";
        const perTurn = (median(s.nudge) - median(s.claude)) / s.turns;
        return `${fmtMs(perTurn - s.statusMs)} ${mark(perTurn <= s.statusMs + 50)} (${fmtMs(median(s.nudge))} / ${fmtMs(median(s.claude))} a session; status ${fmtMs(s.statusMs)}; n=${s.rounds})`;
      },
      "≤ 50 ms",
    );
  }
  if (r.rewinds.size) {
    // The goal measures nudge's own work: the whole command ≤ the floor (the command loaded, then
    // git's scan of the work tree a rewind must back up) + 30 ms at 10k files, + 60 ms at 100k.
    const allowance = (f: number) => (f >= 100_000 ? 60 : 30);
    for (const change of ["small", "many"] as const) {
      const what = change === "small" ? "1 file edited, 1 added" : "1,000 files edited, 100 added";
      for (const command of ["rewind", "fork"] as const) {
        row(
          `\`session ${command} <id> <turn> --yes\` − floor (loading the command + \`git status -uall\`); ${what}; whole processes`,
          (f) => {
            const w = r.rewinds.get(`${f}-${change}`);
            if (!w) return "";
            const ms = command === "rewind" ? w.rewindMs : w.forkMs;
            const floor = w.loadMs + w.statusMs;
            return `${fmtMs(ms - floor)} ${mark(ms - floor <= allowance(f))} (floor ${fmtMs(floor)} = ${fmtMs(w.loadMs)} + ${fmtMs(w.statusMs)}; nudge ${fmtMs(ms)}; \`git checkout\` ${fmtMs(w.checkoutMs)}; \`node -e 0\` ${fmtMs(w.nodeMs)}; n=${w.rounds})`;
          },
          "≤ 30 ms at 10k, ≤ 60 ms at 100k",
        );
      }
    }
  }
}

function otherRows(r: BenchResults, say: (line?: string) => void): void {
  const { long, listing, binaryTurn, start, recorder } = r;
  if (long) {
    const ratio = long.late.betweenMs / long.early.betweenMs;
    const status = long.late.statusMs / long.early.statusMs;
    say(
      `| ${long.turns.toLocaleString("en")}-turn session, 10k files: between turns at turns ${long.late.from}–${long.late.to} ÷ at ${long.early.from}–${long.early.to} | ${fmtRatio(ratio)} ${mark(ratio <= 1.1)} (${fmtMs(long.late.betweenMs)} / ${fmtMs(long.early.betweenMs)}, n=${long.late.to - long.late.from + 1}; \`git status\` ${fmtRatio(status)} over the same turns) | ≤ 1.1× |`,
    );
    const code = codeBytes(long.nudge);
    say(
      `| storage per turn, code (snapshot objects + private index + patches) ÷ \`git commit\` of the same change, turns ${long.turns - long.storageTurns + 1}–${long.turns} | ${(code / long.twinGit).toFixed(3)}× ${mark(code <= long.twinGit)} (${fmtBytes(code)} / ${fmtBytes(long.twinGit)}, ${signed(code - long.twinGit)}: snapshot objects ${signed(long.nudge.git - long.twinGit)} against git's, plus ${fmtBytes(long.nudge.bundle.patches)} of patches) | ≤ 1× |`,
    );
    const b = long.nudge.bundle;
    const convo = b.transcriptCopy + b.stream + b.input + b.journal + b.other;
    say(
      `| storage per turn, conversation (transcript copy, stream, input, turn records) ÷ claude's own transcript growth, stand-in claude | ${fmtRatio(convo / 40_960)} (${fmtBytes(convo)} / 40.0 KB) | |`,
    );
  }
  for (const c of r.conversation) {
    const { claude, bundle } = perTurn(c);
    const convo = conversationBytes(bundle);
    const how = c.chunk ? `API streaming in ${c.chunk}-character pieces` : "API answering a block in one piece";
    say(
      `| storage per turn, conversation with the real claude (${how}; turns ${c.turns[0] + 1}–${c.turns[1]}) ÷ claude's own transcript growth | ${fmtRatio(convo / claude)} ${mark(convo <= 1.3 * claude)} (${fmtBytes(convo)} / ${fmtBytes(claude)}: transcript copy ${fmtRatio(bundle.transcriptCopy / claude)}, stream ${fmtRatio(bundle.stream / claude)}, input and turn records ${fmtRatio((bundle.input + bundle.journal + bundle.other) / claude)}) | ≤ 1.3× |`,
    );
  }
  if (binaryTurn) {
    const code = codeBytes(binaryTurn.nudge);
    say(
      `| storage of a turn changing one byte of a 50 MB binary, code ÷ \`git commit\` | ${(code / binaryTurn.twinGit).toFixed(3)}× ${mark(code <= binaryTurn.twinGit)} (${fmtBytes(code)} / ${fmtBytes(binaryTurn.twinGit)}, ${signed(code - binaryTurn.twinGit)}: snapshot objects ${signed(binaryTurn.nudge.git - binaryTurn.twinGit)} against git's, plus ${fmtBytes(binaryTurn.nudge.bundle.patches)} of patches) | ≤ 1× |`,
    );
  }
  if (start) {
    const row = (label: string, which: "version" | "list") => {
      const a = start.withCerts[which] / start.withCerts.node;
      const b = start.withoutCerts[which] / start.withoutCerts.node;
      say(
        `| ${label} ÷ \`node -e 0\` | ${fmtRatio(a)} ${mark(a <= 2)} (${fmtMs(start.withCerts[which])} / ${fmtMs(start.withCerts.node)}); without NODE_EXTRA_CA_CERTS ${fmtRatio(b)} ${mark(b <= 2)} (${fmtMs(start.withoutCerts[which])} / ${fmtMs(start.withoutCerts.node)}); compile cache off ${fmtMs(start.noCache[which])}; n=${start.rounds} | ≤ 2× |`,
      );
    };
    row("`nudge --version`", "version");
    row(`\`nudge session list\` (${start.sessions} sessions)`, "list");
  }
  if (listing) {
    for (const [cmd, x] of [
      ["list", listing.list],
      ["show", listing.show],
    ] as const) {
      const ratio = x.long / x.short;
      say(
        `| \`session ${cmd}\` of a ${listing.longTurns.toLocaleString("en")}-turn session ÷ of a 1-turn one | ${fmtRatio(ratio)} ${mark(ratio <= 1.1)} (${fmtMs(x.long)} / ${fmtMs(x.short)}, n=${listing.rounds}) | ≤ 1.1× |`,
      );
    }
  }
  if (recorder) {
    say(
      `| recorder throughput, ${recorder.streamMB.toFixed(0)} MB of NDJSON through \`nudge claude run\` | ${recorder.mbPerSecond.toFixed(0)} MB/s ${mark(recorder.mbPerSecond >= 300)} (the recording path alone, in-process: ${recorder.inProcessMbPerSecond.toFixed(0)} MB/s) | ≥ 300 MB/s |`,
    );
    latencyRow(say, "a line every 2 ms", recorder.idle);
    latencyRow(say, "each line followed by a 64 KB tool result", recorder.loaded);
  }
  if (r.render) {
    const x = r.render;
    say(
      `| rendering claude's markdown, per streamed chunk (8-character deltas of a ${(x.answerChars / 1024).toFixed(1)} KB answer with a table and a 60-line code block): median / p99 | ${x.markdown.median.toFixed(3)} / ${x.markdown.p99.toFixed(3)} ms (the text as written, NO_COLOR: ${x.raw.median.toFixed(3)} / ${x.raw.p99.toFixed(3)} ms; n=${x.chunks}) | |`,
    );
    latencyRow(say, "a line every 2 ms, markdown rendered (FORCE_COLOR=1)", x.latency);
    say(
      `| the same lines through nudge without rendering (NO_COLOR), same run: median / p99 | ${x.plainLatency.median.toFixed(2)} / ${x.plainLatency.p99.toFixed(2)} ms (rendering adds ${(x.latency.nudge.median - x.plainLatency.median).toFixed(2)} ms at the median) | |`,
    );
  }
  if (r.exported) {
    const e = r.exported;
    say(
      `| \`session export\` of a ${e.turns}-turn session (1k files) ÷ \`git bundle create\` of the same commits | time ${fmtRatio(e.exportSeconds / e.gitBundleSeconds)} (${fmtMs(e.exportSeconds * 1000)} / ${fmtMs(e.gitBundleSeconds * 1000)}); size ${fmtRatio(e.exportBytes / e.gitBundleBytes)} (${fmtBytes(e.exportBytes)} / ${fmtBytes(e.gitBundleBytes)}: the tarball also carries the conversation, ${fmtBytes(e.bundleFolderBytes)} in the bundle folder) | |`,
    );
    say(`| \`session import\` of it (every patch checked against its snapshot) | ${fmtMs(e.importSeconds * 1000)} | |`);
  }
  if (r.imported) {
    // As a rewind's: nudge's own work over the floor (the command loaded, one unbundle, the export read once).
    const i = r.imported;
    const floor = i.loadMs + i.unbundleMs + i.readMs;
    say(
      `| \`session import\` of a ${i.turns}-turn export (${fmtBytes(i.exportBytes)}, ${i.files.toLocaleString("en")} files; whole process, every check) − floor (loading the command + one \`git bundle unbundle\` + reading the export once) | ${fmtMs(i.importMs - floor)} ${mark(i.importMs - floor <= 30)} (floor ${fmtMs(floor)} = ${fmtMs(i.loadMs)} + ${fmtMs(i.unbundleMs)} + ${fmtMs(i.readMs)}; nudge ${fmtMs(i.importMs)}; n=${i.rounds}) | ≤ 30 ms |`,
    );
  }
  if (r.install) {
    const i = r.install;
    const sqlite = i.sqliteCompiled
      ? "better-sqlite3 compiled from its sources, no prebuilt binary reachable"
      : "better-sqlite3's prebuilt binary downloaded";
    say(
      `| a user's install: \`npm install -g ./nudge-<v>.tgz\` (${fmtBytes(i.tarballBytes)}), empty npm cache, ÷ a contributor's \`npm ci\` on disk | ${fmtBytes(i.bytes)} on disk, ${i.packages} packages, ${(i.ms / 1000).toFixed(0)} s (${sqlite}); ${fmtRatio(i.bytes / i.contributorBytes)} of the ${fmtBytes(i.contributorBytes)} \`npm ci\` puts in node_modules | one command, run-time dependencies only |`,
    );
  }
  if (r.sessions) manySessionRows(r.sessions, say);
  if (r.claudeSessions) {
    const c = r.claudeSessions;
    const warm = c.warm / c.none;
    say(
      `| \`nudge session list\`, ${c.sessions.toLocaleString("en")} of claude's own sessions of the repository on disk (cards cached) ÷ none | ${fmtRatio(warm)} ${mark(warm <= 1.2)} (${fmtMs(c.warm)} / ${fmtMs(c.none)}; the first listing, every transcript read: ${fmtMs(c.cold)}; n=${c.rounds}) | ≤ 1.2× |`,
    );
  }
  if (r.claudeWeb) {
    const c = r.claudeWeb;
    const ratio = c.full / c.none;
    say(
      `| first screen of \`nudge web\` (the sessions page in Chromium), ${c.sessions.toLocaleString("en")} of claude's own sessions of the repository on disk (cards cached) ÷ none | ${fmtRatio(ratio)} ${mark(ratio <= 1.2)} (${fmtMs(c.full)} / ${fmtMs(c.none)}; claude's own list drawn after it at ${fmtMs(c.listed)}; the cache removed: first screen ${fmtMs(c.firstCold)}, claude's list ${fmtMs(c.listedCold)}; n=${c.rounds}) | ≤ 1.2× |`,
    );
  }
  if (r.web) webRows(r.web, say);
  if (r.big) bigContentRows(r.big, say);
  if (r.search) searchRows(r.search, say);
  if (r.claudeIndex) {
    const c = r.claudeIndex;
    say(
      `| first search index of claude's own sessions (${c.sessions.toLocaleString("en")} transcripts, ${fmtBytes(c.bytes)}), in the background: from the first search to one that says nothing is left / a search meanwhile, median / max (n=${c.meanwhile.samples}) / the search after | ${fmtMs(c.buildMs)} / ${fmtMs(c.meanwhile.median)} / ${fmtMs(c.meanwhile.max)} / ${fmtMs(c.afterMs)} ${mark(c.found)} | searches never wait for it |`,
    );
  }
  if (r.page) {
    const p = r.page;
    const ok = p.longMs <= 1000;
    say(
      `| session page of a ${p.turns.toLocaleString("en")}-turn session (static export, ${fmtBytes(p.htmlBytes)}) in Chromium: interactive ÷ the same page with no turns | ${fmtRatio(p.longMs / p.emptyMs)} (${fmtMs(p.longMs)} ${mark(ok)} / ${fmtMs(p.emptyMs)}; every turn's section drawn at ${fmtMs(p.allMs)}; n=${p.rounds}) | ≤ 1 s |`,
    );
  }
  if (r.servedPage) {
    const p = r.servedPage;
    say(
      `| the same, served by \`nudge web\` (a ${p.turns.toLocaleString("en")}-turn session the stand-in recorded): interactive ÷ a one-turn session's page | ${fmtRatio(p.longMs / p.shortMs)} (${fmtMs(p.longMs)} ${mark(p.longMs <= 1000)} / ${fmtMs(p.shortMs)}; n=${p.rounds}) | ≤ 1 s |`,
    );
  }
}

function manySessionRows(m: ManySessionsResult, say: (line?: string) => void): void {
  const n = `n=${m.rounds}`;
  const run = m.run.many / m.run.one;
  // The stand-in is a node process: its own start (about \`node -e 0\`) is in this figure, not nudge's.
  say(
    `| \`nudge claude run\` (1k files, 1 session) to its first prompt read by claude − \`node -e 0\` (claude's own start) | ${fmtMs(m.run.one - m.node)} ${mark(m.run.one - m.node <= 300)} (${fmtMs(m.run.one)} − ${fmtMs(m.node)}, ${n}) | claude started ≤ 300 ms after nudge |`,
  );
  say(
    `| \`nudge claude run\` to its first prompt, ${m.many.toLocaleString("en")} sessions in the store ÷ 1 session | ${fmtRatio(run)} ${mark(run <= 1.5)} (${fmtMs(m.run.many)} / ${fmtMs(m.run.one)}, ${n}) | ≤ 1.5× |`,
  );
  const rewind = m.rewind.many / m.rewind.one;
  say(
    `| \`nudge session rewind\` (1k files, one turn back and forth), ${m.many.toLocaleString("en")} sessions in the store ÷ 1 session | ${fmtRatio(rewind)} ${mark(rewind <= 1.1)} (${fmtMs(m.rewind.many)} / ${fmtMs(m.rewind.one)}, ${n}) | ≤ 1.1× (flat) |`,
  );
  for (const l of m.list) {
    const page = l.page / m.node;
    const goal = l.sessions === m.many;
    say(
      `| \`nudge session list\` (first screen), ${l.sessions.toLocaleString("en")} session${l.sessions === 1 ? "" : "s"} ÷ \`node -e 0\` | ${fmtRatio(page)}${goal ? ` ${mark(page <= 2)}` : ""} (${fmtMs(l.page)} / ${fmtMs(m.node)}, ${n}) | ${goal ? "≤ 2×" : ""} |`,
    );
  }
  const [first, , last] = m.list;
  if (first && last) {
    // Linear at most: what the sessions add at 5,000 is no more than 5,000 times what one adds.
    const added = (last.allJson - first.allJson) / (m.many - 1);
    const perSession = m.list.map((l) => `${l.sessions.toLocaleString("en")}: ${fmtMs(l.allJson)}`).join(", ");
    say(
      `| \`nudge session list --all --json\`, added per session | ${added.toFixed(3)} ms (${perSession}; ${n}) | linear |`,
    );
  }
}

function searchRows(s: SearchBenchResult, say: (line?: string) => void): void {
  const corpus = `${s.shape.sessions.toLocaleString("en")} sessions, ${fmtBytes(s.recordingBytes)} of recordings`;
  for (const q of s.queries) {
    const warm = q.warmMs / q.grepWarmMs;
    const cold =
      q.coldMs !== null && q.grepColdMs !== null
        ? `; cold ${fmtRatio(q.coldMs / q.grepColdMs)} (${fmtMs(q.coldMs)} / ${fmtMs(q.grepColdMs)})`
        : "; cold: page cache could not be dropped";
    const inProcess = q.inProcessMs / q.grepWarmMs;
    const aboveFloor = q.warmMs - q.floorMs;
    say(
      `| \`session search\` ${q.label} (${q.hits} hits shown) over ${corpus}: warm, whole process − the floor (node + loading the command) | +${fmtMs(aboveFloor)} ${mark(aboveFloor <= 40)} (${fmtMs(q.warmMs)} − ${fmtMs(q.floorMs)}; \`grep -rFi\` over the bundles ${fmtMs(q.grepWarmMs)}, ${fmtRatio(warm)}, n=${s.rounds})${cold}; in-process ${fmtRatio(inProcess)} of grep ${mark(inProcess <= 0.05)} (${fmtMs(q.inProcessMs)}) | ≤ +40 ms; in-process ≤ 0.05× grep |`,
    );
  }
  say(
    `| search index: built from nothing in the background (from the first search to one that says nothing is left) / one saved turn's update, median / p99 (n=${s.update.samples}) | ${fmtMs(s.buildMs)} / ${fmtMs(s.update.median)} / ${fmtMs(s.update.p99)} | off the between-turn path |`,
  );
  say(
    `| \`session search\` while the first build runs: answer time from the part indexed, with the progress line, median / max (n=${s.meanwhile.samples}) | ${fmtMs(s.meanwhile.median)} / ${fmtMs(s.meanwhile.max)} | never blocked by the build |`,
  );
  say(
    `| search index size ÷ recordings | ${fmtRatio(s.indexBytes / s.recordingBytes)} (${fmtBytes(s.indexBytes)} / ${fmtBytes(s.recordingBytes)}) | |`,
  );
}

function webRows(w: WebBenchResult, say: (line?: string) => void): void {
  const ok = w.event.median <= 200 && w.event.p99 <= 1000;
  say(
    `| \`nudge web\`: a line appended to conversation.jsonl → the SSE \`turn\` event at a client, median / p99 | ${fmtMs(w.event.median)} ${mark(ok)} / ${fmtMs(w.event.p99)} (→ the turn's view fetched after it: ${fmtMs(w.fetched.median)} / ${fmtMs(w.fetched.p99)}; n=${w.samples}) | ≤ 200 ms / ≤ 1 s |`,
  );
  say(
    `| \`nudge web\` start-up to its first answer ÷ \`node -e 0\` | ${fmtRatio(w.start.web / w.start.node)} (${fmtMs(w.start.web)} / ${fmtMs(w.start.node)}, n=${w.start.rounds}) | |`,
  );
  say(
    `| \`nudge web\` RSS with ${w.rss.clients} event streams on ${w.rss.watches} sessions growing every 20 ms | ${w.rss.liveMB.toFixed(1)} MB (idle, after the first page: ${w.rss.idleMB.toFixed(1)} MB) | |`,
  );
}

/**
 * Added median = median through nudge − median straight from the stand-in. Percentiles do not
 * subtract, so the p99 checked is the whole path's through nudge (an upper bound of what nudge adds).
 */
function latencyRow(
  say: (line?: string) => void,
  label: string,
  x: { nudge: LatencyFigures; direct: LatencyFigures },
): void {
  const added = x.nudge.median - x.direct.median;
  say(
    `| latency per line, ${label}: added median / p99 through nudge | ${added.toFixed(2)} ms ${mark(added <= 0.5)} / ${x.nudge.p99.toFixed(2)} ms ${mark(x.nudge.p99 <= 5)} (through nudge ${x.nudge.median.toFixed(2)} / ${x.nudge.p99.toFixed(2)} ms; straight from claude ${x.direct.median.toFixed(2)} / ${x.direct.p99.toFixed(2)} ms; n=${x.nudge.lines}) | ≤ 0.5 / ≤ 5 ms |`,
  );
}

function details(r: BenchResults, say: (line?: string) => void): void {
  say("");
  say("## Details (not for bench/results)");
  say("");
  say(`- CLI measured: ${CLI}`);
  say(
    `- load average (1, 5, 15 min) before / after: ${r.loadBefore.map((l) => l.toFixed(1)).join(" ")} / ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}; the run took ${((Date.now() - r.started) / 60_000).toFixed(1)} min`,
  );
  say(`- NODE_EXTRA_CA_CERTS=${process.env.NODE_EXTRA_CA_CERTS ?? "(unset)"}`);
  const all = [...r.between.values(), ...(r.binaries ? [r.binaries] : [])];
  if (all.length)
    say(
      `- nudge's untracked-cache verdict per repository: ${all.map((b) => `${kFiles(b.shape.files)}${b.shape.untrackedBinaryMB ? "+binaries" : ""} ${b.untrackedCache}`).join(", ")}`,
    );
  for (const b of r.profile ? all : []) {
    say("");
    say(
      `### One traced between-turn, ${b.shape.files.toLocaleString("en")} files${b.shape.untrackedBinaryMB ? " + untracked binaries" : ""} (GIT_TRACE2_EVENT: start after the result, duration)`,
    );
    say("```");
    for (const line of b.traceOfOneTurn) say(line);
    say("```");
  }
  if (r.profile) {
    const p = r.profile;
    say("");
    say(
      `### Profile, ${p.files.toLocaleString("en")} files: each between-turn's git processes, and nudge's own time in those windows (node --cpu-prof)`,
    );
    say("```");
    for (const t of p.turns) {
      say(`turn ${t.k}: result → prompt ${t.ms.toFixed(1)} ms (traced and profiled)`);
      for (const line of t.git) say(line);
    }
    say("");
    say(
      `nudge's main thread over those ${p.turns.length} windows (${p.cpu.totalMs.toFixed(0)} ms of samples), self time by kind:`,
    );
    for (const k of p.cpu.byKind.slice(0, 14)) say(`  ${k.ms.toFixed(1).padStart(7)} ms  ${k.name}`);
    say("busiest functions (self time):");
    for (const f of p.cpu.topFunctions) say(`  ${f.ms.toFixed(1).padStart(7)} ms  ${f.name}`);
    say("```");
  }
  const parts = (s: StoreSizes) =>
    `snapshot objects and refs ${fmtBytes(s.git)}, private index ${fmtBytes(s.privateIndex)}; bundle: ${Object.entries(
      s.bundle,
    )
      .map(([k, v]) => `${k} ${fmtBytes(v)}`)
      .join(", ")}`;
  if (r.long) {
    say("");
    say(`### Long session`);
    say(
      `- between turns ${fmtMs(r.long.early.betweenMs)} → ${fmtMs(r.long.late.betweenMs)}; git status ${fmtMs(r.long.early.statusMs)} → ${fmtMs(r.long.late.statusMs)}`,
    );
    say(
      `- storage per turn, turns ${r.long.turns - r.long.storageTurns + 1}–${r.long.turns}: ${parts(r.long.nudge)}; git's own commit of the same change ${fmtBytes(r.long.twinGit)}`,
    );
  }
  if (r.binaryTurn)
    say(`- the 50 MB binary turn: ${parts(r.binaryTurn.nudge)}; git's commit ${fmtBytes(r.binaryTurn.twinGit)}`);
}

/**
 * Puts the table (the report's lines from one bench marker to the other) in place of the marked
 * block of `file`, bench/results/README.md, written beside it and renamed over it so a failed
 * write leaves the old table whole. The hand-written notes around the markers are kept.
 */
export function writeTable(lines: string[], file: string): void {
  const start = "<!-- bench:start -->";
  const end = "<!-- bench:end -->";
  const table = lines.slice(lines.indexOf(start), lines.indexOf(end) + 1).join("\n");
  const old = readFileSync(file, "utf8");
  const from = old.indexOf(start);
  const to = old.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${file} has no ${start} … ${end} block to replace`);
  writeFileSync(`${file}.tmp`, old.slice(0, from) + table + old.slice(to + end.length));
  renameSync(`${file}.tmp`, file);
}
