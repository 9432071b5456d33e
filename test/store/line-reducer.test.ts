import { describe, expect, it } from "vitest";
import { CUT_MARK, LineReducer, type SplitLine } from "../../src/store/line-reducer.js";

/** Split `stream` fed in chunks of `size` bytes. */
function split(
  stream: Buffer,
  size: number,
  limits = { lineBytes: 64, keptStringBytes: 16, keptTextBytes: 1000 },
): SplitLine[] {
  const out: SplitLine[] = [];
  const r = new LineReducer(limits, 1000);
  for (let at = 0; at < stream.length; at += size) r.push(stream.subarray(at, at + size), (l) => out.push(l));
  r.end((l) => out.push(l));
  return out;
}

const values = [
  "short",
  "x".repeat(500),
  'quotes \\" and \\\\ backslashes \\\\'.repeat(20),
  "é€😀 wide characters ".repeat(30),
  "\\u00e9\\ud83d\\ude00 escapes ".repeat(30),
  "ends in a backslash \\\\".repeat(25),
];

describe("LineReducer", () => {
  const lines = values.map(
    (v, i) => `{"n":${i},"k":"${v}","after":"tail","list":["${v}",1],"text" : "${"Claude words ".repeat(40)}"}`,
  );
  const stream = Buffer.from(lines.join("\n") + '\n{"small":1}\n{"torn":"no newline');

  for (const size of [1, 3, 7, 64, 1 << 20]) {
    it(`keeps short lines whole, cuts long strings at a character, in chunks of ${size}`, () => {
      const got = split(stream, size);
      expect(got).toHaveLength(lines.length + 2);
      let at = 1000;
      for (const [i, line] of [...lines, '{"small":1}', '{"torn":"no newline'].entries()) {
        const bytes = Buffer.from(line);
        expect(got[i]!.byte).toBe(at);
        expect(got[i]!.length).toBe(bytes.length);
        at += bytes.length + 1;
        if (i >= lines.length) {
          expect(got[i]!.bytes.toString()).toBe(line);
          continue;
        }
        const whole = JSON.parse(line);
        const reduced = JSON.parse(got[i]!.bytes.toString());
        expect(reduced.n).toBe(i);
        expect(reduced.after).toBe("tail");
        // Claude's words are kept longer than other strings.
        expect(reduced.text).toBe(whole.text);
        const cut = Buffer.byteLength(JSON.stringify(whole.k)) > 18;
        expect(got[i]!.reduced).toBe(cut);
        for (const [was, now] of [
          [whole.k, reduced.k],
          [whole.list[0], reduced.list[0]],
        ]) {
          expect(now.endsWith(CUT_MARK)).toBe(cut);
          expect(was.startsWith(now.replace(CUT_MARK, ""))).toBe(true);
        }
      }
    });
  }
});
