/**
 * `nudge web`'s guard, over real HTTP against the built CLI serving a real recorded session:
 * the URL it prints, the token traded for a cookie, and every request that must be refused —
 * no token, a wrong one, a foreign Host (DNS rebinding), a foreign Origin (on a POST and on the
 * event stream), a POST without the CSRF token, a GET or PUT on an action, an oversized body —
 * with nothing changed, and the security headers on every answer.
 */
import { readFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";
import { until } from "../support/until.js";
import { openSse, serveThreeTurnsForFile, startWeb, type WebServerRun } from "../support/web-server.js";

let repo = "";
let id = "";
let web: WebServerRun;
serveThreeTurnsForFile((served) => ((repo = served.repo), (id = served.id), (web = served.web)));

/** What the repository and the session look like: an action that did anything changes it. */
const stateOf = async () => ({
  status: await git(repo, "status", "--porcelain", "-uall"),
  notes: readFileSync(path.join(repo, "notes.txt"), "utf8"),
  header: readFileSync(path.join(repo, ".git/nudge/sessions", id, "manifest.json"), "utf8"),
  refs: await git(repo, "for-each-ref", "refs/nudge/"),
});

describe("nudge web: who may talk to it", () => {
  it("prints one URL line with a random token, and says on stderr what it serves", async () => {
    expect(web.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    // stderr is another pipe: its line may come after the URL's (this raced in CI).
    await until("the stderr line", async () => (web.stderr().includes("serving the sessions of") ? true : undefined));
    expect(web.stderr()).toContain(`serving the sessions of ${repo}`);
  });

  it("trades the token in the URL for an HttpOnly SameSite=Strict cookie and redirects to the URL without it", async () => {
    const answer = await web.request(`/s/${id}?token=${web.token}&turn=2`);
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe(`/s/${id}?turn=2`);
    expect(answer.headers["set-cookie"]).toEqual([
      `nudge_token_${web.port}=${web.token}; HttpOnly; SameSite=Strict; Path=/`,
    ]);
    const list = await web.get("/api/sessions");
    expect(list.status).toBe(200);
    expect(list.headers["cache-control"]).toBe("no-store");
    expect((JSON.parse(list.body) as Array<{ id: string }>).map((s) => s.id)).toContain(id);
    expect(web.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("keeps the login of a second server on the same machine apart (a browser keeps cookies per host name, not per port)", async () => {
    const other = await startWeb(repo);
    try {
      const login = await other.request(`/?token=${other.token}`);
      const otherCookie = String(login.headers["set-cookie"]?.[0]).split(";")[0]!;
      // What a browser sends to 127.0.0.1 after logging in to both: its cookies for that host, any port.
      const jar = `${web.cookie}; ${otherCookie}`;
      expect((await web.request("/api/sessions", { headers: { cookie: jar } })).status).toBe(200);
      expect((await other.request("/api/sessions", { headers: { cookie: jar } })).status).toBe(200);
    } finally {
      await other.stop();
    }
  });

  it("a second server with its own --port leaves the port kept for the first alone (QA: its open pages would look on the second's port after a restart)", async () => {
    const kept = () =>
      (JSON.parse(readFileSync(path.join(repo, ".git/nudge/web-login.json"), "utf8")) as { port: number }).port;
    const before = kept();
    const other = await startWeb(repo, {}, [], "0");
    try {
      expect(other.port).not.toBe(before);
      expect(kept()).toBe(before);
    } finally {
      await other.stop();
    }
  });

  it("on every address (--host 0.0.0.0), answers under this machine's own addresses, and still refuses a name (QA: only 0.0.0.0 itself was let in)", async () => {
    const own = Object.values(os.networkInterfaces())
      .flatMap((list) => list ?? [])
      .map((a) => a.address)
      .filter((a) => a.includes(".") && a !== "127.0.0.1");
    const every = await startWeb(repo, {}, ["--host", "0.0.0.0"], "0");
    try {
      for (const address of own)
        expect(
          (
            await every.request("/api/sessions", {
              headers: { host: `${address}:${every.port}`, cookie: every.cookie },
            })
          ).status,
        ).toBe(200);
      expect(
        (
          await every.request("/api/sessions", {
            headers: { host: `rebind.example:${every.port}`, cookie: every.cookie },
          })
        ).status,
      ).toBe(403);
      // The address printed is one a browser can open (0.0.0.0 is none), and each of this machine's others is named.
      expect(new URL(every.url).hostname).toBe("127.0.0.1");
      await until("the other addresses printed", async () =>
        own.every((address) =>
          every.stderr().includes(`from another machine: http://${address}:${every.port}/?token=${every.token}`),
        )
          ? true
          : undefined,
      );
      expect(every.stderr()).not.toContain("http://0.0.0.0");
    } finally {
      await every.stop();
    }
  });

  it("refuses every request without the token, or with a wrong one, assets included (403)", async () => {
    const wrong = "x".repeat(43);
    for (const [p, headers] of [
      ["/", {}],
      ["/api/sessions", {}],
      [`/api/sessions/${id}`, { cookie: `nudge_token_${web.port}=${wrong}` }],
      ["/assets/page.js", {}],
      [`/api/sessions?token=${wrong}`, {}],
      [`/api/sessions/${id}/events`, { cookie: `nudge_token_${web.port}=` }],
    ] as Array<[string, Record<string, string>]>) {
      const answer = await web.request(p, { headers });
      expect(answer.status, p).toBe(403);
      expect(JSON.parse(answer.body)).toMatchObject({
        error: expect.stringMatching(/^forbidden: /),
        hint: expect.any(String),
      });
    }
  });

  it("refuses a request under a foreign Host, even with the token (DNS rebinding)", async () => {
    for (const host of [`evil.example:${web.port}`, `127.0.0.1:${web.port + 1}`, "127.0.0.1"]) {
      const answer = await web.request("/api/sessions", { headers: { host, cookie: web.cookie } });
      expect(answer.status, host).toBe(403);
      expect(answer.body).toContain("answers only to its own address");
    }
    for (const host of [`localhost:${web.port}`, `[::1]:${web.port}`])
      expect((await web.request("/api/sessions", { headers: { host, cookie: web.cookie } })).status).toBe(200);
  });

  it("refuses a second Host header and a target that names its own address (what a browser never sends)", async () => {
    const raw = (head: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(web.port, "127.0.0.1", () =>
          socket.write(`${head}\r\nCookie: ${web.cookie}\r\n\r\n`),
        );
        let answer = "";
        socket.on("data", (chunk) => (answer += chunk.toString()));
        socket.on("end", () => resolve(answer.split("\r\n")[0]!));
        socket.on("error", reject);
      });
    const own = `Host: 127.0.0.1:${web.port}`;
    expect(await raw(`GET /api/sessions HTTP/1.1\r\n${own}\r\nConnection: close`)).toBe("HTTP/1.1 200 OK");
    expect(await raw(`GET /api/sessions HTTP/1.1\r\n${own}\r\nHost: evil.example\r\nConnection: close`)).toBe(
      "HTTP/1.1 403 Forbidden",
    );
    expect(await raw(`GET http://evil.example/api/sessions HTTP/1.1\r\n${own}\r\nConnection: close`)).toBe(
      "HTTP/1.1 403 Forbidden",
    );
  });

  it("refuses a foreign Origin on a POST and on the event stream, and a cross-site fetch", async () => {
    const before = await stateOf();
    const body = JSON.stringify({ confirm: false, turn: 1 });
    const post = (headers: Record<string, string>) =>
      web.request(`/api/sessions/${id}/rewind`, {
        method: "POST",
        headers: { cookie: web.cookie, "x-nudge-csrf": web.csrf, "content-type": "application/json", ...headers },
        body,
      });
    expect((await post({ origin: "http://evil.example" })).status).toBe(403);
    expect((await post({ origin: `http://127.0.0.1:${web.port + 1}` })).status).toBe(403);
    expect((await post({})).status).toBe(403); // a browser always sends Origin on a POST
    expect((await post({ origin: web.origin, "sec-fetch-site": "cross-site" })).status).toBe(403);
    const stream = await web.request(`/api/sessions/${id}/events`, {
      headers: { cookie: web.cookie, origin: "http://evil.example" },
    });
    expect(stream.status).toBe(403);
    const list = await web.request("/api/events", { headers: { cookie: web.cookie, "sec-fetch-site": "cross-site" } });
    expect(list.status).toBe(403);
    expect(await stateOf()).toEqual(before);
  });

  it("refuses a POST without the right CSRF token", async () => {
    const before = await stateOf();
    for (const csrf of [undefined, "", web.token, `${web.csrf}x`]) {
      const headers: Record<string, string> = {
        cookie: web.cookie,
        origin: web.origin,
        "content-type": "application/json",
      };
      if (csrf !== undefined) headers["x-nudge-csrf"] = csrf;
      const answer = await web.request(`/api/sessions/${id}/rm`, {
        method: "POST",
        headers,
        body: JSON.stringify({ confirm: false }),
      });
      expect(answer.status, String(csrf)).toBe(403);
      expect(answer.body).toContain("x-nudge-csrf");
    }
    expect(await stateOf()).toEqual(before);
  });

  it("answers 405 to a GET, HEAD, PUT or DELETE on an action, and changes nothing", async () => {
    const before = await stateOf();
    for (const action of ["rewind?turn=1&confirm=true", "fork?turn=1", "export", "rm?confirm=true"]) {
      const answer = await web.get(`/api/sessions/${id}/${action}`);
      expect(answer.status, action).toBe(405);
      expect(answer.headers.allow).toBe("POST");
    }
    for (const method of ["PUT", "DELETE", "PATCH", "HEAD"]) {
      const answer = await web.request(`/api/sessions/${id}/rm`, {
        method,
        headers: { cookie: web.cookie, origin: web.origin, "x-nudge-csrf": web.csrf },
      });
      expect(answer.status, method).toBe(405);
    }
    expect((await web.get(`/api/sessions/${id}`)).status).toBe(200);
    expect(await stateOf()).toEqual(before);
  });

  it("refuses a body over 256 KB (413), one that is not JSON, and fields an action does not take (400)", async () => {
    const big = await web.post(`/api/sessions/${id}/rewind`, { confirm: false, turn: 1, pad: "x".repeat(260 * 1024) });
    expect(big.status).toBe(413);
    // A prompt one character too long, in a script of 3 bytes a character: refused by its length in
    // the page's words, not as a body too large (QA: "larger than 64 KB" for 22,000 characters).
    const long = await web.post("/api/live", { prompt: "漢".repeat(32_001) });
    expect(long.status).toBe(400);
    expect(JSON.parse(long.body)).toEqual({
      error: "the prompt: is longer than 32,000 characters",
      hint: "correct it and try again",
    });
    const notJson = await web.request(`/api/sessions/${id}/rewind`, {
      method: "POST",
      headers: { cookie: web.cookie, origin: web.origin, "x-nudge-csrf": web.csrf, "content-type": "application/json" },
      body: "{turn:",
    });
    expect(notJson.status).toBe(400);
    const extra = await web.post(`/api/sessions/${id}/rewind`, { confirm: false, turn: 1, force: true });
    expect(extra.status).toBe(400);
    expect(JSON.parse(extra.body).error).toMatch(/^invalid body/);
    const badTurn = await web.post(`/api/sessions/${id}/rewind`, { confirm: false, turn: -1 });
    expect(badTurn.status).toBe(400);
    expect((await web.get(`/api/sessions/${id}/turns/1e3`)).status).toBe(400);
    expect((await web.get("/api/sessions/ffffffffff")).status).toBe(404);
  });

  it("sends the CSP and the other security headers on every answer: pages, API, errors, redirects, streams", async () => {
    const stream = openSse(web.port, "/api/events", { cookie: web.cookie });
    const res = await stream.opened;
    expect(res.headers["content-security-policy"]).toBeDefined();
    stream.close();
    expect(web.answers.length).toBeGreaterThan(30);
    for (const answer of [...web.answers, { status: res.statusCode!, headers: res.headers, body: "" }]) {
      expect(answer.headers["content-security-policy"], `${answer.status} ${answer.body.slice(0, 80)}`).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
      );
      expect(answer.headers["x-content-type-options"]).toBe("nosniff");
      expect(answer.headers["referrer-policy"]).toBe("no-referrer");
      expect(answer.headers["cross-origin-opener-policy"]).toBe("same-origin");
      expect(answer.headers["cross-origin-resource-policy"]).toBe("same-origin");
    }
  });

  it("refuses what it cannot serve with one line and a hint (exit 1): a bad port, a port in use, an address not of this machine", async () => {
    for (const [args, message] of [
      [["--port", "99999"], 'error: invalid --port: a port is at most 65535, got "99999"'],
      [["--port", String(web.port)], `error: port ${web.port} is in use`],
      [["--host", "192.0.2.1"], "error: cannot listen on 192.0.2.1: no such address here"],
    ] as Array<[string[], string]>) {
      const run = await runNudge(["web", "--no-open", ...args], { cwd: repo });
      expect(run.exitCode, args.join(" ")).toBe(1);
      const [first, hint, ...rest] = run.stderr.split("\n");
      expect(first).toBe(message);
      expect(hint).toMatch(/^hint: \S/);
      expect(rest).toEqual([]); // one line and its hint (execa drops the last newline)
      expect(run.stdout).toBe("");
    }
  });
});
