// A scripted stand-in for the Anthropic Messages API, so tests can drive the
// real `claude` binary offline and deterministically.
//
// Only "main loop" requests (streaming, with tools) consume script steps; the
// CLI's side requests (title generation, token counting, quota probes, ...)
// get a small valid answer so they never shift the script.
import http from "node:http";
import type { AddressInfo } from "node:net";

export type ScriptStep =
  | { text: string } // end_turn with a text block
  | { tool: string; input: Record<string, unknown>; text?: string } // optional text, then tool_use; stop_reason tool_use
  // Error body shaped like the real API. claude retries 401/429 (up to
  // CLAUDE_CODE_MAX_RETRIES, default 10, ~3 min of backoff) and every retry is
  // another main-loop request, so script one httpError per attempt.
  | { httpError: { status: number; type: string; message: string } }
  | { delayMs: number; then: ScriptStep } // wait before answering (lets tests interrupt a running turn)
  | { after: Promise<unknown>; then: ScriptStep } // answer once the test says so (a question that appears right after a key)
  // end_turn with a text block typed in parts: each part is one text_delta, sent once the promise
  // before it resolves (lets a test look at the screen while a message is half written).
  | { textParts: Array<string | Promise<unknown>> }
  | { thinking: string; text: string }; // a thinking block (thinking_delta + signature_delta), then the text

export interface RecordedRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  isMainLoop: boolean;
  /** The route whose script answered it (main-loop requests only; "default" is the script given to startScriptedApi). */
  route?: string;
}

export interface ScriptedApi {
  url: string; // http://127.0.0.1:PORT
  requests: RecordedRequest[]; // every request received, in order
  mainLoopRequests(): RecordedRequest[]; // only the ones that consumed a step
  push(...steps: ScriptStep[]): void; // append steps to the script
  pushTo(route: string, ...steps: ScriptStep[]): void; // append steps to one route's script
  remaining(route?: string): number; // steps left in one route (default: the default route)
  close(): Promise<void>;
}

const DEFAULT_MODEL = "claude-sonnet-4-5-20250929";
const EXHAUSTED: ScriptStep = { text: "(script exhausted)" };

type Block =
  | { type: "text"; text: string; parts?: Array<string | Promise<unknown>> }
  | { type: "thinking"; thinking: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

export interface ScriptedApiOptions {
  /** Stream every text, thinking and tool input in pieces of this many characters, as the real API streams tokens (default: one piece). */
  chunk?: number;
  /**
   * Scripts of their own for other agents (a background subagent asks the API while the main loop
   * does, so one script in arrival order races): `route` names the script a main-loop request
   * takes its step from; `undefined` or an unknown name means the default script.
   */
  routes?: Record<string, ScriptStep[]>;
  route?: (body: any) => string | undefined;
}

/** The text of a request's first user message (for a subagent: the prompt its Agent call gave it). */
export function firstUserText(body: any): string {
  const first = Array.isArray(body?.messages) ? body.messages.find((m: any) => m?.role === "user") : undefined;
  const content = first?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b: any) => (b?.type === "text" && typeof b.text === "string" ? b.text : "")).join("\n");
}

/** Is this a subagent's request? claude 2.1.x marks them in the billing line of the system prompt. */
export function isSubagentRequest(body: any): boolean {
  const system = Array.isArray(body?.system) ? body.system : [];
  return system.some((b: any) => typeof b?.text === "string" && b.text.includes("cc_is_subagent=true"));
}

/** A route that sends every request whose first user message holds `marker` to `name`. */
export function routeByFirstUserText(marker: string, name: string): (body: any) => string | undefined {
  return (body) => (firstUserText(body).includes(marker) ? name : undefined);
}

