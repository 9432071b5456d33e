/**
 * `npm run bench`: nudge's performance targets, each as a ratio against git on the same repo in
 * the same run (absolute times vary by machine; ratios travel). Pass sizes to run fewer:
 * `npm run bench -- 1000 10000`.
 */
import { snapshotBench } from "./snapshot-bench.js";
import { rewindBench } from "./rewind-bench.js";
import { throughputBench } from "./throughput-bench.js";

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
const fileCounts = sizes.length ? sizes : [1_000, 10_000, 100_000];
const out = (s: string) => process.stdout.write(s + "\n");

out("Per-turn snapshot vs `git status --porcelain -uall` (median of 15 turns, small change per turn; goal ≤ 1.5×)");
out("| files | git status | nudge snapshot | ratio |");
out("|---:|---:|---:|---:|");
for (const files of fileCounts) {
  process.stderr.write(`… generating and measuring a ${files}-file repo\n`);
  const row = await snapshotBench(files, 15);
  out(`| ${files.toLocaleString("en")} | ${row.gitStatusMs.toFixed(1)} ms | ${row.snapshotMs.toFixed(1)} ms | ${row.ratio.toFixed(2)}× |`);
}

out("");
out("Rewind (capture, backup, switch, verify) vs `git checkout` of the same change (median of 10; goal ≤ 2×)");
out("| files | git checkout | nudge rewind | ratio |");
out("|---:|---:|---:|---:|");
for (const files of fileCounts) {
  process.stderr.write(`… rewinding in a ${files}-file repo\n`);
  const row = await rewindBench(files, 10);
  out(`| ${files.toLocaleString("en")} | ${row.gitCheckoutMs.toFixed(1)} ms | ${row.rewindMs.toFixed(1)} ms | ${row.ratio.toFixed(2)}× |`);
}

out("");
out("Recorder throughput on a large NDJSON stream (tee + timing + framing + parse; goal ≥ 50 MB/s)");
const t = throughputBench(256);
out(`| stream | time | throughput |`);
out(`|---:|---:|---:|`);
out(`| ${t.megabytes.toFixed(0)} MB | ${t.seconds.toFixed(2)} s | ${t.mbPerSecond.toFixed(0)} MB/s |`);
