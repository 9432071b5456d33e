#!/usr/bin/env node
/**
 * A stand-in for `claude -p --input-format stream-json --output-format stream-json`, for the
 * benchmarks only (never shipped): it speaks the protocol nudge relies on (a `system/init` line
 * with the session id, the prompt replayed with `isReplay` under --replay-user-messages,
 * assistant lines with uuids, one `result` line per turn with session_id, total_cost_usd and
 * duration_ms), answers control requests, and keeps its own transcript under
 * $CLAUDE_CONFIG_DIR/projects/<encoded cwd>/<session id>.jsonl as claude does.
 *
 * Each prompt is `bench <n> <kind>`. A turn makes its change to the work tree (turn-change.mjs)
 * and appends ~40 KB to the transcript BEFORE it writes its result, as claude does. Around that
 * it takes, with the monotonic clock every process on the machine shares, the moment each prompt
 * arrived and the moment each result was written; the bench reads them from $BENCH_LOG at exit.
 *
 * Other kinds measure the recorder: `flood:<MB>` writes that much NDJSON as fast as the pipe
 * takes it; `pings:<count>:<ms>:<loadKB>` writes assistant lines carrying the time they were
 * written (`ping <i> <ns>`), every <ms>, each followed by a <loadKB> tool result (0: none).
 *
 * Hooks, as claude keeps them: the PreToolUse hooks an `initialize` request registers are called
 * (a `hook_callback` control request) before the turn's Edit is applied, and the Edit waits for
 * nudge's answer, as claude's tools do (nudge's edits gate holds them while it captures the user's
 * edits). The moment the answer arrives is recorded (`allowed`).
 *
 * Environment: BENCH_LOG (required), BENCH_SESSIONS (nudge's sessions folder: wait until the
 * previous turn is saved before acting, as a real turn's seconds of thinking would),
 * BENCH_TRANSCRIPT_BYTES.
 *
 * A prompt may add flags after its kind: `status` times `git status --porcelain -uall` on the
 * very state nudge captures at the turn's end, before the result on odd turns and after the next
 * prompt on even ones (so neither always goes first); `measure` writes `<BENCH_LOG>.pause` before
 * acting and waits until the bench deletes it (the bench measures the store meanwhile).
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  closeSync,
  fstatSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { applyTurnChange } from "./turn-change.mjs";

const args = process.argv.slice(2);
const replay = args.includes("--replay-user-messages");
const resumeAt = args.indexOf("--resume");
const sessionId = resumeAt !== -1 && !args.includes("--fork-session") ? args[resumeAt + 1] : randomUUID();
const cwd = process.cwd();
const logFile = process.env.BENCH_LOG;
const sessionsDir = process.env.BENCH_SESSIONS;
const transcriptBytes = Number(process.env.BENCH_TRANSCRIPT_BYTES ?? 40_960);
const configDir = process.env.CLAUDE_CONFIG_DIR;
if (!logFile || !configDir) {
  process.stderr.write("stand-in claude: BENCH_LOG and CLAUDE_CONFIG_DIR must be set\n");
  process.exit(2);
}
const transcript = path.join(configDir, "projects", cwd.replace(/[^A-Za-z0-9]/g, "-"), `${sessionId}.jsonl`);
mkdirSync(path.dirname(transcript), { recursive: true });

/** git for the baseline: the cheapest launch node has, and none of the tracing meant for nudge's git. */
const gitEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_TRACE")));
const records = [];
const now = () => process.hrtime.bigint();
/**
 * Epoch milliseconds with sub-millisecond precision, to line up with the times in git's trace2
 * events (performance.timeOrigin can be off by tens of ms): anchored at a tick of Date.now().
 */
const anchor = (() => {
  const first = Date.now();
  let at;
  while ((at = Date.now()) === first);
  return { ms: at, hr: process.hrtime.bigint() };
})();
const wall = () => anchor.ms + Number(process.hrtime.bigint() - anchor.hr) / 1e6;
const write = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

/** PreToolUse hooks registered by nudge's `initialize`: [matcher regex, callback ids]. */
let preToolUse = [];
/** Control requests this stand-in sent and waits on, by request id. */
const waiting = new Map();
let requestSeq = 0;

