import { commandStore } from "./command-store.js";
import { Command } from "commander";
import * as z from "../base/zod.js";
import path from "node:path";
import { existsSync } from "node:fs";
import { type Store } from "../store/store.js";
import { UserError } from "../base/errors.js";
import { visible } from "../base/inert-text.js";
import { printJson, writeErr, writeOut } from "../terminal/output.js";
import { canOpenBrowser, openBrowser } from "../web/open-browser.js";
import { startWebServer } from "../web/server/app.js";
import { parseOptions } from "./parse-options.js";

const Options = z.object({
  port: z.optional(
    z.string().check(
      z.regex(/^\d{1,5}$/, "a port number (0 for a free one)"),
      z.refine((p) => Number(p) <= 65535, "a port is at most 65535"),
    ),
  ),
  host: z.string().check(z.minLength(1), z.maxLength(255)),
  open: z.boolean(),
  json: z.optional(z.boolean()),
  maxLive: z.optional(z.coerce.number().check(z.int(), z.gte(1), z.lte(32))),
  claudeBin: z.optional(z.string().check(z.minLength(1))),
  repo: z.array(z.string().check(z.minLength(1), z.maxLength(4096))),
});

const LOOPBACK = /^(127(\.\d{1,3}){3}|localhost|::1)$/;

export const webCommand = new Command("web")
  .description("browse this repository's sessions in the browser: follow live ones, diff, rewind, fork, export")
  .option("--port <n>", "port to listen on (default: the last start's when free, else a free one; 0: a free one)")
  .option("--host <address>", "address to listen on", "127.0.0.1")
  .option("--no-open", "do not open the browser")
  .option("--json", "print the URL as JSON ({ url, host, port, repo })")
  .option("--max-live <n>", "sessions the page may drive at once (default 4)")
  .option(
    "--repo <path>",
    "serve this repository's sessions too, under /r/<name>/ (repeat for more)",
    (value: string, all: string[]) => [...all, value],
    [] as string[],
  )
  .option(
    "--claude-bin <path>",
    "the claude executable for sessions started from the page (default: $NUDGE_CLAUDE_BIN, then PATH)",
  )
  .addHelpText(
    "after",
    `
Serves the sessions of the repository it is started in, and of each named with --repo (the page
lists them; sessions can be started and continued in each, one per work tree). The
URL it prints holds a random token: the first visit trades it for a cookie. Only this machine can
connect unless --host says otherwise; anyone who can reach that address with the token can rewind
your code, and start claude in it. The browser opens by itself when there is a display and
stdout is a terminal. Ctrl-C stops it, and every session started from the page (a turn in
flight is kept as interrupted).

Exit codes: 0 stopped with Ctrl-C or SIGTERM, 1 could not start (the message says why).

Examples:
  $ nudge web
  $ nudge web --port 8080 --no-open
  $ nudge web --repo ../api --repo ../infra
  $ nudge web --json --no-open | jq -r .url`,
  )
  .action(async (raw: unknown) => {
    const o = parseOptions(Options, raw);
    const store = await commandStore(process.cwd());
    const more = await otherRepos(store, o.repo);
    const server = await startWebServer({
      store,
      more,
      host: o.host,
      port: o.port === undefined ? null : Number(o.port),
      maxLive: o.maxLive ?? 4,
      claudeBin: o.claudeBin,
      warn: (line) => writeErr(`! ${visible(line)}\n`),
    });
    // Registered before the URL is printed: a script that reads it and sends SIGTERM at once still gets a clean stop.
    const stopped = new Promise<string>((resolve) => {
      process.once("SIGINT", () => resolve("SIGINT"));
      process.once("SIGTERM", () => resolve("SIGTERM"));
    });
    if (o.json)
      printJson({
        url: server.url,
        urls: server.urls,
        host: o.host,
        port: server.port,
        repo: store.repoRoot,
        repos: server.app.repos.map((r) => ({
          root: r.store.repoRoot,
          path: r === server.app.repos[0] ? "/" : `/r/${r.key}/`,
        })),
      });
    else writeOut(`nudge web: ${server.url}\n`);
    const roots = server.app.repos.map((r) => r.store.repoRoot);
    writeErr(
      `serving the sessions of ${roots.join(", ")}${roots.length === 1 ? " (--repo <path> serves another's too)" : ""}; Ctrl-C stops it\n`,
    );
    if (!LOOPBACK.test(o.host))
      writeErr(
        `warning: listening on ${o.host}: anyone who can reach that address with the token can read your sessions and rewind your code\n`,
      );
    for (const other of server.urls.filter((u) => u !== server.url)) writeErr(`  from another machine: ${other}\n`);
    if (o.open && canOpenBrowser()) openBrowser(server.url);
    await stopped;
    const driven = server.app.live.size;
    if (driven > 0) writeErr(`stopping ${driven} session${driven === 1 ? "" : "s"} started from the page…\n`);
    await server.close();
  });

/** The stores of the repositories named with --repo: each a git repository, each once, none the one started in. */
async function otherRepos(first: Store, paths: string[]): Promise<Store[]> {
  if (paths.length && process.env.NUDGE_STORE)
    throw new UserError(
      "--repo cannot be used with NUDGE_STORE set",
      "NUDGE_STORE points every repository at one store: unset it to serve several",
    );
  const stores: Store[] = [];
  for (const p of paths) {
    // A --repo that was never there is a typo, not a work tree since removed (git-process's reading).
    if (!existsSync(path.resolve(p)))
      throw new UserError(
        `--repo ${p}: there is no folder ${path.resolve(p)}`,
        "check the path: --repo names a folder inside a git repository",
      );
    const store = await commandStore(path.resolve(p)).catch((error: unknown) => {
      throw new UserError(
        `--repo ${p}: ${(error as Error).message}`,
        (error as UserError).hint ?? "name a folder inside a git repository",
      );
    });
    if (store.repoRoot === first.repoRoot || stores.some((s) => s.repoRoot === store.repoRoot)) continue;
    stores.push(store);
  }
  return stores;
}
