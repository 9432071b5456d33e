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
import { execa } from "execa";
import { UserError } from "../errors.js";
import type { ClaudeLaunch } from "./claude-process.js";

export interface Sandbox {
  bwrap: string;
  /** Folders (and files) claude may write; everything else is read-only. */
  writable: string[];
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
  const sandbox = { bwrap, writable: [...new Set(writable.map((p) => path.resolve(p)))] };
  // bwrap needs user namespaces (or setuid); a container may refuse them: say so now, not as a dead claude.
  const probe = await execa(bwrap, [...bwrapArgs(sandbox, o.workTree), "true"], { reject: false, stdin: "ignore", all: true, timeout: 10_000 });
  if (probe.exitCode !== 0) {
    const why = String(probe.all ?? "").trim().split("\n").at(-1) ?? "";
    throw new UserError(`--sandbox: bwrap cannot make a sandbox here${why ? `: ${why}` : ""}`, "this system does not allow unprivileged user namespaces (a container often does not); run without --sandbox, or allow them (sysctl kernel.unprivileged_userns_clone=1)");
  }
  return sandbox;
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
