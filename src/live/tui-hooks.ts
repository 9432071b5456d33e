/**
 * The private channel between claude's own UI and the nudge recording under it: claude's `http`
 * hooks POST each event to a loopback server that only answers a path holding a per-session secret.
 * The hooks go in a settings file of mode 0600 in the session folder, given with `--settings`
 * (never the user's settings files; never the command line, which every local user can read).
 *
 * Measured with the pinned claude (2.1.329, test/session/tui-run.test.ts): http hooks are called
 * for UserPromptSubmit, PreToolUse, Stop, StopFailure, SessionEnd, PreCompact and wait for the
 * answer (a late PreToolUse answer holds the tool); an http SessionStart hook is not called, and
 * none is needed (every event carries the session id). A hook that cannot connect fails at once
 * and claude goes on; one that gets no answer gives up after its `timeout`.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { writeFileAtomic } from "../store/atomic-write.js";
import type { HookRegistration, PreToolUseOutput } from "../claude/control-protocol.js";
import { errorMessage } from "../base/errors.js";

import { HookInput } from "./hook-input.js";

export { HookInput };

/** The events nudge records by; each is answered by `onEvent`. */
const RECORDED_EVENTS = ["UserPromptSubmit", "Stop", "StopFailure"] as const;
export type RecordedEvent = (typeof RECORDED_EVENTS)[number];

/**
 * Seconds claude waits for an answer. The gate on claude's tools waits for a capture of the work
 * tree (seconds at most, even at 100k files); the rest answer at once. A nudge that is stopped
 * (SIGSTOP) costs claude this long per call, never more.
 */
const TIMEOUT_S = { gate: 60, event: 10 };

/** A tool call's input can be a whole file (Write): bounded, and a larger body is passed unread. */
const MAX_BODY = 32 * 1024 * 1024;

export interface HookHandlers {
  onEvent(event: RecordedEvent, input: HookInput): Promise<object> | object;
  /** A PreToolUse hook registered by a guard (the edits gate, the project's rules). */
  onCallback(callbackId: string, input: HookInput): Promise<object> | object;
}

export class HookServer {
  private constructor(
    private readonly server: http.Server,
    private readonly secret: string,
    readonly port: number,
  ) {}

  static async start(handlers: HookHandlers): Promise<HookServer> {
    const secret = randomBytes(24).toString("hex");
    const server = http.createServer((req, res) => void answer(req, res, secret, handlers));
    // Never keep nudge alive, never hold claude's connection open between calls.
    server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    return new HookServer(server, secret, (server.address() as AddressInfo).port);
  }

  private url(path: string): string {
    return `http://127.0.0.1:${this.port}/${this.secret}/${path}`;
  }

  /** claude's `--settings`: an http hook per recorded event, and one per guard callback. */
  settings(guards: HookRegistration): object {
    const hooks: Record<string, unknown[]> = {};
    const add = (event: string, matcher: string, url: string, timeout: number) =>
      (hooks[event] ??= []).push({ matcher, hooks: [{ type: "http", url, timeout }] });
    for (const event of RECORDED_EVENTS) add(event, "", this.url(`event/${event}`), TIMEOUT_S.event);
    for (const [event, entries] of Object.entries(guards)) {
      for (const entry of entries ?? [])
        for (const id of entry.hookCallbackIds)
          add(event, entry.matcher, this.url(`callback/${encodeURIComponent(id)}`), TIMEOUT_S.gate);
    }
    return { hooks };
  }

  /** Written where only this user can read it: the file holds the secret. */
  async writeSettings(file: string, guards: HookRegistration): Promise<void> {
    await writeFileAtomic(file, `${JSON.stringify(this.settings(guards))}\n`, 0o600);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function answer(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  secret: string,
  handlers: HookHandlers,
): Promise<void> {
  const reply = (status: number, body: object) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const parts = (req.url ?? "").split("/");
  // Anything but a POST to this session's secret path is not claude's hook: no answer worth having.
  if (req.method !== "POST" || parts[1] !== secret || parts.length !== 4) return reply(404, {});
  const [kind, name] = [parts[2], decodeURIComponent(parts[3]!)];
  // claude takes `{}` as "no decision": for a guard (the edits gate, the project's rules) that is an allow, so a call it could not judge is denied.
  const failed = (why: string) => reply(200, kind === "callback" ? refusal(why) : {});
  let body: Buffer;
  try {
    body = await readBody(req);
  } catch {
    return failed(`nudge could not read this tool call (larger than ${MAX_BODY / 1024 / 1024} MB)`);
  }
  let input: HookInput;
  try {
    input = HookInput.parse(JSON.parse(body.toString("utf8")));
  } catch {
    return failed("nudge could not read this tool call"); // for an event: claude goes on as if there were no hook
  }
  try {
    if (kind === "event" && (RECORDED_EVENTS as readonly string[]).includes(name))
      return reply(200, await handlers.onEvent(name as RecordedEvent, input));
    if (kind === "callback") return reply(200, await handlers.onCallback(name, input));
    return reply(404, {});
  } catch (error) {
    // The recording's own failure is said by the recording; claude is never broken by it.
    return failed(`nudge could not check this tool call (${errorMessage(error)})`);
  }
}

/** A guard's answer when nudge could not judge the call: claude does not run it, and says why. */
function refusal(why: string): PreToolUseOutput {
  return {
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: `${why}; it was not run.`,
    },
  };
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        req.destroy();
        reject(new Error("hook input too large"));
      } else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}
