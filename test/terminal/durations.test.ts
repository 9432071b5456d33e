/** Durations as a person reads them: a minute is never shown as 60 seconds (issue 15, item 9). */
import { describe, expect, it } from "vitest";
import { formatDuration } from "../../src/base/format.js";

describe("formatDuration", () => {
  it("rounds to whole seconds before splitting minutes: 179.6 s is 3m00s, not 2m60s", () => {
    expect(formatDuration(179_600)).toBe("3m00s");
    expect(formatDuration(119_500)).toBe("2m00s");
    expect(formatDuration(179_400)).toBe("2m59s");
    expect(formatDuration(59_900)).toBe("59.9s");
    expect(formatDuration(61_000)).toBe("1m01s");
  });
});
