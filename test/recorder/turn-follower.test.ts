/** How a turn's status is read from claude's stream when the user interrupted it. */
import { describe, expect, it } from "vitest";
import { toStreamEvent } from "../../src/claude/stream-events.js";
import { TurnFollower } from "../../src/recorder/turn-follower.js";

const result = (terminal_reason: string | undefined) =>
  toStreamEvent(
    {
      type: "result",
      subtype: "success",
      is_error: false,
      session_id: "s1",
      ...(terminal_reason ? { terminal_reason } : {}),
    },
    "",
  );

describe("TurnFollower.status", () => {
  it("an interrupt claude acted on makes the turn interrupted; one that came as claude finished (result 'completed') does not", () => {
    for (const [reason, status] of [
      ["aborted_streaming", "interrupted"],
      [undefined, "interrupted"], // a claude that does not say: the interrupt counts
      ["completed", "complete"],
    ] as const) {
      const follower = new TurnFollower();
      follower.interruptRequested();
      expect(follower.observe(result(reason))).toBe(true);
      expect(follower.status, String(reason)).toBe(status);
    }
  });

  it("without an interrupt: complete once the result is in, incomplete before", () => {
    const follower = new TurnFollower();
    expect(follower.status).toBe("incomplete");
    follower.observe(result("completed"));
    expect(follower.status).toBe("complete");
  });
});
