/**
 * `npm run bench`: nudge's performance goals (issue 9), each a ratio against git (or node) on the
 * same repository in the same run, measured through the real built CLI driving a stand-in claude.
 * Prints a markdown table for the README (between the bench markers), then details that explain
 * it (traces, a profile, storage by part). Progress goes to stderr.
 *
 *   npm run bench                      1k, 10k and 100k files
 *   npm run bench -- 1000 10000        fewer sizes (the long session and the binaries need 10k)
 *   npm run bench -- --long-turns=200  a shorter long session (for trying the bench out)
 *   BENCH_CLI=other/dist/cli.js npm run bench   measure another build
 */
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import os from "node:os";
import { betweenTurns, profileBetweenTurns, type BetweenResult } from "./between-turns.js";
import { cliStart, longSessionListing } from "./cli-start.js";
import { binaryTurnStorage, longSession } from "./long-session.js";
import { recorderBench } from "./recorder.js";
import { scratchRoot } from "./repo.js";
import { rewindBench, type RewindResult } from "./rewind.js";
import { CLI } from "./session.js";
import { fmtBytes, fmtMs, fmtRatio, progress } from "./stats.js";

const args = process.argv.slice(2);
const sizes = args.filter((a) => /^\d+$/.test(a)).map(Number);
const fileCounts = sizes.length ? sizes.sort((a, b) => a - b) : [1_000, 10_000, 100_000];
const longTurns = Number(args.find((a) => a.startsWith("--long-turns="))?.split("=")[1] ?? 1000);
const keep = args.includes("--keep");
const started = Date.now();
const loadBefore = os.loadavg();

/** Turns measured per size (after two warm-up turns): fewer where each costs more. */
const TURNS: Record<number, number> = { 1_000: 16, 10_000: 16, 100_000: 10 };
const turnsFor = (files: number) => TURNS[files] ?? (files > 50_000 ? 10 : 16);

