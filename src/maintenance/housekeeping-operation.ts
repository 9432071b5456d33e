/**
 * `session rm` and `session gc` as operations (see ../operation.ts): what they remove, as the
 * plan says it, asked about, and removed only if the plan still holds.
 */
import type { Store } from "../store/store.js";
import type { Operation } from "../base/operation.js";
import { applyHousekeeping, type HousekeepingResult } from "./housekeeping-apply.js";
import { describeHousekeeping, isEmpty, planKey, type HousekeepingPlan } from "./housekeeping-plan.js";
import { planGc, type GcOptions } from "./session-gc.js";
import { planRemoval } from "./session-removal.js";

function housekeeping(
  store: Store,
  o: { plan: () => Promise<HousekeepingPlan>; question: (plan: HousekeepingPlan) => string; strict: boolean },
): Operation<HousekeepingPlan, HousekeepingResult> {
  return {
    prepare: o.plan,
    describe: describeHousekeeping,
    question: o.question,
    asks: (plan) => !isEmpty(plan),
    fingerprint: planKey,
    // rm: anything found live at apply time refuses the whole of it; gc: that is skipped.
    apply: (plan) => applyHousekeeping(store, plan, { strict: o.strict }),
    watches: "the sessions",
  };
}

export function removalOperation(store: Store, ids: string[]): Operation<HousekeepingPlan, HousekeepingResult> {
  return housekeeping(store, {
    plan: () => planRemoval(store, ids),
    question: (plan) =>
      plan.sessions.length === 1
        ? `remove session ${plan.sessions[0]!.id}?`
        : `remove these ${plan.sessions.length} sessions?`,
    strict: true,
  });
}

export function gcOperation(store: Store, o: GcOptions): Operation<HousekeepingPlan, HousekeepingResult> {
  return housekeeping(store, { plan: () => planGc(store, o), question: () => "remove all of this?", strict: false });
}
