/**
 * How fixtures/streams/partial-messages.* were made: the real claude binary with
 * `--include-partial-messages` and `--permission-prompt-tool stdio`, against a loopback Messages
 * API of its own that streams like the real one does (text, thinking and tool input in several
 * deltas, a little apart). Four turns: a Write asked and allowed; a subagent (the Agent tool); a
 * Bash asked and denied with a reason; an AskUserQuestion answered. Everything written to claude's stdin is kept too, as nudge keeps it
 * (`input.jsonl` + `input-timing.txt`), so replay can merge both directions.
 *
 *   node --import tsx test/terminal/record-partial-stream.ts fixtures/streams/partial-messages
 *
 * writes <prefix>.jsonl, <prefix>.timing.txt, <prefix>.input.jsonl, <prefix>.input-timing.txt.
 */
import { execa } from "execa";
import { appendFileSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";

type Block =
  | { type: "thinking"; thinking: string }
  | { type: "text"; text: string }
  | { type: "tool_use"; name: string; input: Record<string, unknown> };

const prefix = path.resolve(process.argv[2] ?? "partial-messages");
const repo = realpathSync(mkdtempSync(path.join(os.tmpdir(), "nudge-repo-")));
const config = realpathSync(mkdtempSync(path.join(os.tmpdir(), "nudge-cfg-")));
await execa("git", ["init", "-q", "-b", "main"], { cwd: repo });
writeFileSync(path.join(repo, "notes.txt"), "one\ntwo\nthree\n");

// One step per main-loop request (streaming, with tools), in order; the subagent's request is one of them.
const steps: Block[][] = [
  [
    { type: "thinking", thinking: "The user wants a greeting file. I will write it with the Write tool." },
    { type: "text", text: "I'll create hello.txt with a short greeting." },
    {
      type: "tool_use",
      name: "Write",
      input: { file_path: path.join(repo, "hello.txt"), content: "Hello from nudge!\nSecond line.\n" },
    },
  ],
  [{ type: "text", text: "Created hello.txt with two lines:\n\n- a greeting\n- a second line" }],
  // In the foreground: claude 2.1.329 runs agents in the background unless told otherwise.
  [
    {
      type: "tool_use",
      name: "Agent",
      input: {
        description: "Survey the repository",
        prompt: "List the files here and say what they hold.",
        subagent_type: "general-purpose",
        run_in_background: false,
      },
    },
  ],
  [{ type: "text", text: "The repository holds hello.txt and notes.txt." }],
  [{ type: "text", text: "The subagent found two files: hello.txt and notes.txt." }],
  [{ type: "tool_use", name: "Bash", input: { command: "rm -rf build", description: "Remove the build folder" } }],
  [{ type: "text", text: "Understood, I left the build folder alone." }],
  [
    {
      type: "tool_use",
      name: "AskUserQuestion",
      input: {
        questions: [
          {
            question: "Which database should I use?",
            header: "Database",
            multiSelect: false,
            options: [
              { label: "SQLite", description: "one file, no server" },
              { label: "Postgres", description: "a server to run" },
            ],
          },
        ],
      },
    },
  ],
  [{ type: "text", text: "SQLite it is." }],
];
const prompts = [
  "Create hello.txt with a greeting",
  "Use a subagent to survey the repository",
  "Clean the build folder",
  "Set up a database",
];
/** How the user answered each permission request, by tool. */
function answer(request: { tool_name: string; input: Record<string, unknown> }): object {
  if (request.tool_name === "Bash") return { behavior: "deny", message: "not now, the build is still needed" };
  if (request.tool_name === "AskUserQuestion")
    return {
      behavior: "allow",
      updatedInput: { ...request.input, answers: { "Which database should I use?": "SQLite" } },
    };
  return { behavior: "allow", updatedInput: request.input };
}

let toolSeq = 0;
const server = http.createServer((req, res) => {
  let raw = "";
  req.on("data", (c: Buffer) => (raw += c.toString()));
  req.on("end", () => {
    const body = raw ? (JSON.parse(raw) as { stream?: boolean; tools?: unknown[]; model?: string }) : {};
    if (!req.url?.startsWith("/v1/messages") || req.url.startsWith("/v1/messages/count_tokens")) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ input_tokens: 10 }));
      return;
    }
    const mainLoop = body.stream === true && Array.isArray(body.tools) && body.tools.length > 0;
    const blocks = mainLoop
      ? (steps.shift() ?? [{ type: "text", text: "(script exhausted)" }])
      : [{ type: "text" as const, text: "ok" }];
    if (body.stream !== true) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "msg_side",
          type: "message",
          role: "assistant",
          model: body.model,
          content: [{ type: "text", text: "ok" }],
          stop_reason: "end_turn",
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 1 },
        }),
      );
      return;
    }
    void stream(res, blocks, body.model ?? "claude-sonnet-4-5-20250929");
  });
});

