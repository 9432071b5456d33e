/**
 * Big content: a session whose one turn Writes a file of `mb` MB (the real claude, the scripted
 * API on loopback), and what reading it costs, against the same session with a 1 KB Write:
 * - `nudge web`'s peak RSS (VmHWM) over the turn's view, its "Show all" (?full=1) and the whole
 *   tool input downloaded, and how long another request waits meanwhile (pinged every 20 ms);
 * - the peak RSS of `session show`, `replay -v` (piped), `export`, `search` and `import` of that
 *   export into a clone (/usr/bin/time), each against the same command on the 1 KB Write's session.
 */
import { execa } from "execa";
import { readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { CLAUDE_BIN, claudeEnv } from "../test/support/claude-env.js";
import { startScriptedApi } from "../test/support/scripted-api.js";
import { generateRepo, git, scratchDir } from "./repo.js";
import { CLI } from "./session.js";
import { msSince, nowNs, progress, sleep } from "./stats.js";
import { startServer, stopServer, type Server } from "./web-bench.js";

interface Fetched {
  ms: number;
  bytes: number;
}

export interface BigContentSide {
  mb: number;
  web: {
    idleMB: number;
    peakMB: number;
    afterMB: number;
    view: Fetched;
    full: Fetched;
    whole: Fetched | null;
    pingIdleMs: number;
    pingWorstMs: number;
    pingWorstBy: Record<string, number>;
  };
  cli: Array<{ command: string; peakMB: number; ms: number; exitCode: number }>;
}

export interface BigContentResult {
  big: BigContentSide;
  small: BigContentSide;
}

/** `cli` false: `nudge web` only. */
export async function bigContentBench(mb = 50, o: { cli?: boolean } = {}): Promise<BigContentResult> {
  return { small: await measure(0.001, o.cli ?? true), big: await measure(mb, o.cli ?? true) };
}

async function measure(mb: number, cli: boolean): Promise<BigContentSide> {
  progress(
    `big content: a session that Writes ${mb >= 1 ? `${mb} MB` : "1 KB"} (the real claude), read by nudge web${cli ? " and the CLI" : ""}`,
  );
  const { repo, id } = await recordWrite(mb);
  return { mb, web: await webSide(repo, id), cli: cli ? await cliSide(repo, id) : [] };
}

export async function recordWrite(mb: number): Promise<{ repo: string; id: string }> {
  const repo = await generateRepo({ files: 100 });
  const line = "0123456789 the quick brown fox jumps over the lazy dog, a line of a big generated file\n";
  const content = line.repeat(Math.max(1, Math.ceil((mb * 1024 * 1024) / line.length)));
  const api = await startScriptedApi([
    { tool: "Write", input: { file_path: path.join(repo, "big.txt"), content } },
    { text: "wrote it" },
  ]);
  try {
    const run = await execa(
      "node",
      [CLI, "claude", "run", "--claude-bin", CLAUDE_BIN, "--permission-mode", "acceptEdits", "--allowed-tools", "Bash"],
      {
        cwd: repo,
        env: { NO_COLOR: "1", ...claudeEnv(api, path.join(scratchDir("claude-config"), "claude")) },
        input: "write the big file\n",
        reject: false,
        timeout: 600_000,
      },
    );
    const id = /session (\w+):/.exec(run.stderr)?.[1];
    if (!id) throw new Error(`the big session was not recorded: ${run.stderr.slice(-500)}`);
    return { repo, id };
  } finally {
    await api.close();
  }
}

const status = (pid: number, field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

function fetchPath(s: Server, p: string): Promise<Fetched & { body: Buffer }> {
  const t0 = nowNs();
  return new Promise((resolve, reject) => {
    http
      .get(
        { host: "127.0.0.1", port: s.port, path: p, headers: { host: `127.0.0.1:${s.port}`, cookie: s.cookie } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const body = Buffer.concat(chunks);
            if (res.statusCode !== 200)
              reject(new Error(`${p}: HTTP ${res.statusCode} ${body.toString().slice(0, 300)}`));
            else resolve({ ms: msSince(t0), bytes: body.length, body });
          });
        },
      )
      .on("error", reject);
  });
}

async function webSide(repo: string, id: string): Promise<BigContentSide["web"]> {
  const server = await startServer(repo);
  try {
    const pid = server.child.pid!;
    await fetchPath(server, "/api/sessions");
    const pings: number[] = [];
    for (let i = 0; i < 10; i++) pings.push((await fetchPath(server, "/api/sessions")).ms);
    const pingIdleMs = pings.sort((a, b) => a - b)[5]!;
    const idleMB = status(pid, "VmRSS");
    // Another reader's requests, every 20 ms, while the big ones are served.
    let pinging = true;
    let pingWorstMs = 0;
    const worst: Record<string, number> = {};
    const pinger = (async () => {
      while (pinging) {
        pingWorstMs = Math.max(pingWorstMs, (await fetchPath(server, "/api/sessions")).ms);
        await sleep(20);
      }
    })();
    const phase = async <T>(name: string, run: () => Promise<T>) => {
      pingWorstMs = 0;
      const value = await run();
      worst[name] = pingWorstMs;
      return value;
    };
    const view = await phase("view", () => fetchPath(server, `/api/sessions/${id}/turns/1`));
    const full = await phase("full", () => fetchPath(server, `/api/sessions/${id}/turns/1?full=1`));
    const input = (
      JSON.parse(view.body.toString()) as {
        entries: Array<{ kind: string; input?: { whole?: { byte: number; bytes: number } } }>;
      }
    ).entries.find((e) => e.kind === "tool")?.input?.whole;
    const whole = input
      ? await phase("whole", () => fetchPath(server, `/api/sessions/${id}/raw?at=${input.byte}&bytes=${input.bytes}`))
      : null;
    pinging = false;
    await pinger;
    const peakMB = status(pid, "VmHWM");
    await sleep(500);
    const strip = (f: Fetched & { body: Buffer }): Fetched => ({ ms: f.ms, bytes: f.bytes });
    return {
      idleMB,
      peakMB,
      afterMB: status(pid, "VmRSS"),
      view: strip(view),
      full: strip(full),
      whole: whole && strip(whole),
      pingIdleMs,
      pingWorstMs: Math.max(...Object.values(worst)),
      pingWorstBy: worst,
    };
  } finally {
    await stopServer(server);
  }
}