/** Call the PreToolUse hooks matching `tool`, as claude does (together), and wait for every answer. */
async function preToolHooks(tool, input) {
  const ids = preToolUse.filter(([matcher]) => new RegExp(matcher).test(tool)).flatMap(([, ids]) => ids);
  const toolUseId = `toolu_bench_${requestSeq}`;
  await Promise.all(
    ids.map((callbackId) => {
      const requestId = `hook_${++requestSeq}`;
      const answered = new Promise((resolve) => waiting.set(requestId, resolve));
      write({
        type: "control_request",
        request_id: requestId,
        request: {
          subtype: "hook_callback",
          callback_id: callbackId,
          input: {
            hook_event_name: "PreToolUse",
            session_id: sessionId,
            cwd,
            tool_name: tool,
            tool_input: input,
            tool_use_id: toolUseId,
          },
        },
      });
      return answered;
    }),
  );
}

let cost = 0;
let turnsDone = 0;
let statusPending = null; // an "after" measurement owed from the previous turn

function gitStatusMs() {
  return new Promise((resolve, reject) => {
    const start = now();
    execFile("git", ["status", "--porcelain", "-uall"], { cwd, env: gitEnv, maxBuffer: 1 << 30 }, (error) => {
      if (error) reject(error);
      else resolve(Number(now() - start) / 1e6);
    });
  });
}

/** nudge's bundle for this process: the session whose lock names this pid as its claude. */
let journal = null;
let journalOffset = 0;
let journalText = "";
function findJournal() {
  if (journal || !sessionsDir) return;
  for (const id of readdirSync(sessionsDir)) {
    const lock = path.join(sessionsDir, id, "lock");
    try {
      if (new RegExp(`"claude":\\{"pid":${process.pid}\\b`).test(readFileSync(lock, "utf8")))
        journal = path.join(sessionsDir, id, "turns.jsonl");
    } catch {
      // not this one
    }
  }
}

