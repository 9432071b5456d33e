/**
 * Where a turn's lines end in claude's transcript (the Stop saver waits for it), on the shapes the
 * real claude 2.1.329 writes after a turn: its UI, the Stop hooks' summary then the turn's duration;
 * `claude -p`, the summary and no duration.
 */
import { describe, expect, it } from "vitest";
import { endsTurn } from "../../src/live/transcript-tail.js";

const line = (o: object) => JSON.stringify({ uuid: "u", sessionId: "s", timestamp: "2026-12-06T00:00:00Z", ...o });
const lines = (...o: object[]) => Buffer.from(o.map(line).join("\n") + "\n");
const answer = { type: "assistant", message: { role: "assistant", content: [{ type: "text", text: "done" }] } };
const summary = (entrypoint?: string) => ({ type: "system", subtype: "stop_hook_summary", hookCount: 1, entrypoint });

describe("endsTurn", () => {
  it("in claude's UI, waits past the Stop hooks' summary for the turn's duration", () => {
    expect(endsTurn(lines(answer, summary("cli")))).toBe(false);
    expect(
      endsTurn(lines(answer, summary("cli"), { type: "system", subtype: "turn_duration", entrypoint: "cli" })),
    ).toBe(true);
  });

  it("under claude -p or the Agent SDK, ends at the Stop hooks' summary", () => {
    expect(endsTurn(lines(answer, summary("sdk-cli")))).toBe(true);
    expect(endsTurn(lines(answer, summary("sdk-ts")))).toBe(true);
  });

  it("a summary that names no entrypoint, or the words in a message, end nothing", () => {
    expect(endsTurn(lines(answer, summary()))).toBe(false);
    const quoted = { ...answer, message: { role: "assistant", content: '"stop_hook_summary" "turn_duration"' } };
    expect(endsTurn(lines(quoted))).toBe(false);
  });
});