export async function startScriptedApi(
  steps: ScriptStep[] = [],
  options: ScriptedApiOptions = {},
): Promise<ScriptedApi> {
  const pieces = (s: string): string[] =>
    options.chunk ? (s.match(new RegExp(`[\\s\\S]{1,${options.chunk}}`, "g")) ?? []) : [s];
  const scripts = new Map<string, ScriptStep[]>([["default", [...steps]]]);
  for (const [name, list] of Object.entries(options.routes ?? {})) scripts.set(name, [...list]);
  const script = scripts.get("default")!;
  const routeOf = (body: any): string => {
    const name = options.route?.(body);
    return name !== undefined && scripts.has(name) ? name : "default";
  };
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>(); // pending delayMs steps, cleared on close
  let seq = 0; // makes message and tool_use ids unique per server
  const nextId = (prefix: string) =>
    `${prefix}_${String(++seq).padStart(4, "0")}${Math.random().toString(36).slice(2, 10)}`;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: any = undefined;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      const path = req.url ?? "/";
      const pathname = path.split("?")[0];
      const isMessages = req.method === "POST" && pathname === "/v1/messages";
      const isMainLoop = isMessages && body?.stream === true && Array.isArray(body?.tools) && body.tools.length > 0;
      const route = isMainLoop ? routeOf(body) : undefined;
      requests.push({ path, headers: { ...req.headers }, body, isMainLoop, ...(route ? { route } : {}) });

      if (route) {
        void answerStep(res, scripts.get(route)!.shift() ?? EXHAUSTED, body);
      } else if (req.method === "POST" && pathname === "/v1/messages/count_tokens") {
        sendJson(res, 200, { input_tokens: estimateTokens(raw) });
      } else if (isMessages) {
        // Side request: answer without consuming a step.
        const blocks: Block[] = [{ type: "text", text: "ok" }];
        if (body?.stream === true) void sendSse(res, blocks, "end_turn", body, estimateTokens(raw));
        else sendJson(res, 200, messageJson(nextId("msg"), blocks, "end_turn", body, estimateTokens(raw)));
      } else {
        // Anything else the CLI might probe: a harmless empty success.
        sendJson(res, 200, {});
      }
    });
  });

  async function answerStep(res: http.ServerResponse, step: ScriptStep, body: any): Promise<void> {
    if ("delayMs" in step) {
      await new Promise<void>((r) => {
        const t = setTimeout(() => (timers.delete(t), r()), step.delayMs);
        timers.add(t);
      });
      // The client may have given up meanwhile (an interrupt aborts the request).
      if (res.destroyed || res.socket?.destroyed !== false) return;
      return answerStep(res, step.then, body);
    }
    if ("after" in step) {
      await step.after;
      if (res.destroyed || res.socket?.destroyed !== false) return;
      return answerStep(res, step.then, body);
    }
    if ("httpError" in step) {
      const { status, type, message } = step.httpError;
      const headers: Record<string, string> = { "request-id": nextId("req") };
      // Real 429s carry retry-after. (Measured: claude 2.1.329 still backs off
      // ~0.5s, 1s, 2s, ... with 0 here, so it doesn't speed tests up.)
      if (status === 429) headers["retry-after"] = "0";
      sendJson(res, status, { type: "error", error: { type, message }, request_id: headers["request-id"] }, headers);
      return;
    }
    const inputTokens = estimateTokens(JSON.stringify(body ?? ""));
    if ("tool" in step) {
      const blocks: Block[] = [];
      if (step.text !== undefined) blocks.push({ type: "text", text: step.text });
      blocks.push({ type: "tool_use", id: nextId("toolu"), name: step.tool, input: step.input });
      await sendSse(res, blocks, "tool_use", body, inputTokens);
      return;
    }
    if ("textParts" in step) {
      const text = step.textParts.filter((p): p is string => typeof p === "string").join("");
      await sendSse(res, [{ type: "text", text, parts: step.textParts }], "end_turn", body, inputTokens);
      return;
    }
    const thinking: Block[] = "thinking" in step ? [{ type: "thinking", thinking: step.thinking }] : [];
    await sendSse(res, [...thinking, { type: "text", text: step.text }], "end_turn", body, inputTokens);
  }

  async function sendSse(
    res: http.ServerResponse,
    blocks: Block[],
    stopReason: string,
    body: any,
    inputTokens: number,
  ): Promise<void> {
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "request-id": nextId("req"),
    });
    const event = (type: string, data: unknown) => res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
    const outputTokens = blocks.reduce(
      (n, b) =>
        n + estimateTokens(b.type === "text" ? b.text : b.type === "thinking" ? b.thinking : JSON.stringify(b.input)),
      0,
    );
    const msg = messageJson(nextId("msg"), [], null, body, inputTokens);
    event("message_start", { type: "message_start", message: { ...msg, usage: { ...msg.usage, output_tokens: 1 } } });
    for (const [index, b] of blocks.entries()) {
      if (b.type === "text") {
        event("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
        for (const part of b.parts ?? pieces(b.text)) {
          if (typeof part !== "string") {
            await part;
            if (res.destroyed) return; // the client gave up meanwhile (an interrupt)
          } else
            event("content_block_delta", {
              type: "content_block_delta",
              index,
              delta: { type: "text_delta", text: part },
            });
        }
      } else if (b.type === "thinking") {
        event("content_block_start", {
          type: "content_block_start",
          index,
          content_block: { type: "thinking", thinking: "", signature: "" },
        });
        for (const piece of pieces(b.thinking))
          event("content_block_delta", {
            type: "content_block_delta",
            index,
            delta: { type: "thinking_delta", thinking: piece },
          });
        event("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "signature_delta", signature: "c2NyaXB0ZWQ=" },
        });
      } else {
        event("content_block_start", {
          type: "content_block_start",
          index,
          content_block: { type: "tool_use", id: b.id, name: b.name, input: {} },
        });
        for (const piece of pieces(JSON.stringify(b.input))) {
          event("content_block_delta", {
            type: "content_block_delta",
            index,
            delta: { type: "input_json_delta", partial_json: piece },
          });
        }
      }
      event("content_block_stop", { type: "content_block_stop", index });
    }
    event("message_delta", {
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: outputTokens },
    });
    event("message_stop", { type: "message_stop" });
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    mainLoopRequests: () => requests.filter((r) => r.isMainLoop),
    push: (...more) => void script.push(...more),
    pushTo: (name, ...more) => {
      if (!scripts.has(name)) scripts.set(name, []);
      scripts.get(name)!.push(...more);
    },
    remaining: (name = "default") => scripts.get(name)?.length ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t); // pending delayed answers are dropped
        timers.clear();
        server.closeAllConnections(); // don't wait for claude's keep-alive sockets
        server.close(() => resolve());
      }),
  };
}

function messageJson(id: string, content: Block[], stopReason: string | null, body: any, inputTokens: number) {
  return {
    id,
    type: "message",
    role: "assistant",
    model: typeof body?.model === "string" ? body.model : DEFAULT_MODEL,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: {
      input_tokens: inputTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: content.length ? 5 : 0,
    },
  };
}

function sendJson(res: http.ServerResponse, status: number, data: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(data));
}

// Roughly 4 characters per token, like real tokenizers on English/JSON; enough
// for the CLI to compute a plausible non-zero cost.
function estimateTokens(s: string): number {
  return Math.max(1, Math.ceil(s.length / 4));
}
