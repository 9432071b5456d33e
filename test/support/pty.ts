/** Run the built CLI on a real pseudo-terminal (util-linux `script`), to type into it as a person would. */
import { execa } from "execa";
import { NUDGE_CLI } from "./run-nudge.js";

export function inTerminal(cwd: string, args: string[], env: Record<string, string> = {}) {
  // `exec`: nudge becomes the shell itself, so keys like Ctrl-C reach nudge alone.
  // script -q: no banner; -f: flush as it goes; -e: exit with the child's code; -c: the command.
  const command = `exec node ${[NUDGE_CLI, ...args].map((w) => `'${w.replaceAll("'", `'\\''`)}'`).join(" ")}`;
  const child = execa("script", ["-qfec", command, "/dev/null"], { cwd, env: { ...env, SHELL: "/bin/sh", NO_COLOR: "1", TERM: "dumb" }, reject: false });
  let screen = "";
  child.stdout!.on("data", (d: Buffer) => (screen += d.toString()));
  const waitFor = async (text: string) => {
    const start = Date.now();
    while (!screen.includes(text)) {
      if (Date.now() - start > 20_000) throw new Error(`timed out waiting for ${text} in:\n${screen}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  return { child, waitFor, type: (keys: string) => child.stdin!.write(keys), screen: () => screen };
}
