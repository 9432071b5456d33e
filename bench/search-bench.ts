/**
 * `nudge session search` over a store of synthetic sessions (search-corpus.ts), through the built
 * CLI as a user runs it, against `grep -rFi` over the same bundle folders (the baseline: what
 * finding a word in the recordings costs without an index). Warm: the files in the page cache,
 * the index up to date. Cold: the page cache dropped first (when this machine lets the bench do
 * so). Also: building the index from nothing, one saved turn's update (the catch-up a search does
 * for a turn recorded since the last one, with every other session stat'ed), and the index's size.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { openStore, readManifest, writeBundle, bundleDir } from "../src/store/store.js";
import { searchSessions, updateIndex } from "../src/search/search-sessions.js";
import { git, scratchDir } from "./repo.js";
import { makeCorpus, PLANTED, type CorpusShape } from "./search-corpus.js";
import { CLI } from "./session.js";
import { median, msSince, nowNs, percentile, progress, timeProcess } from "./stats.js";

export interface SearchQueryRow {
  label: string;
  args: string[];
  hits: number;
  warmMs: number;
  /** Node start and loading the command (`session search --help`), alternated with the search: what no search can go below. */
  floorMs: number;
  grepWarmMs: number;
  coldMs: number | null;
  grepColdMs: number | null;
  /** The same search in-process (catch-up's stats, the query, the snippets): no node start-up, no module loading. */
  inProcessMs: number;
}

export interface SearchBenchResult {
  shape: CorpusShape;
  recordingBytes: number;
  indexBytes: number;
  /** The first build, in the background: from the first search to a search that says nothing is left. */
  buildMs: number;
  /** Searches while it ran: how long each took to answer, median and max, and how many. */
  meanwhile: { median: number; max: number; samples: number };
  queries: SearchQueryRow[];
  update: { median: number; p99: number; samples: number };
  rounds: number;
  load: number[];
}

/** `reuse`: a folder kept between runs (`--search-dir`): the corpus is written there once; each run builds its index again. */
export async function searchBench(shape: CorpusShape, rounds: number, reuse?: string): Promise<SearchBenchResult> {
  const repo = reuse ? path.resolve(reuse) : scratchDir("search");
  const storeDir = path.join(repo, ".git", "nudge");
  const marker = path.join(repo, "corpus.json");
  let recordingBytes: number;
  if (
    reuse &&
    existsSync(marker) &&
    JSON.stringify(JSON.parse(readFileSync(marker, "utf8")).shape) === JSON.stringify(shape)
  ) {
    progress(`search: reusing the corpus in ${repo} (its index built again)`);
    rmSync(path.join(storeDir, "search"), { recursive: true, force: true });
    recordingBytes = (JSON.parse(readFileSync(marker, "utf8")) as { recordingBytes: number }).recordingBytes;
  } else {
    mkdirSync(repo, { recursive: true });
    await git(repo, "init", "-q", "-b", "main");
    progress(`search: writing ${shape.sessions} sessions × ${shape.turns} turns`);
    ({ recordingBytes } = await makeCorpus(storeDir, repo, shape));
    if (reuse) writeFileSync(marker, JSON.stringify({ shape, recordingBytes }));
  }
  const sessions = path.join(storeDir, "sessions");
  const env = { ...process.env, NO_COLOR: "1" };
  const nudge = (args: string[]) =>
    timeProcess("node", [CLI, "session", "search", ...args], { cwd: repo, env }).catch((e: Error) =>
      /failed/.test(e.message) ? { ms: NaN, stdout: "" } : Promise.reject(e),
    );
  progress(`search: building the index from ${(recordingBytes / 1e6).toFixed(0)} MB of recordings (the first search)`);
  const build = await firstBuild(repo, env);
  const indexBytes = Number(
    execFileSync("du", ["-sb", path.join(storeDir, "search")])
      .toString()
      .split("\t")[0],
  );
  const queries: Array<{ label: string; args: string[]; grep: string }> = [
    { label: "a rare word", args: [PLANTED.rare], grep: PLANTED.rare },
    { label: "a common word", args: ["timeout"], grep: "timeout" },
    { label: "a phrase", args: [`"${PLANTED.phrase.join(" ")}"`], grep: PLANTED.phrase.join(" ") },
    { label: "a CJK word", args: [PLANTED.cjk], grep: PLANTED.cjk },
    { label: "a prefix", args: ["xylophone*"], grep: "xylophone" },
    // A file one turn changed (search-corpus.ts names them src/m<s % 50>/f<(7s + n) % 300>.ts).
    { label: "`--file`", args: ["--file", "src/m7/f52.ts"], grep: "src/m7/f52.ts" },
  ];
  const floor = () => timeProcess("node", [CLI, "session", "search", "--help"], { cwd: repo, env });
  const canDrop = dropCaches();
  const rows: SearchQueryRow[] = [];
  for (const q of queries) {
    progress(`search: ${q.label}`);
    const grep = () =>
      timeProcess("sh", ["-c", `grep -rFi -- "$1" "$2" > /dev/null; test $? -le 1`, "sh", q.grep, sessions]);
    const first = await nudge(["--json", "--limit", "20", ...q.args]);
    const hits = first.stdout ? (JSON.parse(first.stdout) as unknown[]).length : 0;
    const ours: number[] = [];
    const theirs: number[] = [];
    const floors: number[] = [];
    for (let i = 0; i < rounds; i++) {
      ours.push((await nudge(q.args)).ms);
      theirs.push((await grep()).ms);
      floors.push((await floor()).ms);
    }
    let coldMs: number | null = null;
    let grepColdMs: number | null = null;
    if (canDrop) {
      dropCaches();
      coldMs = (await nudge(q.args)).ms;
      dropCaches();
      grepColdMs = (await grep()).ms;
    }
    const store = await openStore(repo);
    const inProcess: number[] = [];
    const file = q.args[0] === "--file" ? q.args[1]! : null;
    // As the terminal's search asks (the whole-process rows run it so): snippets, nothing masked.
    const once = () =>
      searchSessions(store, { query: file ? "" : q.args.join(" "), file, limit: 20, snippetOnly: true });
    await once(); // warm, as the whole-process rows are: the index's pages read, this query's code compiled
    for (let i = 0; i < rounds; i++) {
      const start = nowNs();
      await once();
      inProcess.push(msSince(start));
    }
    rows.push({
      label: q.label,
      args: q.args,
      hits,
      warmMs: median(ours),
      floorMs: median(floors),
      grepWarmMs: median(theirs),
      coldMs,
      grepColdMs,
      inProcessMs: median(inProcess),
    });
  }
  progress("search: one saved turn's index update, per turn, with every other session present");
  const update = await updatePerTurn(repo, shape);
  return {
    shape,
    recordingBytes,
    indexBytes,
    buildMs: build.ms,
    meanwhile: build.meanwhile,
    queries: rows,
    update,
    rounds,
    load: (await import("node:os")).loadavg(),
  };
}

