/**
 * Long output to a terminal through a pager, as git does: `$PAGER` when set (run by the shell),
 * otherwise `less` with LESS=FRX when LESS is not set (F: quit at once when it fits one screen,
 * R: keep nudge's colours, X: leave the screen as it was). Not a terminal, `PAGER` empty or `cat`,
 * or no pager to be found: written straight out. The text goes through the output guard first
 * (writeOut's `inert`), so the pager gets only nudge's colours.
 */
import { spawn } from "node:child_process";
import { inert } from "../base/inert-text.js";
import { writeOut } from "./output.js";

export async function page(text: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (!process.stdout.isTTY || !(await runPager(text, { env, less: "FRX" }))) writeOut(text);
}

export interface PagerOptions {
  env?: NodeJS.ProcessEnv;
  /** LESS for `less` when the user has not set one. */
  less: string;
  /** Where the pager draws: the terminal's file descriptor (1, or 2 when stdout is piped). */
  fd?: number;
}

/**
 * Run the user's pager on `text` and wait for it to quit. False when there is none to run
 * (`PAGER` empty or `cat`, or not found): the caller shows the text itself.
 */
export function runPager(text: string, o: PagerOptions): Promise<boolean> {
  const env = o.env ?? process.env;
  const pager = env.PAGER ?? "less";
  if (pager.trim() === "" || pager.trim() === "cat") return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const fd = o.fd ?? 1;
    const child = spawn(pager, {
      shell: true,
      stdio: ["pipe", fd === 1 ? "inherit" : fd, "inherit"],
      env: { ...env, LESS: env.LESS ?? o.less },
    });
    let spawned = false;
    child.on("spawn", () => (spawned = true));
    // A pager that is not there: the shell says "not found" and exits 127 before reading.
    child.on("error", () => resolve(false));
    child.on("close", (code) => resolve(spawned && code !== 127));
    child.stdin!.on("error", () => undefined); // the pager quit before reading it all (q): fine
    child.stdin!.end(inert(text));
  });
}
