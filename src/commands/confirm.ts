import { writeErr } from "../terminal/output.js";
import readline from "node:readline/promises";
import { inert } from "../base/inert-text.js";
import { UserError } from "../base/errors.js";
import { stillHolds, type Operation } from "../base/operation.js";

/** How a go-ahead was given: a person answered yes (time passed), or --yes said it up front. */
export type GoAhead = "answered" | "--yes";

/**
 * Ask before changing the user's files. On a terminal: a y/N question. Without one there is
 * nobody to ask, so a script must say --yes. Anything but yes throws: nothing was changed.
 */
export async function confirm(question: string, yes: boolean | undefined): Promise<GoAhead> {
  if (yes) return "--yes";
  if (!process.stdin.isTTY)
    throw new UserError("not confirmed: there is no terminal to ask", "pass --yes to go ahead (see --dry-run first)");
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  // Ctrl-C or Ctrl-D at the question rejects it: the same as answering no.
  const answer = await rl.question(inert(`${question} [y/N] `)).catch(() => {
    writeErr("\n");
    return "";
  });
  rl.close();
  if (!/^y(es)?$/i.test(answer.trim()))
    throw new UserError("cancelled; nothing was changed", "see what would happen with --dry-run");
  return "answered";
}

/**
 * The CLI's way to ask about an operation's plan (shown already): y/N, or --yes. A person's answer
 * took time, so the plan is prepared again and must have the same fingerprint. Returns the plan to
 * apply. `again`: the command, as the refusal names it ("rewind").
 */
export async function confirmPlan<P>(
  op: Operation<P, unknown>,
  plan: P,
  yes: boolean | undefined,
  again: string,
): Promise<P> {
  if (op.asks?.(plan) === false) return plan;
  if ((await confirm(op.question(plan), yes)) === "--yes") return plan;
  return stillHolds(op, plan, again);
}
