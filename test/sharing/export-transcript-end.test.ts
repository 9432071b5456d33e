/**
 * Where an `--upto` export cuts claude's transcript: after turn N's last reply, at the first line
 * that begins another turn. A turn may hold a line of tens of MB (a Write's content, a pasted
 * prompt): it is told apart by its keys, never held whole.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { turnEnd } from "../../src/sharing/export-transcript-end.js";
import { tempDir } from "../support/gitdir.js";

const line = (o: object) => JSON.stringify(o) + "\n";
const reply = (uuid: string) => line({ type: "assistant", uuid, message: { content: [{ type: "text", text: "ok" }] } });
const big = "x".repeat(48 << 20);

describe("the end of turn N in claude's transcript", () => {
  it("skips a huge tool result after the turn's last reply and stops at a huge prompt, without holding either whole", async () => {
    const file = path.join(tempDir(), "t.jsonl");
    const head =
      reply("a1") +
      line({
        type: "user",
        toolUseResult: { content: big },
        message: { content: [{ type: "tool_result", content: big }] },
      });
    writeFileSync(file, head + line({ type: "user", message: { content: big } }) + reply("a2"));
    const baseline = process.memoryUsage().arrayBuffers;
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().arrayBuffers - baseline)), 1);
    try {
      expect(await turnEnd(file, "a1", Number.MAX_SAFE_INTEGER)).toBe(Buffer.byteLength(head));
    } finally {
      clearInterval(sampler);
    }
    // Held whole, a line and the copies made of it were 149 MB at once (Node 20); read a window at a
    // time, what is left is chunks read and not yet collected (~40 MB on Node 20, ~70 MB on Node 24).
    expect(peak).toBeLessThan(100 << 20);
  });

  it("stops at the next reply or queued prompt, and runs to the limit when none comes", async () => {
    const file = path.join(tempDir(), "t.jsonl");
    const head = reply("a1") + line({ type: "user", message: { content: [{ type: "tool_result", content: "r" }] } });
    writeFileSync(file, head + line({ type: "queue-operation", operation: "enqueue", content: "next" }) + reply("a2"));
    expect(await turnEnd(file, "a1", 1 << 30)).toBe(Buffer.byteLength(head));
    expect(await turnEnd(file, "a2", 1 << 30)).toBe(1 << 30);
    expect(await turnEnd(file, null, 77)).toBe(77);
  });
});
