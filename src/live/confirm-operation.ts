/**
 * A live session's adapter of ../operation.ts: the frontend shows the plan and asks (a terminal's
 * y/N, the page's dialog); its answer took time, so the plan is prepared again and applied only
 * if its fingerprint is the same, as the CLI and the page do.
 */
import { stillHolds, type Operation } from "../base/operation.js";
import type { Frontend } from "./frontend.js";

/** The plan to apply, or null when the answer was no. `again`: the command, as a refusal names it ("/rewind"). */
export async function confirmInSession<P>(
  frontend: Pick<Frontend, "confirm">,
  op: Operation<P, unknown>,
  again: string,
): Promise<P | null> {
  const plan = await op.prepare();
  if (op.asks?.(plan) === false) return plan;
  if (!(await frontend.confirm(op.describe(plan), op.question(plan)))) return null;
  return stillHolds(op, plan, again);
}
