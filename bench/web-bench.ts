/**
 * `nudge web`, as a real server process (the built CLI) on sessions the stand-in recorded:
 * - SSE delay: a line appended to a session's conversation.jsonl (as the recorder appends claude's
 *   lines) → the `turn` event read by a client of the session's stream; and → the turn's view
 *   fetched after it (what the page does before it draws);
 * - start-up: spawning `nudge web` → its first answer, against `node -e 0`;
 * - memory: the server's RSS idle, then with 10 streams open on 10 sessions that grow every 20 ms.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { generateRepo } from "./repo.js";
import { CLI, prompts, runSession } from "./session.js";
import { alternate, median, msSince, nowNs, percentile, progress, sleep, timeProcess } from "./stats.js";

export interface WebBenchResult {
  samples: number;
  /** ms from the append to the event; to the turn view fetched. */
  event: { median: number; p99: number };
  fetched: { median: number; p99: number };
  start: { rounds: number; web: number; node: number };
  rss: { idleMB: number; clients: number; liveMB: number; watches: number };
}

export interface Server {
  child: ChildProcess;
  port: number;
  cookie: string;
  url: string;
}

export async function startServer(repo: string, env: NodeJS.ProcessEnv = process.env): Promise<Server> {
  const child = spawn(process.execPath, [CLI, "web", "--no-open", "--port", "0"], {
    cwd: repo,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /^nudge web: (\S+)$/m.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on("exit", (code) => reject(new Error(`nudge web exited ${code}`)));
  });
  const u = new URL(url);
  // The cookie the page gets, named after the port (src/web/server/security.ts).
  return { child, port: Number(u.port), cookie: `nudge_token_${u.port}=${u.searchParams.get("token")}`, url };
}

export async function stopServer(s: Server): Promise<void> {
  const exited = new Promise((r) => s.child.once("exit", r));
  s.child.kill("SIGTERM");
  await exited;
}

function get(s: Server, p: string, headers: Record<string, string> = { cookie: s.cookie }): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(
        { host: "127.0.0.1", port: s.port, path: p, headers: { host: `127.0.0.1:${s.port}`, ...headers } },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode!));
        },
      )
      .on("error", reject);
  });
}

/** A stream's events, each handed to `on` as it arrives. */
function stream(s: Server, p: string, on: (event: string, data: string) => void): Promise<http.ClientRequest> {
  return new Promise((resolve) => {
    const req = http.get(
      { host: "127.0.0.1", port: s.port, path: p, headers: { host: `127.0.0.1:${s.port}`, cookie: s.cookie } },
      (res) => {
        let buffer = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          buffer += chunk;
          let at;
          while ((at = buffer.indexOf("\n\n")) !== -1) {
            const block = buffer.slice(0, at);
            buffer = buffer.slice(at + 2);
            const event = /^event: (.*)$/m.exec(block)?.[1];
            if (event) on(event, /^data: (.*)$/m.exec(block)?.[1] ?? "");
          }
        });
        resolve(req);
      },
    );
  });
}

const rssMB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
/** A line shaped like claude's streamed text delta. */
const line = (i: number) =>
  JSON.stringify({
    type: "stream_event",
    event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: `word ${i} ` } },
    session_id: "bench",
  }) + "\n";

export async function webBench(samples: number, rounds: number): Promise<WebBenchResult> {
  progress("web: 10 one-turn sessions recorded with the stand-in in a 1k-file repository");
  const repo = await generateRepo({ files: 1_000 });
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) ids.push((await runSession(repo, prompts(repo, 1, "small"))).id);
  const conversation = (id: string) => path.join(repo, ".git", "nudge", "sessions", id, "conversation.jsonl");

  progress(`web: SSE delay, ${samples} lines appended one at a time`);
  const server = await startServer(repo);
  await get(server, "/");
  const idleMB = rssMB(server.child.pid!);
  let waiting: ((at: bigint) => void) | null = null;
  const sse = await stream(server, `/api/sessions/${ids[0]}/events`, (event) => event === "turn" && waiting?.(nowNs()));
  const event: number[] = [];
  const fetched: number[] = [];
  for (let i = 0; i < samples; i++) {
    const got = new Promise<bigint>((resolve) => (waiting = resolve));
    const t0 = nowNs();
    appendFileSync(conversation(ids[0]!), line(i));
    const at = await got;
    waiting = null;
    event.push(Number(at - t0) / 1e6);
    await get(server, `/api/sessions/${ids[0]}/turns/1`);
    fetched.push(msSince(t0));
    await sleep(30); // apart: each line its own event, not coalesced with the next
  }
  sse.destroy();

  progress("web: RSS with 10 streams on 10 sessions growing every 20 ms");
  const streams = await Promise.all(ids.map((id) => stream(server, `/api/sessions/${id}/events`, () => {})));
  const until = Date.now() + 5_000;
  for (let i = 0; Date.now() < until; i++) {
    for (const id of ids) appendFileSync(conversation(id), line(i));
    await sleep(20);
  }
  const liveMB = rssMB(server.child.pid!);
  streams.forEach((s) => s.destroy());
  await stopServer(server);

  progress(`web: start-up to the first answer, ${rounds} rounds against node -e 0`);
  const s = await alternate(rounds, {
    node: async () => (await timeProcess(process.execPath, ["-e", "0"], { cwd: repo })).ms,
    web: async () => {
      const t0 = nowNs();
      const started = await startServer(repo);
      await get(started, new URL(started.url).pathname + new URL(started.url).search, {});
      const ms = msSince(t0);
      await stopServer(started);
      return ms;
    },
  });
  return {
    samples,
    event: { median: median(event), p99: percentile(event, 99) },
    fetched: { median: median(fetched), p99: percentile(fetched, 99) },
    start: { rounds, web: median(s.web!), node: median(s.node!) },
    rss: { idleMB, clients: streams.length, liveMB, watches: ids.length },
  };
}
