/**
 * The recorder under load, through the real `nudge claude run` process:
 *
 * - Throughput: the stand-in claude writes a ≥256 MB NDJSON stream shaped like claude's (text,
 *   tool calls, tool results up to 1 MB) into nudge as fast as the pipe takes it. A pipe holds
 *   64 KB, so the stand-in can only finish writing once nudge has read, stored (conversation.jsonl
 *   + timing.txt), framed, parsed and shown all but the last 64 KB: bytes ÷ that time is nudge's
 *   throughput. Also the recording path alone, in-process (ConversationLog + parse + classify).
 * - Latency per line: the stand-in writes assistant lines carrying the monotonic time they were
 *   written (`ping <i> <ns>`); the bench reads nudge's stdout and takes the moment the line is
 *   shown there. The same lines read straight from the stand-in (no nudge in between) give the
 *   floor of pipes and event loops; nudge's added latency is the difference. Measured idle (a
 *   line every 2 ms) and under load (each line followed by a 64 KB tool result).
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { bundleFiles } from "../src/store/store.js";
import { parseLine, lineText } from "../src/claude/ndjson.js";
import { toStreamEvent } from "../src/claude/stream-events.js";
import { ConversationLog } from "../src/recorder/conversation-log.js";
import { scratchDir } from "./repo.js";
import { STAND_IN, claudeConfig, prompts, runSession } from "./session.js";
import { median, percentile, progress } from "./stats.js";

export interface LatencyFigures {
  lines: number;
  median: number;
  p99: number;
}

export interface RecorderResult {
  /** Through the nudge process. */
  streamMB: number;
  mbPerSecond: number;
  /** The recording path alone, in-process. */
  inProcessMbPerSecond: number;
  idle: { nudge: LatencyFigures; direct: LatencyFigures };
  loaded: { nudge: LatencyFigures; direct: LatencyFigures };
}

export const PING = /ping (\d+) (\d+)/;
export const IDLE = "pings:1000:2:0";
const LOADED = "pings:500:3:64";

export function figures(latencies: number[]): LatencyFigures {
  return { lines: latencies.length, median: median(latencies), p99: percentile(latencies, 99) };
}

export async function recorderBench(repo: string, streamMB: number): Promise<RecorderResult> {
  progress(`recorder: ${streamMB} MB through nudge, then latency per line (idle, and under load)`);
  // Latency first, on a fresh session: the flood's hundreds of MB of garbage must not be in it.
  const latencies: number[][] = [[], []];
  let k = 0;
  const run = await runSession(
    repo,
    [...prompts(repo, 1, IDLE), ...prompts(repo, 1, LOADED), ...prompts(repo, 1, `flood:${streamMB}`)],
    {
      onStdoutLine: (line, at) => {
        if (/^● turn/.test(line)) k++;
        const m = PING.exec(line);
        if (m) latencies[k]!.push(Number(at - BigInt(m[2]!)) / 1e6);
      },
    },
  );
  const flood = run.records.find((r) => r.type === "flood");
  if (!flood || flood.type !== "flood") throw new Error("the stand-in wrote no flood record");
  progress("recorder: the same lines read straight from the stand-in (the floor)");
  const direct = await directLatencies([IDLE, LOADED]);
  progress("recorder: the recording path alone, in-process");
  return {
    streamMB: flood.bytes / 1024 / 1024,
    mbPerSecond: flood.bytes / 1024 / 1024 / (Number(flood.ns) / 1e9),
    inProcessMbPerSecond: inProcessThroughput(streamMB),
    idle: { nudge: figures(latencies[0]!), direct: figures(direct[0]!) },
    loaded: { nudge: figures(latencies[1]!), direct: figures(direct[1]!) },
  };
}

/** The stand-in driven directly: its stdout read by this process, as nudge reads it. */
export async function directLatencies(kinds: string[]): Promise<number[][]> {
  const dir = scratchDir("direct");
  const child = spawn(STAND_IN, ["--replay-user-messages"], {
    cwd: dir,
    env: { ...process.env, CLAUDE_CONFIG_DIR: claudeConfig(), BENCH_LOG: path.join(dir, "stand-in.jsonl") },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const out: number[][] = kinds.map(() => []);
  // One prompt at a time, each after the previous result, as nudge sends them.
  const send = (i: number) =>
    child.stdin.write(
      JSON.stringify({ type: "user", message: { role: "user", content: `bench 0 ${kinds[i]}` } }) + "\n",
    );
  let turn = 0;
  let pending = "";
  child.stdout.on("data", (chunk: Buffer) => {
    const at = process.hrtime.bigint();
    pending += chunk.toString("utf8");
    let nl;
    while ((nl = pending.indexOf("\n")) !== -1) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      const m = PING.exec(line);
      if (m) out[turn]!.push(Number(at - BigInt(m[2]!)) / 1e6);
      if (line.startsWith('{"type":"result"')) {
        turn++;
        if (turn < kinds.length) send(turn);
        else child.stdin.end();
      }
    }
  });
  send(0);
  await new Promise((r) => child.on("close", r));
  return out;
}

/** The old in-process figure: ConversationLog (tee + timing + framing) + JSON parse + classification, 64 KB chunks. */
function inProcessThroughput(targetMb: number): number {
  const files = bundleFiles(scratchDir("in-process"));
  const session = "94ecd445-8f4f-4f60-93d3-2ff868316284";
  const text = (t: string) =>
    JSON.stringify({
      type: "assistant",
      message: { id: "msg_1", role: "assistant", model: "m", content: [{ type: "text", text: t }] },
      session_id: session,
      uuid: "2a831e46-6e65-41a4-99e1-0f24dd1907b4",
      parent_tool_use_id: null,
    });
  const tool = JSON.stringify({
    type: "assistant",
    message: {
      id: "msg_2",
      role: "assistant",
      content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "npm test" } }],
    },
    session_id: session,
    uuid: "3a831e46-6e65-41a4-99e1-0f24dd1907b4",
    parent_tool_use_id: null,
  });
  const result = (size: number) =>
    JSON.stringify({
      type: "user",
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "line of output\n".repeat(size / 15) }],
      },
      session_id: session,
      uuid: "4a831e46-6e65-41a4-99e1-0f24dd1907b4",
    });
  const unit = Buffer.from(
    [
      text("Let me look at the failing test. ".repeat(20)),
      tool,
      result(4_000),
      text("Done."),
      tool,
      result(200_000),
      tool,
      result(1_000_000),
    ].join("\n") + "\n",
  );
  const copies = Math.ceil((targetMb * 1024 * 1024) / unit.length);
  const stream = Buffer.concat(Array.from({ length: copies }, () => unit));
  const log = ConversationLog.open(files);
  let events = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < stream.length; i += 65536) {
    log.appendStdout(stream.subarray(i, i + 65536), (line) => {
      const json = parseLine(line);
      if (toStreamEvent(json, json === null ? lineText(line) : "").type !== "invalid") events++;
    });
  }
  log.sync();
  log.close();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (events !== copies * 8) throw new Error(`expected ${copies * 8} events, got ${events}`);
  return stream.length / (1024 * 1024) / seconds;
}
