/**
 * What `session rm` and `session gc` share: show the plan, ask (or take --yes), check the plan
 * still holds after a person answered, apply it, and say what went and what git gc reclaims.
 */
import { printJson, writeLines, writeOut } from "../terminal/output.js";
import type { Operation } from "../base/operation.js";
import { describeRemoved, isEmpty, type HousekeepingPlan } from "../maintenance/housekeeping-plan.js";
import type { HousekeepingResult } from "../maintenance/housekeeping-apply.js";
import { confirmPlan } from "./confirm.js";

const say = (line: string): void => void writeOut(line + "\n");

export async function runHousekeeping(
  op: Operation<HousekeepingPlan, HousekeepingResult>,
  o: { dryRun?: boolean; yes?: boolean; json?: boolean },
): Promise<void> {
  const plan = await op.prepare();
  if (o.dryRun) {
    if (o.json) return printJson({ dryRun: true, plan });
    writeLines(op.describe(plan));
    if (!isEmpty(plan)) say("dry run: nothing was changed");
    return;
  }
  if (isEmpty(plan)) return o.json ? printJson({ plan, result: null }) : writeLines(op.describe(plan));
  if (!o.json) writeLines(op.describe(plan));
  const result = await op.apply(await confirmPlan(op, plan, o.yes, "command"));
  if (o.json) return printJson({ plan, result });
  writeLines(describeRemoved(result));
}
