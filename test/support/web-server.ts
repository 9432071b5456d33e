/**
 * `nudge web` as a user starts it: the built CLI as a real process in a real repository, its URL
 * read from stdout; and plain node http requests to it (node's fetch may not set Host), each
 * answer kept so a test can check what every answer carried.
 */
import { execa, type ResultPromise } from "execa";
import http from "node:http";
import { afterAll, beforeAll, expect } from "vitest";
import { NUDGE_CLI } from "./run-nudge.js";
import { recordThreeTurnsForFile } from "./three-turns.js";

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface WebServerRun {
  proc: ResultPromise<{ buffer: false }> & ResultPromise;
  url: string;
  port: number;
  origin: string;
  token: string;
  /** The request headers of a logged-in page: cookie (and, for a POST, Origin and the CSRF token). */
  cookie: string;
  csrf: string;
  stderr: () => string;
  answers: Answer[];
  request(
    path: string,
    o?: { method?: string; headers?: Record<string, string>; body?: string | Buffer },
  ): Promise<Answer>;
  get(path: string): Promise<Answer>;
  /** A POST as the page sends it: cookie, Origin, CSRF token, JSON. */
  post(path: string, body: unknown): Promise<Answer>;
  stop(signal?: NodeJS.Signals): Promise<Stopped>;
}

/** How `nudge web` ended: its status, or the signal that ended it, and how long after being asked to stop. */
interface Stopped {
  exitCode: number | undefined;
  signal: string | undefined;
  ms: number;
  stdout: string;
  stderr: string;
}

/**
 * Stopped with status 0; if not, the failure says how it ended (execa sends SIGKILL 20 s after a
 * stop nothing answered, so "SIGKILL after 20,0xx ms" is a server that did not exit, not one that crashed).
 */
export async function expectCleanStop(web: WebServerRun | undefined): Promise<void> {
  if (!web) return;
  const s = await web.stop();
  // Slow but clean is no failure: noted in the test's output, for whoever looks into why.
  if (s.ms > 5_000) console.warn(`nudge web took ${Math.round(s.ms)} ms to stop after SIGTERM`);
  expect(
    s.exitCode,
    `nudge web ended by ${s.signal ?? "no signal"} ${Math.round(s.ms)} ms after SIGTERM; stderr: ${s.stderr.slice(-2000)}`,
  ).toBe(0);
}

/** `port`: what --port says (default "0", a free port); null leaves it out (the last start's port). */
export async function startWeb(
  cwd: string,
  env: Record<string, string> = {},
  args: string[] = [],
  portArg: string | null = "0",
): Promise<WebServerRun> {
  const proc = execa(
    "node",
    [NUDGE_CLI, "web", "--no-open", ...(portArg === null ? [] : ["--port", portArg]), ...args],
    // A stop is given 20 s before SIGKILL (execa's default is 5): under a loaded CI a clean stop
    // took longer once, and what is asserted is that it stops cleanly, not how fast.
    { cwd, env: { NO_COLOR: "1", ...env }, reject: false, buffer: false, forceKillAfterDelay: 20_000 },
  ) as WebServerRun["proc"];
  let out = "";
  let err = "";
  proc.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const line = /^nudge web: (\S+)\n/m.exec(out);
      if (line) resolve(line[1]!);
    });
    void proc.then(() => reject(new Error(`nudge web stopped before printing its URL: ${err}`)));
  });
  const parsed = new URL(url);
  const port = Number(parsed.port);
  const token = parsed.searchParams.get("token")!;
  const answers: Answer[] = [];
  const request: WebServerRun["request"] = (path, o = {}) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port,
          path,
          method: o.method ?? "GET",
          headers: { host: `127.0.0.1:${port}`, ...o.headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const answer = {
              status: res.statusCode!,
              headers: res.headers,
              body: Buffer.concat(chunks).toString("utf8"),
            };
            answers.push(answer);
            resolve(answer);
          });
        },
      );
      req.on("error", reject);
      req.end(o.body);
    });
  const cookie = `nudge_token_${port}=${token}`;
  const page = await request("/", { headers: { cookie } });
  const csrf = /<meta name="nudge-csrf" content="([^"]+)">/.exec(page.body)?.[1] ?? "";
  const origin = `http://127.0.0.1:${port}`;
  return {
    proc,
    url,
    port,
    origin,
    token,
    cookie,
    csrf,
    stderr: () => err,
    answers,
    request,
    get: (path) => request(path, { headers: { cookie } }),
    post: (path, body) =>
      request(path, {
        method: "POST",
        headers: { cookie, origin, "x-nudge-csrf": csrf, "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    async stop(signal = "SIGTERM") {
      const asked = performance.now();
      proc.kill(signal);
      const result = await proc;
      return {
        exitCode: result.exitCode,
        signal: result.signal,
        ms: performance.now() - asked,
        stdout: out,
        stderr: err,
      };
    },
  };
}

/**
 * The file's recorded three-turn session, served by `nudge web` for all its tests; the server
 * must stop with status 0 after them.
 */
export function serveThreeTurnsForFile(use: (served: { repo: string; id: string; web: WebServerRun }) => void): void {
  let repo = "";
  let id = "";
  let web: WebServerRun | undefined;
  recordThreeTurnsForFile((r) => ((repo = r.repo), (id = r.id)));
  beforeAll(async () => {
    web = await startWeb(repo);
    use({ repo, id, web });
  });
  afterAll(() => expectCleanStop(web));
}

export interface SseEvent {
  id: string | null;
  event: string;
  data: string;
}

/** An open event stream: every event received, and a wait for the next one that matches. */
export function openSse(port: number, path: string, headers: Record<string, string>) {
  const events: SseEvent[] = [];
  const waiters: Array<{ match: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }> = [];
  let response!: http.IncomingMessage;
  let ended!: Promise<void>;
  const opened = new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = http.get(
      {
        host: "127.0.0.1",
        port,
        path,
        headers: { host: `127.0.0.1:${port}`, accept: "text/event-stream", ...headers },
      },
      (res) => {
        response = res;
        ended = new Promise((done) => res.on("end", done).on("close", done));
        let buffer = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          buffer += chunk;
          let at: number;
          while ((at = buffer.indexOf("\n\n")) !== -1) {
            const block = buffer.slice(0, at);
            buffer = buffer.slice(at + 2);
            const e: SseEvent = { id: null, event: "message", data: "" };
            let has = false;
            for (const line of block.split("\n")) {
              const [field, ...rest] = line.split(":");
              const value = rest.join(":").replace(/^ /, "");
              if (field === "id") e.id = value;
              else if (field === "event") ((e.event = value), (has = true));
              else if (field === "data") ((e.data = value), (has = true));
            }
            if (!has) continue;
            events.push(e);
            for (const w of [...waiters]) if (w.match(e)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(e));
          }
        });
        resolve(res);
      },
    );
    req.on("error", reject);
  });
  return {
    events,
    opened,
    get response() {
      return response;
    },
    get ended() {
      return ended;
    },
    /** The first event (already received or still to come) that matches. */
    next(match: (e: SseEvent) => boolean, from = 0): Promise<SseEvent> {
      const seen = events.slice(from).find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
    close() {
      response?.destroy();
    },
  };
}