async function cliSide(repo: string, id: string): Promise<BigContentSide["cli"]> {
  const archive = path.join(scratchDir("big-export"), "x.tar.gz");
  const clone = path.join(scratchDir("big-import"), "clone");
  const runs: Array<{ args: string[]; cwd: string; env?: Record<string, string> }> = [
    { args: ["session", "show", id], cwd: repo },
    { args: ["session", "replay", id, "-v"], cwd: repo },
    { args: ["session", "export", id, "-o", archive], cwd: repo },
    { args: ["session", "search", "quick"], cwd: repo },
    // The export holds the Write's content five times over: past the 50× an import unpacks unasked.
    {
      args: ["session", "import", archive, "--max-size", "1GiB"],
      cwd: clone,
      env: { CLAUDE_CONFIG_DIR: scratchDir("big-import-claude") },
    },
  ];
  await git(path.dirname(clone), "clone", "-q", repo, clone);
  const out: BigContentSide["cli"] = [];
  for (const run of runs) {
    const t0 = nowNs();
    // Stopped after 3 minutes, should one ever take that long: its peak so far.
    const done = await execa("/usr/bin/time", ["-f", "%M", "timeout", "180", "node", CLI, ...run.args], {
      cwd: run.cwd,
      reject: false,
      timeout: 600_000,
      env: { NO_COLOR: "1", ...run.env },
      stdout: "ignore",
    });
    const peakKB = Number(/(\d+)\s*$/.exec(done.stderr)?.[1] ?? NaN);
    out.push({
      command: run.args.slice(0, 2).join(" ") + (run.args.includes("-v") ? " -v" : ""),
      peakMB: peakKB / 1024,
      ms: msSince(t0),
      exitCode: done.exitCode ?? -1,
    });
  }
  return out;
}

/** The bench's rows: the big session's figures ÷ the small one's, and its own. */
export function bigContentRows(r: BigContentResult, say: (line?: string) => void): void {
  const { big, small } = r;
  const mb = (x: number) => `${x.toFixed(0)} MB`;
  const size = (b: number) => (b >= 1 << 20 ? `${(b / (1 << 20)).toFixed(1)} MB` : `${(b / 1024).toFixed(1)} KB`);
  const ms = (x: number) => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(0)} ms`);
  const ok = (pass: boolean) => (pass ? "✓" : "✗");
  const w = big.web;
  say(
    `| \`nudge web\` peak RSS, a ${big.mb} MB Write's turn viewed, "Show all", its input downloaded ÷ a 1 KB Write's | ${(w.peakMB / small.web.peakMB).toFixed(2)}× ${ok(w.peakMB <= 250)} (${mb(w.peakMB)} / ${mb(small.web.peakMB)}; idle ${mb(w.idleMB)}, after ${mb(w.afterMB)}) | ≤ 250 MB |`,
  );
  say(
    `| … the turn's view / "Show all" / the whole input downloaded | ${ms(w.view.ms)}, ${size(w.view.bytes)} / ${ms(w.full.ms)}, ${size(w.full.bytes)} / ${w.whole ? `${ms(w.whole.ms)}, ${size(w.whole.bytes)}` : "no download offered"} | |`,
  );
  const by = Object.entries(w.pingWorstBy)
    .map(([k, v]) => `${k} ${ms(v)}`)
    .join(", ");
  say(
    `| … another request meanwhile, worst ÷ idle | ${(w.pingWorstMs / w.pingIdleMs).toFixed(1)}× (${ms(w.pingWorstMs)} / ${ms(w.pingIdleMs)}; worst during ${by}) | unaffected |`,
  );
  for (const c of big.cli) {
    const base = small.cli.find((s) => s.command === c.command)!;
    say(
      `| \`nudge ${c.command}\` peak RSS, the ${big.mb} MB Write's session ÷ the 1 KB one's | ${(c.peakMB / base.peakMB).toFixed(2)}× ${ok(c.peakMB <= 250)} (${mb(c.peakMB)} / ${mb(base.peakMB)}; ${ms(c.ms)}${c.exitCode === 0 ? "" : c.exitCode === 124 ? ", stopped after 3 min" : `, exit ${c.exitCode}`}) | ≤ 250 MB |`,
    );
  }
}