/**
 * The first search starts the index's build in the background and answers at once; searches every
 * half second meanwhile (timed: they answer from the part indexed) until one says nothing is left.
 */
async function firstBuild(
  repo: string,
  env: NodeJS.ProcessEnv,
): Promise<{ ms: number; meanwhile: { median: number; max: number; samples: number } }> {
  const start = nowNs();
  const answers: number[] = [];
  for (;;) {
    const t = nowNs();
    const run = spawnSync("node", [CLI, "session", "search", "--limit", "1", PLANTED.rare], { cwd: repo, env });
    const ms = msSince(t);
    if (!/^indexing \d/m.test(run.stderr.toString())) break;
    answers.push(ms);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const ms = msSince(start);
  // What the search index holds once the background indexer has finished (its merge of segments included).
  while (existsSync(path.join(repo, ".git", "nudge", "search", "claude-indexer.pid")))
    await new Promise((resolve) => setTimeout(resolve, 200));
  return {
    ms,
    meanwhile: { median: median(answers), max: Math.max(0, ...answers), samples: answers.length },
  };
}

/**
 * Sessions that grow a turn at a time: each journal is written back with one turn more (as the
 * recorder saves one), then the index catches up, timed in-process.
 */
async function updatePerTurn(
  repo: string,
  shape: CorpusShape,
): Promise<{ median: number; p99: number; samples: number }> {
  const store = await openStore(repo);
  const count = Math.min(20, shape.sessions);
  const growing = Array.from(
    { length: count },
    (_, i) => `b${String(Math.floor((i * shape.sessions) / count)).padStart(9, "0")}`,
  );
  const full = new Map<string, Awaited<ReturnType<typeof readManifest>>>();
  for (const id of growing) {
    const m = await readManifest(bundleDir(store, id));
    full.set(id, m);
    await writeBundle(bundleDir(store, id), { ...m, turns: m.turns.slice(0, 1), summary: { ...m.summary, turns: 0 } });
  }
  await updateIndex(store); // drops their turns: they start again from none
  const samples: number[] = [];
  for (let n = 1; n <= shape.turns; n++) {
    for (const id of growing) {
      const m = full.get(id)!;
      await writeBundle(bundleDir(store, id), {
        ...m,
        turns: m.turns.slice(0, n + 1),
        summary: { ...m.summary, turns: n },
      });
      const start = nowNs();
      const report = await updateIndex(store);
      samples.push(msSince(start));
      if (report.turns !== 1) throw new Error(`expected one turn indexed, got ${report.turns}`);
    }
  }
  return { median: median(samples), p99: percentile(samples, 99), samples: samples.length };
}

/** Drop the page cache (root on Linux); false where the machine does not allow it. */
function dropCaches(): boolean {
  try {
    execFileSync("sync");
    if (!existsSync("/proc/sys/vm/drop_caches")) return false;
    writeFileSync("/proc/sys/vm/drop_caches", "3\n");
    return true;
  } catch {
    return false;
  }
}
