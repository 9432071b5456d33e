/**
 * `--sandbox` on Linux: claude runs under bubblewrap (`bwrap`, Debian's package `bubblewrap`)
 * with the whole file system read-only except the folders it must write: the work tree, the
 * temp dir and claude's config dir (the plan's macOS sandbox-exec profile, done with Linux's
 * namespaces). Everything claude starts (its Bash commands) inherits the same view, so a command
 * that writes elsewhere fails with "Read-only file system".
 */
import { existsSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { UserError } from "../errors.js";
import type { ClaudeLaunch } from "./claude-process.js";

export interface Sandbox {
  bwrap: string;
  /** The work tree, writable unless this is a verifier's sandbox. */
  workTree: string;
  /** Folders (and files) claude may write; everything else is read-only. */
  writable: string[];
  /**
   * Inside the writable work tree, what must stay read-only: git's own configuration, hooks and
   * info (attributes, excludes). nudge runs git there outside the sandbox after each turn: a
   * filter, fsmonitor or hook claude planted in .git/config would run unconfined (QA: a clean
   * filter wrote outside the work tree through nudge's snapshot).
   */
  readOnly: string[];
}

const INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or leave out --sandbox";

/** The sandbox for a work tree, after checking that bwrap is there and can make one here. */
export async function prepareSandbox(o: { workTree: string; claudeConfigDir: string; env: NodeJS.ProcessEnv }): Promise<Sandbox> {
  const bwrap = findOnPath("bwrap", o.env.PATH ?? "");
  if (!bwrap) throw new UserError("--sandbox needs bubblewrap (bwrap), which is not installed", INSTALL_HINT);
  // claude's config dir must exist to be bound; claude would create it anyway.
  await fs.mkdir(o.claudeConfigDir, { recursive: true });
  const writable = [o.workTree, os.tmpdir(), o.claudeConfigDir];
  // Without CLAUDE_CONFIG_DIR claude also keeps ~/.claude.json, beside the config dir.
  const dotJson = path.join(os.homedir(), ".claude.json");
  if (!o.env.CLAUDE_CONFIG_DIR && existsSync(dotJson)) writable.push(dotJson);
  const sandbox = { bwrap, workTree: path.resolve(o.workTree), writable: [...new Set(writable.map((p) => path.resolve(p)))], readOnly: await gitControl(o.workTree) };
  // bwrap needs user namespaces (or setuid); a container may refuse them: say so now, not as a dead claude.
  // execa is loaded here, not at start-up: only --sandbox needs it.
  const { execa } = await import("execa");
  const probe = await execa(bwrap, [...bwrapArgs(sandbox, o.workTree), "true"], { reject: false, stdin: "ignore", all: true, timeout: 10_000 });
  if (probe.exitCode !== 0) {
    const why = String(probe.all ?? "").trim().split("\n").at(-1) ?? "";
    throw new UserError(`--sandbox: bwrap cannot make a sandbox here${why ? `: ${why}` : ""}`, "this system does not allow unprivileged user namespaces (a container often does not); run without --sandbox, or allow them (sysctl kernel.unprivileged_userns_clone=1)");
  }
  return sandbox;
}

/** The work tree's git configuration, hooks and info folder, made when missing so that they can be bound read-only. */
async function gitControl(workTree: string): Promise<string[]> {
  const gitDir = path.join(path.resolve(workTree), ".git");
  // A linked worktree's .git is a file naming a git dir outside the work tree: read-only already.
  if (!(await fs.stat(gitDir).catch(() => null))?.isDirectory()) return [];
  const files = [path.join(gitDir, "config"), path.join(gitDir, "config.worktree")].filter((f) => existsSync(f));
  const dirs = [path.join(gitDir, "hooks"), path.join(gitDir, "info")];
  for (const dir of dirs) await fs.mkdir(dir, { recursive: true });
  return [...files, ...dirs];
}

/** The verifier's sandbox: the same, with the work tree read-only too (its Bash may run the tests, never change the work). */
export function readOnlySandbox(s: Sandbox): Sandbox {
  // Bound read-only after the writable folders: a work tree inside the temp dir stays read-only too.
  return { ...s, writable: s.writable.filter((p) => p !== s.workTree), readOnly: [s.workTree, ...s.readOnly] };
}

/** A sandbox for the verifier when bubblewrap can make one here (without --sandbox); null when it cannot. */
export async function trySandbox(o: { workTree: string; claudeConfigDir: string; env: NodeJS.ProcessEnv }): Promise<Sandbox | null> {
  return prepareSandbox(o).catch((error: unknown) => {
    if (error instanceof UserError) return null;
    throw error;
  });
}

/** A command (the loop's --until check) run inside the sandbox: argv for execa. */
export function sandboxedCommand(s: Sandbox, file: string, args: string[], cwd: string): { file: string; args: string[] } {
  return { file: s.bwrap, args: [...bwrapArgs(s, cwd), file, ...args] };
}

/** claude's launch, run inside the sandbox. */
export function sandboxed(launch: ClaudeLaunch, s: Sandbox): ClaudeLaunch {
  return { ...launch, bin: s.bwrap, args: [...bwrapArgs(s, launch.cwd), launch.bin, ...launch.args] };
}

function bwrapArgs(s: Sandbox, cwd: string): string[] {
  return [
    "--ro-bind", "/", "/",
    // A /dev of its own (null, tty, urandom…) and the processes' /proc: the read-only / would hide neither well.
    "--dev", "/dev",
    "--proc", "/proc",
    ...s.writable.flatMap((p) => ["--bind", p, p]),
    // After the binds above: these stay read-only inside the writable work tree.
    ...s.readOnly.flatMap((p) => ["--ro-bind", p, p]),
    // claude must not outlive nudge's bwrap (a kill -9 of nudge ends bwrap's stdin; this ends the rest).
    "--die-with-parent",
    "--chdir", cwd,
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
