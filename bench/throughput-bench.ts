/**
 * Recorder throughput: a large NDJSON stream shaped like claude's (assistant text, tool calls,
 * big tool results) pushed through the real recording path — tee to conversation.jsonl, timing,
 * line framing, JSON parse, event classification — in 64 KiB chunks, as a pipe delivers them.
 */
import { mkdtempSync, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { bundleFiles } from "../src/bundle/store.js";
import { ConversationLog } from "../src/recorder/conversation-log.js";
import { parseLine, lineText } from "../src/claude/ndjson.js";
import { toStreamEvent } from "../src/claude/stream-events.js";

function sampleLines(): string[] {
  const session = "94ecd445-8f4f-4f60-93d3-2ff868316284";
  const text = (t: string) => JSON.stringify({ type: "assistant", message: { id: "msg_1", role: "assistant", model: "m", content: [{ type: "text", text: t }] }, session_id: session, uuid: "2a831e46-6e65-41a4-99e1-0f24dd1907b4", parent_tool_use_id: null });
  const tool = JSON.stringify({ type: "assistant", message: { id: "msg_2", role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "npm test", description: "run tests" } }] }, session_id: session, uuid: "3a831e46-6e65-41a4-99e1-0f24dd1907b4", parent_tool_use_id: null });
  const result = (size: number) => JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "line of output\n".repeat(size / 15) }] }, session_id: session, uuid: "4a831e46-6e65-41a4-99e1-0f24dd1907b4" });
  return [text("Let me look at the failing test. ".repeat(20)), tool, result(4_000), text("Done."), tool, result(200_000), tool, result(1_000_000)];
}

export interface ThroughputRow {
  megabytes: number;
  seconds: number;
  mbPerSecond: number;
}

export function throughputBench(targetMb: number): ThroughputRow {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "nudge-bench-stream-")));
  const files = bundleFiles(dir);
  const unit = Buffer.from(sampleLines().join("\n") + "\n");
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
  if (events !== copies * sampleLines().length) throw new Error(`expected ${copies * sampleLines().length} events, got ${events}`);
  const megabytes = stream.length / (1024 * 1024);
  return { megabytes, seconds, mbPerSecond: megabytes / seconds };
}
