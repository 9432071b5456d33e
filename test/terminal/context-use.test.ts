/** How full claude's context is, read from the usage claude reports (issue 21). */
import { describe, expect, it } from "vitest";
import type { StreamEvent } from "../../src/claude/stream-events.js";
import { ContextUse } from "../../src/terminal/context-use.js";

const ev = (e: object) => e as unknown as StreamEvent;
const assistant = (usage: object, parent: string | null = null) =>
  ev({ type: "assistant", parent_tool_use_id: parent, message: { id: "m", model: "claude-x", content: [], usage } });

describe("ContextUse", () => {
  it("counts the latest main message's prompt, cache and answer against the model's window", () => {
    const c = new ContextUse();
    expect(c.text()).toBe("");
    c.observe(
      assistant({
        input_tokens: 3000,
        cache_creation_input_tokens: 20_000,
        cache_read_input_tokens: 20_000,
        output_tokens: 1000,
      }),
    );
    expect(c.text()).toBe("context 44k/200k (22%)");
    // A subagent's context is its own.
    expect(c.observe(assistant({ input_tokens: 190_000 }, "toolu_1"))).toBe(false);
    // The window claude reports in a result (a 1M model).
    c.observe(ev({ type: "result", subtype: "success", modelUsage: { "claude-x": { contextWindow: 1_000_000 } } }));
    expect(c.text()).toBe("context 44k/1M (4%)");
  });

  it("finds the window of a 1M model, which claude reports under another name than its messages carry", () => {
    const c = new ContextUse();
    c.observe(assistant({ input_tokens: 50_000 }));
    c.observe(
      ev({
        type: "result",
        subtype: "success",
        modelUsage: {
          "claude-x[1m]": { contextWindow: 1_000_000, canonicalModel: "claude-x" },
          "claude-haiku": { contextWindow: 200_000 },
        },
      }),
    );
    expect(c.text()).toBe("context 50k/1M (5%)");
  });

  it("warns past 80% of the window that claude will compact soon", () => {
    const c = new ContextUse();
    c.observe(
      ev({
        type: "stream_event",
        event: { type: "message_start", message: { model: "claude-x", usage: { input_tokens: 170_000 } } },
      }),
    );
    expect(c.warn).toBe(true);
    expect(c.text()).toBe("context 170k/200k (85%) · auto-compact soon");
  });
});
