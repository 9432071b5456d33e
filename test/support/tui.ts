/**
 * claude's own terminal UI in a real terminal (tmux), against the scripted API, as a person uses it:
 * keys typed, the screen read. Each terminal runs on a tmux server of its own, killed at the test's end.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { onTestFinished } from "vitest";
import { tempDir } from "./gitdir.js";
import { NUDGE_CLI } from "./run-nudge.js";
import { tuiEnv } from "./tui-config.js";
import { shellQuote } from "../../src/base/shell-quote.js";

export { tuiEnv };

let servers = 0;

export class Terminal {
  private constructor(private readonly socket: string) {}

  /** The tmux server's socket name (-L), for a test that looks at the terminal's processes. */
  get socketName(): string {
    return this.socket;
  }

  /** `command` (argv) in a new 120x40 terminal in `cwd`; when it ends the screen says `[exit N]`. */
  static open(argv: string[], o: { cwd: string; env: Record<string, string> }): Terminal {
    const socket = `nudge-tui-${process.pid}-${++servers}`;
    const env = Object.entries(o.env).map(([k, v]) => `${k}=${shellQuote(v)}`);
    const line = `env ${env.join(" ")} ${argv.map(shellQuote).join(" ")}; echo "[exit $?]"; sleep 600`;
    execFileSync("tmux", [
      "-L",
      socket,
      "-f",
      "/dev/null",
      "new-session",
      "-d",
      "-x",
      "120",
      "-y",
      "40",
      "-c",
      o.cwd,
      line,
    ]);
    const terminal = new Terminal(socket);
    onTestFinished(() => terminal.close());
    return terminal;
  }

  /** `nudge <args>` in a terminal. */
  static nudge(args: string[], o: { cwd: string; env: Record<string, string> }): Terminal {
    return Terminal.open(["node", NUDGE_CLI, ...args], o);
  }

  /** An interactive bash (job control on, as a person's terminal has it), `env` exported. */
  static shell(o: { cwd: string; env: Record<string, string> }): Terminal {
    const rc = path.join(tempDir("nudge-tui-rc-"), "bashrc");
    writeFileSync(
      rc,
      `${Object.entries(o.env)
        .map(([k, v]) => `export ${k}=${shellQuote(v)}`)
        .join("\n")}\nPS1='$ '\n`,
    );
    return Terminal.open(["bash", "--noprofile", "--rcfile", rc, "-i"], { cwd: o.cwd, env: {} });
  }

  async keys(...keys: string[]): Promise<void> {
    execFileSync("tmux", ["-L", this.socket, "send-keys", ...keys]);
    await sleep(300);
  }

  screen(): string {
    return execFileSync("tmux", ["-L", this.socket, "capture-pane", "-p", "-S", "-200"]).toString();
  }

  /** Type text, then Enter a moment later (claude's UI takes a fast Enter as part of a paste). */
  async type(text: string): Promise<void> {
    execFileSync("tmux", ["-L", this.socket, "send-keys", "-l", text]);
    await sleep(400);
    execFileSync("tmux", ["-L", this.socket, "send-keys", "Enter"]);
  }

  async waitFor(pattern: RegExp, ms = 30_000): Promise<string> {
    const end = Date.now() + ms;
    for (;;) {
      const screen = this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() > end) throw new Error(`the screen never showed ${pattern}:\n${screen}`);
      await sleep(150);
    }
  }

  /** claude's prompt is up and takes keys. */
  async ready(): Promise<void> {
    await this.waitFor(/❯|>\s/);
    await sleep(800);
  }

  /** The exit status the screen says once the command ended. */
  async exited(ms = 30_000): Promise<number> {
    const match = /\[exit (\d+)\]/.exec(await this.waitFor(/\[exit \d+\]/, ms));
    return Number(match![1]);
  }

  /** The pid of the command the terminal runs (the shell's child). */
  nudgePid(): number {
    const shell = execFileSync("tmux", ["-L", this.socket, "display-message", "-p", "#{pane_pid}"]).toString().trim();
    // By its command line: Node 24 names its main thread "MainThread", so `comm` is not "node" there.
    const children = execFileSync("ps", ["-o", "pid=,args=", "--ppid", shell]).toString().trim().split("\n");
    const node = children
      .map((l) => l.trim().split(/\s+/))
      .find(([, command, script]) => /(^|\/)node$/.test(command ?? "") && (script ?? "").endsWith("nudge.mjs"));
    if (!node) throw new Error(`no node process under the terminal's shell: ${children.join("; ")}`);
    return Number(node[0]);
  }

  close(): void {
    try {
      execFileSync("tmux", ["-L", this.socket, "kill-server"], { stdio: "ignore" });
    } catch {
      // already gone
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
