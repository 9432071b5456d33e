/**
 * A loop's budgets: hard limits the user set (or the defaults). Unlike the guards they never ask:
 * going past a limit is a new run with a larger one (`nudge claude loop -c …`). Cost is known only
 * when a turn ends (claude reports it with the turn's result), so a turn can overshoot it; time is
 * watched as it passes, and a turn still running when it is up is interrupted.
 */
import { formatCost } from "../base/format.js";

export interface Budget {
  iterations: number;
  /** USD; null: no limit. */
  costUsd: number | null;
  /** null: no limit. */
  minutes: number | null;
}

export const DEFAULT_BUDGET: Budget = { iterations: 10, costUsd: 5, minutes: 60 };

interface Spending {
  iterations: number;
  costUsd: number;
  elapsedMs: number;
}

/** What is spent, as the summary says it, or null while there is budget left. */
function budgetSpent(budget: Budget, spending: Spending): string | null {
  if (budget.costUsd !== null && spending.costUsd >= budget.costUsd)
    return `${formatCost(spending.costUsd)} spent (--max-cost ${budget.costUsd})`;
  if (budget.minutes !== null && spending.elapsedMs >= budget.minutes * 60_000)
    return `${timeSpent(budget.minutes)} passed (--max-minutes ${budget.minutes})`;
  if (spending.iterations >= budget.iterations)
    return `${spending.iterations} iteration${spending.iterations === 1 ? "" : "s"} run (--max-iterations ${budget.iterations})`;
  return null;
}

export function timeSpent(minutes: number): string {
  if (minutes < 1) return `${Math.round(minutes * 60)} seconds`;
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

/** A running loop's budget: what is spent so far, and a timer for when its time is up. */
export class BudgetClock {
  private readonly timer: NodeJS.Timeout | null;

  /** `startedAt`: epoch ms; `timeUp` runs once, when --max-minutes have passed. */
  constructor(
    private readonly budget: Budget,
    private readonly startedAt: number,
    timeUp: (minutes: number) => void,
  ) {
    const minutes = budget.minutes;
    this.timer =
      minutes === null
        ? null
        : setTimeout(() => timeUp(minutes), Math.max(0, startedAt + minutes * 60_000 - Date.now()));
    this.timer?.unref();
  }

  elapsedMs(): number {
    return Date.now() - this.startedAt;
  }

  /** What is spent, as the summary says it, or null while there is budget left. */
  spent(iterations: number, costUsd: number): string | null {
    return budgetSpent(this.budget, { iterations, costUsd, elapsedMs: this.elapsedMs() });
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
  }
}