/** Wait (polling only the new bytes) until nudge has written turn n's full record. */
async function waitSaved(n) {
  findJournal();
  if (!journal) return;
  // A saved turn's record is the one without a "type" (begin and ended records have one).
  const needle = `{"n":${n},"prompt"`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (existsSync(journal)) {
      const fd = openSync(journal, "r");
      const size = fstatSync(fd).size;
      if (size > journalOffset) {
        const buffer = Buffer.alloc(size - journalOffset);
        readSync(fd, buffer, 0, buffer.length, journalOffset);
        journalOffset = size;
        journalText = (journalText + buffer.toString("utf8")).slice(-65536);
      }
      closeSync(fd);
      if (journalText.includes(needle)) {
        await sleep(5); // the header write that follows the record
        return;
      }
    }
    if (Date.now() > deadline) throw new Error(`turn ${n} was never saved`);
    await sleep(2);
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function init() {
  write({
    type: "system",
    subtype: "init",
    cwd,
    session_id: sessionId,
    tools: [
      "Task",
      "Bash",
      "Edit",
      "Glob",
      "Grep",
      "NotebookEdit",
      "Read",
      "TodoWrite",
      "WebFetch",
      "WebSearch",
      "Write",
    ],
    mcp_servers: [],
    model: "claude-bench",
    permissionMode: "acceptEdits",
    slash_commands: Array.from({ length: 60 }, (_, i) => `command-${i}`),
    apiKeySource: "ANTHROPIC_API_KEY",
    claude_code_version: "2.1.329",
    output_style: "default",
    agents: ["general-purpose", "Explore", "Plan"],
    capabilities: Array.from({ length: 20 }, (_, i) => `capability_${i}_v1`),
    uuid: randomUUID(),
  });
}

function transcriptRecord(type, content, extra = {}) {
  return (
    JSON.stringify({
      parentUuid: randomUUID(),
      isSidechain: false,
      userType: "external",
      cwd,
      sessionId,
      version: "2.1.329",
      gitBranch: "main",
      type,
      message: { role: type, content },
      uuid: randomUUID(),
      timestamp: new Date().toISOString(),
      ...extra,
    }) + "\n"
  );
}

/** About `transcriptBytes` of records, as claude appends them over a turn. */
function appendTranscript(prompt, reply) {
  const head =
    transcriptRecord("user", prompt) +
    transcriptRecord("assistant", [
      { type: "tool_use", id: "toolu_bench", name: "Edit", input: { file_path: "src/m0/d0/f0.ts" } },
    ]);
  const tail = transcriptRecord("assistant", [{ type: "text", text: reply }]);
  const room = Math.max(0, transcriptBytes - head.length - tail.length - 300);
  const result = transcriptRecord("user", [
    {
      type: "tool_result",
      tool_use_id: "toolu_bench",
      content: "output line of the tool\n".repeat(Math.ceil(room / 24)).slice(0, room),
    },
  ]);
  appendFileSync(transcript, head + result + tail);
}

function assistant(content) {
  write({
    type: "assistant",
    message: {
      id: `msg_${randomUUID().slice(0, 12)}`,
      type: "message",
      role: "assistant",
      model: "claude-bench",
      content,
      stop_reason: null,
      usage: { input_tokens: 100, output_tokens: 10 },
    },
    parent_tool_use_id: null,
    session_id: sessionId,
    uuid: randomUUID(),
  });
}

function toolResult(bytes) {
  write({
    type: "user",
    message: {
      role: "user",
      content: [
        {
          tool_use_id: "toolu_bench",
          type: "tool_result",
          content: "line of tool output\n".repeat(Math.ceil(bytes / 20)).slice(0, bytes),
        },
      ],
    },
    parent_tool_use_id: null,
    session_id: sessionId,
    uuid: randomUUID(),
  });
}

function result(k, started, text) {
  cost += 0.01;
  write({
    type: "result",
    subtype: "success",
    is_error: false,
    duration_ms: Math.round(Number(now() - started) / 1e6),
    duration_api_ms: 10,
    num_turns: 2,
    result: text,
    session_id: sessionId,
    total_cost_usd: Number(cost.toFixed(6)),
    usage: { input_tokens: 12000, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 40 },
    model_usage_since_last_result: { "claude-bench": { inputTokens: 12000, outputTokens: 40, costUSD: 0.01 } },
    permission_denials: [],
    terminal_reason: "completed",
    uuid: randomUUID(),
  });
}

/** The recorder's load: NDJSON shaped like claude's (text, tool calls, tool results up to 1 MB). */
function floodUnit() {
  const text = (t) =>
    JSON.stringify({
      type: "assistant",
      message: { id: "msg_1", role: "assistant", model: "m", content: [{ type: "text", text: t }] },
      session_id: sessionId,
      uuid: randomUUID(),
      parent_tool_use_id: "toolu_sub",
    });
  const tool = JSON.stringify({
    type: "assistant",
    message: {
      id: "msg_2",
      role: "assistant",
      content: [
        { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "npm test", description: "run tests" } },
      ],
    },
    session_id: sessionId,
    uuid: randomUUID(),
    parent_tool_use_id: "toolu_sub",
  });
  const out = (size) =>
    JSON.stringify({
      type: "user",
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "line of output\n".repeat(size / 15) }],
      },
      session_id: sessionId,
      uuid: randomUUID(),
      parent_tool_use_id: "toolu_sub",
    });
  return Buffer.from(
    [
      text("Let me look at the failing test. ".repeat(20)),
      tool,
      out(4_000),
      text("Done."),
      tool,
      out(200_000),
      tool,
      out(1_000_000),
    ].join("\n") + "\n",
  );
}

