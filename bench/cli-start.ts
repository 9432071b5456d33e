/**
 * How fast the CLI starts, as whole processes against `node -e 0` in the same environment:
 * `nudge --version`, and `nudge session list` in a repository with ~20 sessions. This machine's
 * NODE_EXTRA_CA_CERTS makes every node start slower (node reads the certificates at start), so
 * both are measured with and without it. Also `session list` and `session show` of a 1,000-turn
 * session against a 1-turn one (each alone in a store of its own, NUDGE_STORE, same repository).
 */
import { cpSync, mkdirSync } from "node:fs";
import path from "node:path";
import { scratchDir } from "./repo.js";
import { CLI, claudeConfig, prompts, runSession } from "./session.js";
import { alternate, median, progress, timeProcess } from "./stats.js";

export interface StartResult {
  rounds: number;
  sessions: number;
  /** Medians in ms, by environment. */
  withCerts: { node: number; version: number; list: number };
  withoutCerts: { node: number; version: number; list: number };
  /** With the certificates, node's compile cache off. */
  noCache: { version: number; list: number };
  certs: string | undefined;
}

export async function cliStart(repo: string, wantSessions: number, rounds: number): Promise<StartResult> {
  const existing = (await timeProcess(process.execPath, [CLI, "session", "list", "--json"], { cwd: repo })).stdout;
  const have = (JSON.parse(existing) as unknown[]).length;
  progress(
    `CLI start: recording ${Math.max(0, wantSessions - have)} more one-turn sessions (for ${wantSessions} in all)`,
  );
  for (let i = have; i < wantSessions; i++) await runSession(repo, prompts(repo, 1, "small"));
  const withCerts = { ...process.env };
  const withoutCerts = { ...process.env };
  delete withoutCerts.NODE_EXTRA_CA_CERTS;
  const env = (certs: boolean, cache = true) => ({
    ...(certs ? withCerts : withoutCerts),
    CLAUDE_CONFIG_DIR: claudeConfig(),
    ...(cache ? {} : { NODE_DISABLE_COMPILE_CACHE: "1" }),
  });
  progress(
    `CLI start: ${rounds} rounds of node -e 0, nudge --version, nudge session list, with and without NODE_EXTRA_CA_CERTS, and without the compile cache`,
  );
  const run =
    (args: string[], certs: boolean, cache = true) =>
    async () =>
      (await timeProcess(process.execPath, args, { cwd: repo, env: env(certs, cache) })).ms;
  const s = await alternate(rounds, {
    node: run(["-e", "0"], true),
    version: run([CLI, "--version"], true),
    list: run([CLI, "session", "list"], true),
    nodeBare: run(["-e", "0"], false),
    versionBare: run([CLI, "--version"], false),
    listBare: run([CLI, "session", "list"], false),
    versionNoCache: run([CLI, "--version"], true, false),
    listNoCache: run([CLI, "session", "list"], true, false),
  });
  return {
    rounds,
    sessions: wantSessions,
    withCerts: { node: median(s.node!), version: median(s.version!), list: median(s.list!) },
    withoutCerts: { node: median(s.nodeBare!), version: median(s.versionBare!), list: median(s.listBare!) },
    noCache: { version: median(s.versionNoCache!), list: median(s.listNoCache!) },
    certs: process.env.NODE_EXTRA_CA_CERTS,
  };
}

export interface LongListResult {
  rounds: number;
  longTurns: number;
  list: { long: number; short: number };
  show: { long: number; short: number };
}

/** `session list` / `session show` of a long session against a one-turn session, each alone in a store. */
export async function longSessionListing(
  repo: string,
  longId: string,
  longTurns: number,
  rounds: number,
): Promise<LongListResult> {
  progress("list/show: a one-turn session next to the long one, each copied into a store of its own");
  const short = await runSession(repo, prompts(repo, 1, "small"));
  const stores = { long: scratchDir("store-long"), short: scratchDir("store-short") };
  for (const [which, id] of [
    ["long", longId],
    ["short", short.id],
  ] as const) {
    mkdirSync(path.join(stores[which], "sessions"), { recursive: true });
    cpSync(path.join(repo, ".git", "nudge", "sessions", id), path.join(stores[which], "sessions", id), {
      recursive: true,
    });
  }
  const run = (which: "long" | "short", args: string[]) => async () =>
    (
      await timeProcess(process.execPath, [CLI, "session", ...args], {
        cwd: repo,
        env: { ...process.env, NUDGE_STORE: stores[which], CLAUDE_CONFIG_DIR: claudeConfig() },
      })
    ).ms;
  progress(`list/show: ${rounds} rounds of session list and session show, ${longTurns}-turn against 1-turn`);
  const s = await alternate(rounds, {
    listLong: run("long", ["list"]),
    listShort: run("short", ["list"]),
    showLong: run("long", ["show", longId]),
    showShort: run("short", ["show", short.id]),
  });
  return {
    rounds,
    longTurns,
    list: { long: median(s.listLong!), short: median(s.listShort!) },
    show: { long: median(s.showLong!), short: median(s.showShort!) },
  };
}
