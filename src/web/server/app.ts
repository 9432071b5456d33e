/**
 * `nudge web`'s server: node's own http (no framework; the checks that keep the page's power to
 * rewind code to its owner are the ~100 lines of security.ts, in plain sight). Every request
 * gets the security headers, then the guard's verdict, then its route.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { UserError } from "../../base/errors.js";
import type { Store } from "../../store/store.js";
import type { App, RepoSite } from "./app-context.js";
import { Downloads } from "./downloads.js";
import { HttpError, sendError, sendJson } from "./http-io.js";
import { findRoute } from "./router.js";
import { ROUTES } from "./routes.js";
import { checkRequest, machineAddresses, makeGuard, securityHeaders } from "./security.js";
import { keepLogin, readKeptLogin } from "./kept-login.js";
import { pageAssetsDir } from "../page/assets.js";
import { Watchers } from "./watchers.js";
import { LivePool } from "../live/live-pool.js";

export interface WebServer {
  /** The URL to open: the token in it, once. */
  url: string;
  /** Every address the page can be opened at (on 0.0.0.0: loopback, then this machine's other addresses). */
  urls: string[];
  port: number;
  app: App;
  close(): Promise<void>;
}

/**
 * `port` null: the port of the last start when it is free (see kept-login.ts), else a free one.
 * `store` is the repository it was started in; `more` those named with --repo, served under `/r/<key>/`.
 */
export async function startWebServer(o: {
  store: Store;
  more?: Store[];
  host: string;
  port: number | null;
  maxLive?: number;
  claudeBin?: string;
  warn?: (line: string) => void;
}): Promise<WebServer> {
  const server = http.createServer();
  // A slow or stuck client cannot hold a connection open by sending its request forever.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  const kept = await readKeptLogin(o.store);
  // No --port: the port of the last start, so a page left open finds the server again; a free one when it is taken.
  const port =
    o.port === null
      ? await listen(server, o.host, kept?.port ?? 0).catch(() => listen(server, o.host, 0))
      : await listen(server, o.host, o.port);
  const guard = makeGuard(o.host, port, kept ?? undefined);
  // The port kept is the one a plain `nudge web` uses: a run with its own --port (another server
  // beside the first, a one-off) must not move the first's open pages to its port.
  if (!kept || o.port === null || kept.port === port)
    await keepLogin(o.store, { token: guard.token, csrf: guard.csrf, port });
  const repos = repoSites([o.store, ...(o.more ?? [])]);
  const app: App = {
    store: o.store,
    watchers: repos[0]!.watchers,
    repos,
    guard,
    key: randomBytes(32),
    streams: new Set(),
    downloads: new Downloads(),
    live: new LivePool({ max: o.maxLive ?? 4, claudeBin: o.claudeBin, warn: o.warn }),
    assetsDir: await pageAssetsDir().catch(() => null),
  };
  server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => void handle(app, req, res));
  const at = (host: string) => `http://${host.includes(":") ? `[${host}]` : host}:${port}/?token=${app.guard.token}`;
  // 0.0.0.0 and :: are no address a browser can open: this machine opens loopback, others one of its addresses.
  const wildcard = o.host === "0.0.0.0" || o.host === "::";
  return {
    url: at(wildcard ? "127.0.0.1" : o.host),
    urls: wildcard ? [at("127.0.0.1"), ...outsideAddresses(o.host).map(at)] : [at(o.host)],
    port,
    app,
    async close() {
      // First: each driven session's turn is stopped and saved, its lock released.
      await app.live.closeAll();
      for (const stream of [...app.streams]) stream.close();
      for (const repo of app.repos) repo.watchers.closeAll();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await Promise.all([closed, app.downloads.closeAll()]);
    },
  };
}

async function handle(app: App, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  securityHeaders(res);
  try {
    const url = new URL(req.url ?? "/", "http://nudge.invalid");
    const verdict = checkRequest(req, url, app.guard);
    if (verdict.kind === "deny") return sendJson(res, 403, { error: `forbidden: ${verdict.why}`, hint: verdict.hint });
    if (verdict.kind === "login") {
      res.writeHead(303, { Location: verdict.location, "Set-Cookie": verdict.cookie, "Cache-Control": "no-store" });
      return void res.end();
    }
    const method = req.method ?? "GET";
    if (!["GET", "HEAD", "POST"].includes(method))
      throw new HttpError(405, `${method} is not allowed`, "the API takes GET, and POST for actions", {
        allow: "GET, HEAD, POST",
      });
    const { site, pathname } = siteOf(app, url.pathname);
    const { handler, params } = findRoute(ROUTES, method, pathname);
    await handler({
      req,
      res,
      url,
      params,
      app: site === app.repos[0] ? app : { ...app, store: site.store, watchers: site.watchers },
    });
  } catch (error) {
    if (error instanceof HttpError && error.status === 405 && !res.headersSent)
      res.setHeader("Allow", String(error.extra.allow));
    // The request may be only half read (a body too large): close the connection after answering.
    if (error instanceof HttpError && (error.status === 413 || error.status === 408))
      res.setHeader("Connection", "close");
    sendError(res, error);
  }
}

/** Each repository's URL name: its folder's name, made URL-safe, numbered when two are alike. */
function repoSites(stores: Store[]): RepoSite[] {
  const taken = new Set<string>();
  return stores.map((store) => {
    const name =
      path
        .basename(store.repoRoot)
        .toLowerCase()
        .replace(/[^a-z0-9._-]+/g, "-")
        .replace(/^[^a-z0-9]+/, "")
        .slice(0, 40) || "repo";
    let key = name;
    for (let n = 2; taken.has(key); n++) key = `${name}-${n}`;
    taken.add(key);
    return { key, store, watchers: new Watchers(store) };
  });
}

/** The repository a path is for (`/r/<key>/…`, else the first) and the path within it. */
function siteOf(app: App, pathname: string): { site: RepoSite; pathname: string } {
  const prefixed = /^\/r\/([^/]+)(\/.*)?$/.exec(pathname);
  if (!prefixed) return { site: app.repos[0]!, pathname };
  const site = app.repos.find((r) => r.key === prefixed[1]);
  if (!site)
    throw new HttpError(
      404,
      `this server serves no repository named ${JSON.stringify(prefixed[1]!.slice(0, 60))}`,
      `it serves ${app.repos.map((r) => r.key).join(", ")}; start nudge web with --repo <path> for another`,
    );
  return { site, pathname: prefixed[2] ?? "/" };
}

function listen(server: http.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE")
        reject(new UserError(`port ${port} is in use`, "pick another with --port, or --port 0 for a free one"));
      else if (error.code === "EADDRNOTAVAIL" || error.code === "ENOTFOUND")
        reject(
          new UserError(
            `cannot listen on ${host}: no such address here`,
            "give --host an address of this machine, or leave it out for 127.0.0.1",
          ),
        );
      else if (error.code === "EACCES")
        reject(
          new UserError(`not allowed to listen on port ${port}`, "pick a port above 1023, or --port 0 for a free one"),
        );
      else reject(error);
    });
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/** This machine's own addresses another machine may reach it at: not loopback or link-local, IPv4 first (only IPv6 for `::`'s family too). */
function outsideAddresses(host: string): string[] {
  const all = machineAddresses().filter((a) => !/^(127\.|::1$|fe80:)/i.test(a));
  const v4 = all.filter((a) => !a.includes(":"));
  return host === "::" ? [...v4, ...all.filter((a) => a.includes(":"))] : v4;
}
