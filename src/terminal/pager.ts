/**
 * Long output to a terminal through a pager, as git does: `$PAGER` when set (run by the shell),
 * otherwise `less` with LESS=FRX when LESS is not set (F: quit at once when it fits one screen,
 * R: keep nudge's colours, X: leave the screen as it was). Not a terminal, `PAGER` empty or `cat`,
 * or no pager to be found: written straight out. The text goes through the output guard first
 * (writeOut's `inert`), so the pager gets only nudge's colours.
 */
import { spawn } from "node:child_process";
import { inert } from "../inert-text.js";
import { writeOut } from "./output.js";

export async function page(text: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const pager = env.PAGER ?? "less";
  if (!process.stdout.isTTY || pager.trim() === "" || pager.trim() === "cat") return writeOut(text);
  const started = await new Promise<boolean>((resolve) => {
    const child = spawn(pager, { shell: true, stdio: ["pipe", "inherit", "inherit"], env: { ...env, LESS: env.LESS ?? "FRX" } });
    let spawned = false;
    child.on("spawn", () => (spawned = true));
    // A pager that is not there: the shell says "not found" and exits 127 before reading.
    child.on("error", () => resolve(false));
    child.on("close", (code) => resolve(spawned && code !== 127));
    child.stdin.on("error", () => undefined); // the pager quit before reading it all (q): fine
    child.stdin.end(inert(text));
  });
  if (!started) writeOut(text);
}
