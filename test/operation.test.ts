/** The one staleness rule every frontend applies after a person answers (src/base/operation.ts). No processes. */
import { describe, expect, it } from "vitest";
import { UserError } from "../src/base/errors.js";
import { stillHolds, type Operation } from "../src/base/operation.js";

/** An operation over a value in memory: its plan is what the value was when prepared. */
function over(
  state: { files: string[]; at: number },
  watches?: string,
): Operation<{ files: string[]; at: number }, void> {
  return {
    prepare: async () => ({ files: [...state.files], at: state.at++ }),
    describe: (plan) => plan.files,
    question: () => "go?",
    // The time a plan was made is not what it was made from.
    fingerprint: (plan) => plan.files,
    apply: async () => undefined,
    watches,
  };
}

describe("stillHolds", () => {
  it("gives the plan prepared again when its fingerprint is the one shown", async () => {
    const state = { files: ["a.txt"], at: 0 };
    const op = over(state);
    const shown = await op.prepare();
    await expect(stillHolds(op, shown, "rewind")).resolves.toEqual({ files: ["a.txt"], at: 1 });
  });

  it("refuses, naming what changed and what to run again, when the fingerprint differs", async () => {
    const state = { files: ["a.txt"], at: 0 };
    const op = over(state, "the sessions");
    const shown = await op.prepare();
    state.files.push("mine.txt");
    const refusal = await stillHolds(op, shown, "/rewind").catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(UserError);
    expect(refusal).toMatchObject({
      message: "the sessions changed while waiting for your answer; nothing was changed",
      hint: "run the /rewind again to see the new plan",
    });
    expect((await stillHolds(over(state), shown, "undo").catch((e: Error) => e.message)) as string).toBe(
      "the work tree changed while waiting for your answer; nothing was changed",
    );
  });
});