try {
  const between = new Map<number, BetweenResult>();
  for (const files of fileCounts) between.set(files, await betweenTurns({ files }, turnsFor(files)));
  const binaries = fileCounts.includes(10_000) ? await betweenTurns({ files: 10_000, untrackedBinaryMB: 90 }, 10) : null;
  const largest = between.get(fileCounts.at(-1)!)!;
  progress(`profile: one traced, CPU-profiled session at ${largest.shape.files.toLocaleString("en")} files`);
  const profile = await profileBetweenTurns(largest.repo, 3);
  const rewinds = new Map<number, RewindResult>();
  for (const files of fileCounts.filter((f) => f >= 10_000)) {
    const b = between.get(files)!;
    rewinds.set(files, await rewindBench(b.shape, b.repo, b.session, files >= 100_000 ? 6 : 8));
  }
  const long = fileCounts.includes(10_000) ? await longSession(10_000, longTurns) : null;
  const listing = long ? await longSessionListing(long.repo, long.id, long.turns, 10) : null;
  const binaryTurn = await binaryTurnStorage();
  const smallest = between.get(fileCounts[0]!)!;
  const start = await cliStart(smallest.repo, 20, 12);
  const recorder = await recorderBench(smallest.repo, 256);

  // ---------------------------------------------------------------- the table
  const out: string[] = [];
  const say = (line = "") => out.push(line);
  const mark = (ok: boolean) => (ok ? "✓" : "✗");
  const gitVersion = execFileSync("git", ["--version"]).toString().trim().replace(/^git version /, "");
  const cpu = os.cpus()[0]?.model.trim() ?? "unknown CPU";
  say("<!-- bench:start -->");
  say(`Measured ${new Date().toISOString().slice(0, 10)} on Linux, ${os.cpus().length} cores (${cpu}), git ${gitVersion}, node ${process.version}, with \`npm run bench${args.length ? ` -- ${args.join(" ")}` : ""}\`.`);
  say("Medians of alternating runs (n = how many); every ratio is against git (or node) on the same repository in the same run, with both medians beside it.");
  say("Between turns: the time from claude's `result` line to the next prompt reaching claude, through `nudge claude run` (prompts queued on stdin) driving a stand-in claude; each turn edits one file, adds one and adds ~40 KB to claude's transcript.");
  say("");
  const cols = fileCounts.map((f) => `${f >= 1000 ? `${f / 1000}k` : f} files`);
  say(`| | ${cols.join(" | ")} | goal |`);
  say(`|---|${cols.map(() => "---:").join("|")}|---|`);
  const row = (label: string, cell: (files: number) => string, goal: string) => say(`| ${label} | ${fileCounts.map(cell).join(" | ")} | ${goal} |`);
  const betweenGoal = (files: number, r: number) => (files >= 100_000 ? ` ${mark(r <= 1.0)}` : files === 10_000 ? ` ${mark(r <= 1.3)}` : "");
  row(
    "between turns ÷ `git status --porcelain -uall`",
    (f) => {
      const b = between.get(f)!;
      return `${fmtRatio(b.ratio)}${betweenGoal(f, b.ratio)} (${fmtMs(b.betweenMs)} / ${fmtMs(b.statusMs)}, n=${b.runs})`;
    },
    "≤ 1.0× at 100k, ≤ 1.3× at 10k",
  );
  row(
    "git processes nudge started between result and prompt (median)",
    (f) => {
      const g = between.get(f)!.gitProcesses;
      return `${g.median}${f === 1_000 ? ` ${mark(g.median <= 3)}` : ""} (${g.min}–${g.max}, n=${g.turns})`;
    },
    "≤ 3 at 1k",
  );
  if (binaries) {
    row("same, with 90 MB of untracked binaries ÷ `git status`", (f) => (f === 10_000 ? `${fmtRatio(binaries.ratio)} (${fmtMs(binaries.betweenMs)} / ${fmtMs(binaries.statusMs)}, n=${binaries.runs})` : ""), "as without them");
  }
  row(
    "`session rewind` ÷ `git checkout` of the same change (whole processes)",
    (f) => {
      const r = rewinds.get(f);
      if (!r) return "";
      const ratio = r.rewindMs / r.checkoutMs;
      return `${fmtRatio(ratio)} ${mark(ratio <= (f >= 100_000 ? 1.5 : 2))} (${fmtMs(r.rewindMs)} / ${fmtMs(r.checkoutMs)}, n=${r.rounds})`;
    },
    "≤ 2× at 10k, ≤ 1.5× at 100k",
  );
  row(
    "floor: `node -e 0` ÷ `git checkout`",
    (f) => {
      const r = rewinds.get(f);
      return r ? `${fmtRatio(r.nodeMs / r.checkoutMs)} (${fmtMs(r.nodeMs)} / ${fmtMs(r.checkoutMs)})` : "";
    },
    "what a Node CLI can reach",
  );
  say("");
  say("| | measured | goal |");
  say("|---|---:|---|");
  if (long) {
    const r = long.late.betweenMs / long.early.betweenMs;
    const s = long.late.statusMs / long.early.statusMs;
    say(`| ${long.turns.toLocaleString("en")}-turn session, 10k files: between turns at turns ${long.late.from}–${long.late.to} ÷ at ${long.early.from}–${long.early.to} | ${fmtRatio(r)} ${mark(r <= 1.1)} (${fmtMs(long.late.betweenMs)} / ${fmtMs(long.early.betweenMs)}, n=${long.late.to - long.late.from + 1}; \`git status\` ${fmtRatio(s)} over the same turns) | ≤ 1.1× |`);
    const code = long.nudge.git + long.nudge.privateIndex + long.nudge.bundle.patches;
    say(`| storage per turn, code (.git + private index + patches) ÷ \`git commit\` of the same change, turns ${long.turns - long.storageTurns + 1}–${long.turns} | ${fmtRatio(code / long.twinGit)} ${mark(code <= long.twinGit)} (${fmtBytes(code)} / ${fmtBytes(long.twinGit)}) | ≤ 1× |`);
    const convo = long.nudge.bundle.transcriptCopy + long.nudge.bundle.stream + long.nudge.bundle.input + long.nudge.bundle.journal + long.nudge.bundle.other;
    say(`| storage per turn, conversation (transcript copy, stream, input, turn records) ÷ claude's own transcript growth | ${fmtRatio(convo / 40_960)} (${fmtBytes(convo)} / 40.0 KB) | |`);
  }
  const binCode = binaryTurn.nudge.git + binaryTurn.nudge.privateIndex + binaryTurn.nudge.bundle.patches;
  say(`| storage of a turn changing one byte of a 50 MB binary, code ÷ \`git commit\` | ${fmtRatio(binCode / binaryTurn.twinGit)} ${mark(binCode <= binaryTurn.twinGit)} (${fmtBytes(binCode)} / ${fmtBytes(binaryTurn.twinGit)}) | ≤ 1× |`);
  const startRow = (label: string, ms: number, node: number, bare: number, bareNode: number) =>
    say(`| ${label} ÷ \`node -e 0\` | ${fmtRatio(ms / node)} ${mark(ms / node <= 2)} (${fmtMs(ms)} / ${fmtMs(node)}); without NODE_EXTRA_CA_CERTS ${fmtRatio(bare / bareNode)} (${fmtMs(bare)} / ${fmtMs(bareNode)}), n=${start.rounds} | ≤ 2× |`);
  startRow("`nudge --version`", start.withCerts.version, start.withCerts.node, start.withoutCerts.version, start.withoutCerts.node);
  startRow(`\`nudge session list\` (${start.sessions} sessions)`, start.withCerts.list, start.withCerts.node, start.withoutCerts.list, start.withoutCerts.node);
  if (listing) {
    const l = listing.list.long / listing.list.short;
    const s = listing.show.long / listing.show.short;
    say(`| \`session list\` of a ${listing.longTurns.toLocaleString("en")}-turn session ÷ of a 1-turn one | ${fmtRatio(l)} ${mark(l <= 1.1)} (${fmtMs(listing.list.long)} / ${fmtMs(listing.list.short)}, n=${listing.rounds}) | ≤ 1.1× |`);
    say(`| \`session show\` of a ${listing.longTurns.toLocaleString("en")}-turn session ÷ of a 1-turn one | ${fmtRatio(s)} ${mark(s <= 1.1)} (${fmtMs(listing.show.long)} / ${fmtMs(listing.show.short)}, n=${listing.rounds}) | ≤ 1.1× |`);
  }
  say(`| recorder throughput, ${recorder.streamMB.toFixed(0)} MB of NDJSON through \`nudge claude run\` | ${recorder.mbPerSecond.toFixed(0)} MB/s ${mark(recorder.mbPerSecond >= 300)} (recording path alone, in-process: ${recorder.inProcessMbPerSecond.toFixed(0)} MB/s) | ≥ 300 MB/s |`);
  const lat = (label: string, x: RecorderLatency) => {
    const m = x.nudge.median - x.direct.median;
    const p = x.nudge.p99 - x.direct.p99;
    say(`| latency nudge adds per line, ${label}: median / p99 | ${m.toFixed(2)} ${mark(m <= 0.5)} / ${p.toFixed(2)} ms ${mark(p <= 5)} (through nudge ${x.nudge.median.toFixed(2)} / ${x.nudge.p99.toFixed(2)} ms, straight from claude ${x.direct.median.toFixed(2)} / ${x.direct.p99.toFixed(2)} ms, n=${x.nudge.lines}) | ≤ 0.5 / ≤ 5 ms |`);
  };
  type RecorderLatency = typeof recorder.idle;
  lat("a line every 2 ms", recorder.idle);
  lat("each line followed by a 64 KB tool result", recorder.loaded);
  say("<!-- bench:end -->");

  // ---------------------------------------------------------------- details, not for the README
  say("");
  say("## Details (not for the README)");
  say("");
  say(`- CLI measured: ${CLI}`);
  say(`- load average before / after: ${loadBefore.map((l) => l.toFixed(1)).join(" ")} / ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}; run took ${((Date.now() - started) / 60_000).toFixed(1)} min`);
  say(`- NODE_EXTRA_CA_CERTS=${start.certs ?? "(unset)"}`);
  say(`- untracked cache verdict per repository: ${[...between.values(), ...(binaries ? [binaries] : [])].map((b) => `${b.shape.files}${b.shape.untrackedBinaryMB ? "+bin" : ""}: ${b.untrackedCache}`).join(", ")}`);
  for (const b of [...between.values(), ...(binaries ? [binaries] : [])]) {
    say("");
    say(`### One traced between-turn, ${b.shape.files.toLocaleString("en")} files${b.shape.untrackedBinaryMB ? " + untracked binaries" : ""} (GIT_TRACE2_EVENT; start after the result, duration)`);
    say("```");
    for (const line of b.traceOfOneTurn) say(line);
    say("```");
  }
  say("");
  say(`### Profile, ${largest.shape.files.toLocaleString("en")} files: git processes of each between-turn, and nudge's own time in those windows (node --cpu-prof)`);
  say("```");
  for (const t of profile.turns) {
    say(`turn ${t.k}: result → prompt ${t.ms.toFixed(1)} ms (traced and profiled)`);
    for (const line of t.git) say(line);
  }
  say("");
  say(`nudge's main thread over those ${profile.turns.length} windows (${profile.cpu.totalMs.toFixed(0)} ms of samples):`);
  for (const k of profile.cpu.byKind.slice(0, 14)) say(`  ${k.ms.toFixed(1).padStart(7)} ms  ${k.name}`);
  say("busiest functions (self time):");
  for (const f of profile.cpu.topFunctions) say(`  ${f.ms.toFixed(1).padStart(7)} ms  ${f.name}`);
  say("```");
  if (long) {
    say("");
    say(`### Storage per turn, turns ${long.turns - long.storageTurns + 1}–${long.turns} of the long session`);
    say(`- .git (snapshot objects, refs): ${fmtBytes(long.nudge.git)}; private index: ${fmtBytes(long.nudge.privateIndex)}; git's own commit of the same change: ${fmtBytes(long.twinGit)}`);
    say(`- bundle: ${Object.entries(long.nudge.bundle).map(([k, v]) => `${k} ${fmtBytes(v)}`).join(", ")}`);
  }
  say("");
  say(`### The 50 MB binary turn`);
  say(`- .git ${fmtBytes(binaryTurn.nudge.git)}, private index ${fmtBytes(binaryTurn.nudge.privateIndex)}, bundle: ${Object.entries(binaryTurn.nudge.bundle).map(([k, v]) => `${k} ${fmtBytes(v)}`).join(", ")}; git's commit ${fmtBytes(binaryTurn.twinGit)}`);
  if (long) say(`- long session: between turns ${fmtMs(long.early.betweenMs)} → ${fmtMs(long.late.betweenMs)}, git status ${fmtMs(long.early.statusMs)} → ${fmtMs(long.late.statusMs)}`);
  process.stdout.write(out.join("\n") + "\n");
} finally {
  if (!keep) rmSync(scratchRoot, { recursive: true, force: true });
  else progress(`kept ${scratchRoot}`);
}
