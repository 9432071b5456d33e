/**
 * `--sandbox` on Linux: claude runs under bubblewrap (`bwrap`, Debian's package `bubblewrap`) in
 * namespaces of its own (user without capabilities, pid, network, ipc, uts), seeing only an
 * allow-list of the file system (see sandbox/visible.ts): the work tree is writable, its .git is
 * read-only, the home folder and claude's config dir are private copies (sandbox/private-home.ts),
 * /tmp is empty and private, and the only way out is the Messages API (sandbox/api-gate.ts).
 * Everything claude starts (its Bash commands) inherits the same view.
 */
import { existsSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type net from "node:net";
import { UserError } from "../base/errors.js";
import type { ClaudeLaunch } from "./claude-process.js";
import {
  apiEndpoint,
  INNER_FORWARDER,
  INNER_PORT,
  INNER_SOCKET,
  startApiGate,
  type HostPort,
} from "./sandbox/api-gate.js";
import { makePrivateState } from "./sandbox/private-home.js";
import { projectConfigFiles } from "./sandbox/project-config.js";
import { programArgs, systemArgs } from "./sandbox/visible.js";

/** The work tree's git as found before claude ran (repoLocation; gitlinkPaths: its submodules, relative to the top). */
interface SandboxGit {
  gitDir: string;
  commonDir: string;
  gitlinks: string[];
}

/** What every sandbox of a work tree shares, found once (for the first): bubblewrap, git's folders, the folders shown. */
interface SandboxShared {
  bwrap: string;
  /** The work tree, writable unless this is a verifier's sandbox. */
  workTree: string;
  /** The work tree's git dir as found before claude ran: nudge's own git uses it, never one claude planted. */
  gitDir: string | null;
  /**
   * Inside the writable work tree, what must stay read-only: git's whole dir (its config, hooks,
   * refs, objects and nudge's store). nudge runs git there outside the sandbox after each turn.
   */
  gitReadOnly: string[];
  /** --sandbox-read's folders, resolved. */
  allowRead: string[];
  /** Folders whose .claude/ and .mcp.json claude reads (the work tree, the loop's folder). */
  configFolders: string[];
}

export interface Sandbox extends SandboxShared {
  /** Host folder → where it shows inside, writable: the private home and config dir. */
  privateBinds: Array<{ host: string; inside: string }>;
  /** Shown read-only before the writable ones: claude's config folders it only reads, --sandbox-read. */
  visible: string[];
  /** Folders claude may write (the work tree, its transcripts' folder); everything else is read-only or hidden. */
  writable: string[];
  /** Shown read-only after the writable ones: git's folders, claude's auto-memory. */
  readOnly: string[];
  /** Folders under `writable` hidden behind an empty private one (the verifier's view of claude's transcripts). */
  hidden: Array<{ host: string; inside: string }>;
  /** The project config files before claude ran (path → fingerprint); empty in a sandbox beside the first. */
  projectConfig: Map<string, string>;
  /** The private folder outside (mode 0700), removed by `close`. */
  privateDir: string;
  /** The gate's socket outside, and the environment that sends claude through it. */
  net: { socket: string; env: Record<string, string> };
  /** Stop the gate and remove the private copies. */
  close(): Promise<void>;
}

export interface SandboxOptions {
  workTree: string;
  /** Where claude runs: its transcripts' folder is named after it. */
  cwd: string;
  claudeConfigDir: string;
  env: NodeJS.ProcessEnv;
  /** The work tree's git (null: not in a repository). */
  git: SandboxGit | null;
  /** Hosts reachable through the gate's CONNECT besides the API (--sandbox-net). */
  allowNet?: HostPort[];
  /** More folders shown read-only (--sandbox-read): a toolchain outside /usr. */
  allowRead?: string[];
}

/** The private /tmp's size: 2 GiB, or a quarter of the memory on a smaller machine. */
const TMP_BYTES = Math.min(2 * 1024 ** 3, Math.floor(os.totalmem() / 4));

const INSTALL_HINT =
  "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or leave out --sandbox";

/** The sandbox for a work tree, after checking that bwrap is there and can make one here. */
export async function prepareSandbox(o: SandboxOptions): Promise<Sandbox> {
  const bwrap = findOnPath("bwrap", o.env.PATH ?? "");
  if (!bwrap) throw new UserError("--sandbox needs bubblewrap (bwrap), which is not installed", INSTALL_HINT);
  for (const p of o.allowRead ?? [])
    if (!existsSync(p))
      throw new UserError(
        `--sandbox-read: no such file or folder: ${p}`,
        "name a folder to show read-only inside the sandbox",
      );
  const workTree = path.resolve(o.workTree);
  const configFolders = [workTree, path.resolve(o.cwd)];
  const shared: SandboxShared = {
    bwrap,
    workTree,
    gitDir: o.git?.gitDir ?? null,
    gitReadOnly: gitReadOnly(workTree, o.git),
    allowRead: (o.allowRead ?? []).map((p) => path.resolve(p)),
    configFolders,
  };
  const sandbox = await openSandbox(shared, o, projectConfigFiles(configFolders));
  // bwrap needs user namespaces (or setuid); a container may refuse them: say so now, not as a dead claude.
  // execa is loaded here, not at start-up: only --sandbox needs it.
  const { execa } = await import("execa");
  const probe = await execa(bwrap, [...bwrapArgs(sandbox, workTree), "true"], {
    reject: false,
    stdin: "ignore",
    all: true,
    timeout: 10_000,
  });
  if (probe.exitCode !== 0) {
    await sandbox.close();
    const why =
      String(probe.all ?? "")
        .trim()
        .split("\n")
        .at(-1) ?? "";
    throw new UserError(
      `--sandbox: bwrap cannot make a sandbox here${why ? `: ${why}` : ""}`,
      "this system does not allow unprivileged user namespaces (a container often does not); run without --sandbox, or allow them (sysctl kernel.unprivileged_userns_clone=1)",
    );
  }
  return sandbox;
}

/**
 * A second sandbox beside `s` (the verifier's): a private home, config copy and gate of its own,
 * so that what it leaves there never reaches the first's claude; what `s` found is not found again.
 */
export function sandboxBeside(s: Sandbox, o: SandboxOptions): Promise<Sandbox> {
  const { bwrap, workTree, gitDir, gitReadOnly, allowRead, configFolders } = s;
  return openSandbox({ bwrap, workTree, gitDir, gitReadOnly, allowRead, configFolders }, o, new Map());
}

/** A sandbox's own parts: its private home and config copy, and its gate to the API. */
async function openSandbox(
  shared: SandboxShared,
  o: SandboxOptions,
  projectConfig: Map<string, string>,
): Promise<Sandbox> {
  const api = apiEndpoint(o.env);
  const state = await makePrivateState({
    configDir: o.claudeConfigDir,
    home: os.homedir(),
    cwd: path.resolve(o.cwd),
    defaultConfig: !o.env.CLAUDE_CONFIG_DIR,
  });
  const socket = path.join(state.dir, "api.sock");
  let gate: net.Server;
  try {
    gate = await startApiGate(socket, api, o.allowNet ?? []);
  } catch (error) {
    state.remove();
    throw error;
  }
  const close = async () => {
    await new Promise<void>((resolve) => gate.close(() => resolve()));
    // claude is gone: what it planted in its transcripts' folder goes before a claude outside reads it.
    state.scrub();
    state.remove();
  };
  return {
    ...shared,
    privateBinds: state.binds,
    visible: [...state.readOnly, ...shared.allowRead],
    writable: [shared.workTree, state.transcripts],
    readOnly: [...shared.gitReadOnly, ...state.transcriptsReadOnly],
    hidden: [],
    projectConfig,
    privateDir: state.dir,
    net: { socket, env: innerEnv(api.url) },
    close,
  };
}

/**
 * An https API is reached through the forwarder as a proxy (CONNECT), so its certificate still
 * holds; an http one at the forwarder itself, which claude must then reach directly (claude sends
 * even http requests to HTTPS_PROXY when it may).
 */
function innerEnv(api: URL): Record<string, string> {
  const proxy = `http://127.0.0.1:${INNER_PORT}`;
  const direct = api.protocol === "http:" ? "127.0.0.1,localhost,::1" : "";
  const env: Record<string, string> = { HTTPS_PROXY: proxy, https_proxy: proxy, NO_PROXY: direct, no_proxy: direct };
  if (api.protocol === "http:")
    env.ANTHROPIC_BASE_URL = `${proxy}${api.pathname === "/" ? "" : api.pathname.replace(/\/$/, "")}`;
  return env;
}

/**
 * The work tree's git dir (and a linked worktree's common dir, outside it), its `.git` entry (a
 * linked worktree's gitfile) and its submodules' gitfiles: read-only, git still works for reading.
 * A gitfile claude could rewrite would send the next git run here (nudge's, the user's) to a
 * config of claude's making, with a core.fsmonitor program in it.
 */
function gitReadOnly(workTree: string, git: SandboxGit | null): string[] {
  if (!git) return [];
  const entries = [path.join(workTree, ".git"), ...git.gitlinks.map((p) => path.join(workTree, p, ".git"))];
  return [...new Set([git.gitDir, git.commonDir, ...entries.filter((e) => existsSync(e))])];
}

/**
 * The verifier's sandbox: the work tree read-only too (its Bash may run the tests, never change
 * the work), and claude's transcripts' folder an empty private one (what it writes there is thrown
 * away with the sandbox), so it changes nothing of claude's real config dir.
 */
export function checkerSandbox(s: Sandbox): Sandbox {
  const transcripts = s.writable.filter((p) => p !== s.workTree);
  const empty = path.join(s.privateDir, "checker-transcripts");
  mkdirSync(empty, { recursive: true });
  const readOnly = [s.workTree, ...s.readOnly].filter((p) => !transcripts.some((t) => p.startsWith(t + path.sep)));
  return { ...s, writable: [], readOnly, hidden: transcripts.map((t) => ({ host: empty, inside: t })) };
}

/** A sandbox for the verifier when bubblewrap can make one here (without --sandbox); null when it cannot. */
export async function trySandbox(o: SandboxOptions): Promise<Sandbox | null> {
  return prepareSandbox(o).catch((error: unknown) => {
    if (error instanceof UserError) return null;
    throw error;
  });
}

/** A command (the loop's --until check) run inside the sandbox: argv for execa. It has no network at all. */
export function sandboxedCommand(
  s: Sandbox,
  file: string,
  args: string[],
  cwd: string,
): { file: string; args: string[] } {
  return { file: s.bwrap, args: [...bwrapArgs(s, cwd), file, ...args] };
}

/** claude's launch, run inside the sandbox, after the forwarder to the API has started there. */
export function sandboxed(launch: ClaudeLaunch, s: Sandbox): ClaudeLaunch {
  const net = [
    "--ro-bind",
    s.net.socket,
    INNER_SOCKET,
    ...Object.entries(s.net.env).flatMap(([k, v]) => ["--setenv", k, v]),
  ];
  // claude starts once the forwarder listens (it says so through a fifo in the private /tmp).
  const script = `f=/tmp/.nudge-forwarder; mkfifo "$f"; "$0" -e "$1" >"$f" 2>/dev/null & read -r _ <"$f"; rm -f "$f"; shift; exec "$@"`;
  const args = [
    ...bwrapArgs(s, launch.cwd, [...programArgs(launch.bin), ...net]),
    "/bin/sh",
    "-c",
    script,
    process.execPath,
    INNER_FORWARDER,
    launch.bin,
    ...launch.args,
  ];
  return { ...launch, bin: s.bwrap, args };
}

function bwrapArgs(s: Sandbox, cwd: string, programs: string[] = []): string[] {
  return [
    // A user namespace without capabilities (as root too: bwrap run by root keeps them all
    // otherwise), its own pids (nudge and the rest are not there to see or kill), no network but
    // loopback, and a session of its own (no typing into nudge's terminal).
    "--unshare-user",
    "--cap-drop",
    "ALL",
    "--unshare-pid",
    "--unshare-net",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--new-session",
    "--die-with-parent",
    ...systemArgs(),
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    // Private and capped: a full /tmp inside fills no more than this of the host's memory.
    "--size",
    String(TMP_BYTES),
    "--tmpfs",
    "/tmp",
    ...s.privateBinds.flatMap((b) => ["--bind", b.host, b.inside]),
    // node (the forwarder, and a check's npm) and claude, wherever they are installed.
    ...programArgs(process.execPath),
    ...programs,
    ...s.visible.flatMap((p) => ["--ro-bind", p, p]),
    ...s.writable.flatMap((p) => ["--bind", p, p]),
    ...s.hidden.flatMap((b) => ["--bind", b.host, b.inside]),
    // After the binds above: these stay read-only inside the writable work tree.
    ...s.readOnly.flatMap((p) => ["--ro-bind", p, p]),
    "--setenv",
    "TMPDIR",
    "/tmp",
    "--chdir",
    cwd,
    "--",
  ];
}

function findOnPath(name: string, PATH: string): string | null {
  for (const dir of PATH.split(path.delimiter)) {
    if (!dir) continue;
    const full = path.join(dir, name);
    if (existsSync(full)) return full;
  }
  return null;
}
