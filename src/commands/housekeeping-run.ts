/**
 * What `session rm` and `session gc` share: show the plan, ask (or take --yes), check the plan
 * still holds after a person answered, apply it, and say what went and what git gc reclaims.
 */
import { UserError } from "../errors.js";
import type { Store } from "../bundle/store.js";
import { printJson, writeOut } from "../terminal/output.js";
import { describeHousekeeping, describeRemoved, isEmpty, samePlan, type HousekeepingPlan } from "../time-travel/housekeeping-plan.js";
import { applyHousekeeping } from "../time-travel/housekeeping-apply.js";
import { confirm } from "./confirm.js";

export interface HousekeepingRun {
  store: Store;
  /** Computes the plan; called again after a person answers, to see that it still holds. */
  plan: () => Promise<HousekeepingPlan>;
  question: (plan: HousekeepingPlan) => string;
  /** rm: anything found live at apply time refuses the whole command. gc: it is skipped. */
  strict: boolean;
  o: { dryRun?: boolean; yes?: boolean; json?: boolean };
}

const say = (line: string): void => void writeOut(line + "\n");

export async function runHousekeeping(run: HousekeepingRun): Promise<void> {
  const { o } = run;
  const plan = await run.plan();
  if (o.dryRun) {
    if (o.json) return printJson({ dryRun: true, plan });
    describeHousekeeping(plan).forEach(say);
    if (!isEmpty(plan)) say("dry run: nothing was changed");
    return;
  }
  if (isEmpty(plan)) return o.json ? printJson({ plan, result: null }) : describeHousekeeping(plan).forEach(say);
  if (!o.json) describeHousekeeping(plan).forEach(say);
  if (await confirm(run.question(plan), o.yes)) {
    // A person took time to answer: what they saw must still be what happens.
    if (!samePlan(plan, await run.plan())) {
      throw new UserError("the sessions changed while waiting for your answer; nothing was removed", "run the command again to see the new plan");
    }
  }
  const result = await applyHousekeeping(run.store, plan, { strict: run.strict });
  if (o.json) return printJson({ plan, result });
  describeRemoved(result).forEach(say);
}