/** Several deltas per block, ~40 ms apart, as the real API types. */
async function stream(res: http.ServerResponse, blocks: Block[], model: string): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (type: string, data: object) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const pause = () => new Promise((r) => setTimeout(r, 40));
  const id = `msg_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  send("message_start", {
    message: {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 50, output_tokens: 1 },
    },
  });
  for (const [index, b] of blocks.entries()) {
    if (b.type === "text") {
      send("content_block_start", { index, content_block: { type: "text", text: "" } });
      for (const piece of chunks(b.text))
        (await pause(), send("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
    } else if (b.type === "thinking") {
      send("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } });
      for (const piece of chunks(b.thinking))
        (await pause(), send("content_block_delta", { index, delta: { type: "thinking_delta", thinking: piece } }));
      send("content_block_delta", { index, delta: { type: "signature_delta", signature: "c2lnbmF0dXJl" } });
    } else {
      const toolId = `toolu_${String(++toolSeq).padStart(4, "0")}`;
      send("content_block_start", { index, content_block: { type: "tool_use", id: toolId, name: b.name, input: {} } });
      for (const piece of chunks(JSON.stringify(b.input)))
        (await pause(),
          send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } }));
    }
    send("content_block_stop", { index });
  }
  const toolUse = blocks.some((b) => b.type === "tool_use");
  send("message_delta", {
    delta: { stop_reason: toolUse ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: 20 },
  });
  send("message_stop", {});
  res.end();
}

function chunks(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 12) out.push(text.slice(i, i + 12));
  return out;
}

await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const args = [
  "-p",
  "--verbose",
  "--input-format",
  "stream-json",
  "--output-format",
  "stream-json",
  "--replay-user-messages",
  "--include-partial-messages",
  "--permission-prompt-tool",
  "stdio",
];
const child = execa(CLAUDE_BIN, args, {
  cwd: repo,
  env: claudeEnv({ url }, config),
  stdin: "pipe",
  stdout: "pipe",
  stderr: "pipe",
  buffer: false,
  reject: false,
});
for (const suffix of [".jsonl", ".timing.txt", ".input.jsonl", ".input-timing.txt"]) writeFileSync(prefix + suffix, "");
const send = (value: object) => {
  const line = JSON.stringify(value);
  appendFileSync(`${prefix}.input.jsonl`, `${line}\n`);
  appendFileSync(`${prefix}.input-timing.txt`, `${Date.now()}\n`);
  child.stdin!.write(`${line}\n`);
};
const prompt = (text: string) => send({ type: "user", message: { role: "user", content: text } });

let turn = 0;
prompt(prompts[turn]!);
for await (const line of readline.createInterface({ input: child.stdout!, crlfDelay: Infinity })) {
  appendFileSync(`${prefix}.jsonl`, `${line}\n`);
  appendFileSync(`${prefix}.timing.txt`, `${Date.now()}\n`);
  const event = JSON.parse(line) as {
    type: string;
    request_id?: string;
    request?: { subtype: string; tool_name: string; input: Record<string, unknown> };
  };
  if (event.type === "control_request" && event.request?.subtype === "can_use_tool") {
    const response = answer(event.request);
    setTimeout(
      () =>
        send({ type: "control_response", response: { subtype: "success", request_id: event.request_id, response } }),
      700,
    );
  }
  if (event.type === "result") {
    if (++turn < prompts.length) setTimeout(() => prompt(prompts[turn]!), 500);
    else child.stdin!.end();
  }
}
await child;
server.close();
rmSync(repo, { recursive: true, force: true });
rmSync(config, { recursive: true, force: true });
process.stderr.write(`recorded ${prefix}.jsonl (claude: ${(await child).stderr || "no stderr"})\n`);
