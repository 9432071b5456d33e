/** A line too long to hold, read for what it is: its long strings cut between two characters, never inside an escape. */
import { describe, expect, it } from "vitest";
import { cutLongStrings } from "../../src/claude/json-bytes.js";

describe("cutLongStrings", () => {
  it("cuts each long string between characters (escapes, multi-byte text), says how much is left out, and keeps the rest", () => {
    for (const unit of ["\\u00e9", "é", "日本", '\\"', "\\\\", "a"]) {
      const long = unit.repeat(5000);
      const line = Buffer.from(`{"type":"user","message":{"content":"${long}"},"n":[1,"short"]}`);
      const text = cutLongStrings(line, 1000, 1 << 20)!;
      const cut = JSON.parse(text) as { message: { content: string }; n: unknown };
      expect(cut.n).toEqual([1, "short"]);
      // The kept bytes are the line's own, from the string's start: a cut never splits an escape or a character.
      const raw = /"content":"(.*?) … \(([\d,]+) more bytes, too long to read\)"/.exec(text)!;
      expect(long.startsWith(raw[1]!)).toBe(true);
      expect(Buffer.byteLength(raw[1]!)).toBeGreaterThanOrEqual(1000);
      expect(Number(raw[2]!.replaceAll(",", ""))).toBe(Buffer.byteLength(long) - Buffer.byteLength(raw[1]!));
    }
  });

  it("is null for a line that is not JSON, or whose kept part would pass the most it may hold", () => {
    expect(cutLongStrings(Buffer.from(`not json ${"x".repeat(5000)}`), 1000, 1 << 20)).toBeNull();
    expect(cutLongStrings(Buffer.from(`{"a":"${"x".repeat(5000)}`), 1000, 1 << 20)).toBeNull();
    expect(cutLongStrings(Buffer.from(JSON.stringify({ many: Array(500).fill("y") })), 1000, 1000)).toBeNull();
  });
});