async function turn(k, prompt) {
  const started = now();
  const [, n, kind = "none", ...flags] = prompt.split(" ");
  const timeStatus = flags.includes("status");
  init();
  if (replay)
    write({
      type: "user",
      message: { role: "user", content: prompt },
      session_id: sessionId,
      parent_tool_use_id: null,
      uuid: randomUUID(),
      timestamp: new Date().toISOString(),
      isReplay: true,
    });
  if (turnsDone > 0) await waitSaved(turnsDone);
  if (flags.includes("measure")) {
    writeFileSync(`${logFile}.pause`, String(k));
    while (existsSync(`${logFile}.pause`)) await sleep(5);
  }
  if (statusPending !== null) {
    records.push({ type: "status", k: statusPending, order: "after", ms: await gitStatusMs() });
    statusPending = null;
  }
  if (kind.startsWith("flood:")) {
    const unit = floodUnit();
    const target = Number(kind.split(":")[1]) * 1024 * 1024;
    let bytes = 0;
    const start = now();
    // A pipe's write queues what the pipe cannot take yet: wait for it to drain, and time up to the
    // moment the last byte went into the pipe (nudge has then read all but the pipe's 64 KB).
    while (bytes < target) {
      bytes += unit.length;
      const last = bytes >= target;
      const flushed = new Promise((resolve) => process.stdout.write(unit, resolve));
      if (last) await flushed;
      else if (process.stdout.writableLength > 4 * unit.length)
        await new Promise((resolve) => process.stdout.once("drain", resolve));
    }
    records.push({ type: "flood", k, bytes, ns: String(now() - start) });
  } else if (kind.startsWith("pings:")) {
    const [, count, every, loadKB] = kind.split(":").map(Number);
    for (let i = 0; i < count; i++) {
      await sleep(every);
      assistant([{ type: "text", text: `ping ${i} ${now()}` }]);
      if (loadKB > 0) toolResult(loadKB * 1024);
    }
  } else {
    const input = { file_path: path.join(cwd, "src/m0/d0/f0.ts"), old_string: "a", new_string: "b" };
    assistant([{ type: "tool_use", id: "toolu_bench", name: "Edit", input }]);
    await preToolHooks("Edit", input);
    records.push({ type: "allowed", k, t: String(now()) });
    applyTurnChange(cwd, Number(n), kind);
    write({
      type: "user",
      message: {
        role: "user",
        content: [
          { tool_use_id: "toolu_bench", type: "tool_result", content: "The file has been updated successfully." },
        ],
      },
      parent_tool_use_id: null,
      session_id: sessionId,
      uuid: randomUUID(),
    });
  }
  const reply = `Done with turn ${n}.`;
  assistant([{ type: "text", text: reply }]);
  appendTranscript(prompt, reply);
  if (timeStatus) {
    if (k % 2) records.push({ type: "status", k, order: "before", ms: await gitStatusMs() });
    else statusPending = k;
  }
  // The moment of the result: taken just before the write (a write returns once nudge can read
  // the line; a stamp after it could land late if this process is descheduled in between).
  const t = String(now());
  const w = wall();
  result(k, started, reply);
  records.push({ type: "result", k, t, wall: w });
  turnsDone++;
}

// One line at a time, in order; a prompt's arrival is stamped the moment its bytes are read.
let buffered = "";
let chain = Promise.resolve();
let prompts = 0;
process.stdin.on("data", (chunk) => {
  const t = now();
  const w = wall();
  buffered += chunk.toString("utf8");
  let at;
  while ((at = buffered.indexOf("\n")) !== -1) {
    const line = buffered.slice(0, at);
    buffered = buffered.slice(at + 1);
    if (!line.trim()) continue;
    const message = JSON.parse(line);
    if (message.type === "control_request") {
      if (message.request?.subtype === "initialize")
        preToolUse = (message.request.hooks?.PreToolUse ?? []).map((h) => [h.matcher, h.hookCallbackIds]);
      write({
        type: "control_response",
        response: { subtype: "success", request_id: message.request_id, response: {} },
      });
    } else if (message.type === "control_response") {
      const id = message.response?.request_id;
      waiting.get(id)?.();
      waiting.delete(id);
    } else if (message.type === "user") {
      const k = ++prompts;
      records.push({ type: "prompt", k, t: String(t), wall: w });
      const text =
        typeof message.message.content === "string"
          ? message.message.content
          : message.message.content.map((b) => b.text ?? "").join("");
      chain = chain.then(() => turn(k, text));
    }
  }
});
process.stdin.on("end", () => {
  chain.then(
    () => {
      writeFileSync(logFile, records.map((r) => JSON.stringify(r)).join("\n") + "\n");
      process.exit(0);
    },
    (error) => {
      writeFileSync(logFile, records.map((r) => JSON.stringify(r)).join("\n") + "\n");
      process.stderr.write(`stand-in claude: ${error.stack}\n`);
      process.exit(1);
    },
  );
});
