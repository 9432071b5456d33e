/** Run the built CLI as a user would: a real process, no colour, exit code and streams returned. */
import { execa, type Result } from "execa";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const NUDGE_CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../dist/nudge.mjs");

export interface NudgeRun {
  cwd: string;
  env?: Record<string, string>;
  input?: string;
  timeout?: number;
}

export async function runNudge(args: string[], o: NudgeRun): Promise<Result<{ encoding: "utf8" }>> {
  return execa("node", [NUDGE_CLI, ...args], {
    cwd: o.cwd,
    env: { NO_COLOR: "1", ...o.env },
    input: o.input ?? "",
    reject: false,
    timeout: o.timeout ?? 60_000,
  }) as unknown as Promise<Result<{ encoding: "utf8" }>>;
}
