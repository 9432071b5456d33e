import { writeErr } from "../terminal/output.js";
import readline from "node:readline/promises";
import { inert } from "../inert-text.js";
import { UserError } from "../errors.js";

/**
 * Ask before changing the user's files. On a terminal: a y/N question. Without one there is
 * nobody to ask, so a script must say --yes.
 */
/** Returns whether a person was asked (time passed, so what was planned may be stale). */
export async function confirm(question: string, yes: boolean | undefined): Promise<boolean> {
  if (yes) return false;
  if (!process.stdin.isTTY) throw new UserError("not confirmed: there is no terminal to ask", "pass --yes to go ahead (see --dry-run first)");
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  // Ctrl-C or Ctrl-D at the question rejects it: the same as answering no.
  const answer = await rl.question(inert(`${question} [y/N] `)).catch(() => {
    writeErr("\n");
    return "";
  });
  rl.close();
  if (!/^y(es)?$/i.test(answer.trim())) throw new UserError("cancelled; nothing was changed", "see what would happen with --dry-run");
  return true;
}

/** The answer took time: the work tree no longer is what the plan was made from. */
export function changedWhileAsking(command: string): UserError {
  return new UserError("the work tree changed while waiting for your answer; nothing was changed", `run the ${command} again to see the new plan`);
}
