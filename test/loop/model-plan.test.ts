/** What the loop says about the model of the next iterations: one story, never two models for the same one. */
import { describe, expect, it } from "vitest";
import { ModelPlan } from "../../src/loop/model-plan.js";

describe("model plan", () => {
  it("escalates after the failures asked for, and says from which iteration", () => {
    const plan = new ModelPlan({ strategy: ["haiku", "sonnet"], escalateAfter: 1, allowHints: false });
    expect(plan.next()).toBe("haiku");
    expect(plan.failed()).toBe(
      "↑ model sonnet from the next iteration (1 failed iteration on haiku; --model-strategy)",
    );
    expect(plan.next()).toBe("sonnet");
  });

  it("from QA: a hint for the next iteration and an escalation in the same iteration: the escalation says it comes after the hint", () => {
    const plan = new ModelPlan({ strategy: ["haiku", "sonnet", "opus"], escalateAfter: 1, allowHints: true });
    expect(plan.next()).toBe("haiku");
    expect(plan.asked("opus")).toBe("model opus for the next iteration, as claude asked (<next-model>)");
    expect(plan.failed()).toBe(
      "↑ model sonnet from the iteration after next: the next runs opus, as claude asked (1 failed iteration on haiku; --model-strategy)",
    );
    expect(plan.next()).toBe("opus");
    expect(plan.next()).toBe("sonnet");
  });
});
