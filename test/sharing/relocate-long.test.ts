/**
 * A line too long to hold is moved a window at a time (relocate-long.ts): to the very bytes the
 * whole-line move writes. Each crafted transcript is moved twice, whole (every line under the
 * 4 MB bound) and with every line "long" and windows of a few bytes, and the two files compared,
 * with paths, escapes and surrogate pairs at every offset across a window's edge.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { relocateTranscript, type PathMove } from "../../src/sharing/relocate.js";
import { tempDir } from "../support/gitdir.js";

// A path JSON escapes (quote, backslash), with non-ASCII and a surrogate pair in it.
const OLD = '/home/ana "q" \\b/é/😀/app';
const NEW = "/srv/ü 'x'/😀/b";
const moves: PathMove[] = [
  { from: OLD, to: NEW },
  { from: "/home/ana/.claude/projects/-home-ana-app", to: "/root/.claude/projects/-srv-b" },
];
const enc = (s: string) => JSON.stringify(s).slice(1, -1);

/** Lines as written bytes: JSON built by hand, so escapes claude never writes (`\/`, `\u00e9`) appear too. */
function craftedLines(span: number): Buffer[] {
  const lines: string[] = [];
  for (let k = 0; k < span; k++) {
    const pad = "x".repeat(k);
    lines.push(
      // A path at offset k in a long value, another after an escaped pair, one that is a longer name.
      `{"type":"assistant","input":{"file_path":"${enc(OLD)}/big.txt","content":"${pad}${enc(`${OLD}/src/a.ts and `)}\\ud83d\\ude00${enc(`${OLD}. then ${OLD}.bak and file://${OLD}/x`)}"}}`,
      // No path in the value itself: it changes only in its short key; escapes kept as written.
      `{"cwd":"${enc(OLD)}","content":"${pad}\\u00e9\\/ \\ud83d\\ude00 é 😀 \\" \\\\ ${"y".repeat(k % 7)}"}`,
      // A pair of escapes at every offset, in a value that changes (re-encoded: the pair becomes 😀).
      `{"content":"${pad}\\ud83d\\ude00${"z".repeat(span)}${enc(OLD)}\\ud83d\\udE00\\ud83d"}`,
      // Raw 4-byte characters and a path ending at the value's end.
      `  {"a":["${"😀".repeat(k % 5)}${pad}${enc(OLD)}"], "b": "/home/ana/.claude/projects/-home-ana-app/m.md"}\r`,
      // A path split by a window edge but only a longer name: nothing moves.
      `{"content":"${pad}${enc(OLD)}2 and ${enc(OLD)}-old"}`,
      // A path whose start is decided by what is before it (`file://`), and a path that is inside another.
      `{"content":"${pad}then file://${enc(OLD)}/x, not /srv${enc(OLD)}/y"}`,
      // Not JSON: left alone.
      `{"content":"${pad}${enc(OLD)}"`,
      `not json ${enc(OLD)} ${pad}`,
    );
  }
  return lines.map((l) => Buffer.from(l));
}

async function movedBoth(lines: Buffer[], sizes: { line: number; token: number; window: number }) {
  const dir = tempDir("nudge-relocate-long-");
  const src = path.join(dir, "t.jsonl");
  writeFileSync(src, Buffer.concat(lines.flatMap((l) => [l, Buffer.from("\n")])).subarray(0, -1));
  const whole = await relocateTranscript(src, path.join(dir, "whole.jsonl"), moves);
  const windowed = await relocateTranscript(src, path.join(dir, "windowed.jsonl"), moves, sizes);
  return {
    whole: { ...whole, bytes: readFileSync(path.join(dir, "whole.jsonl")) },
    windowed: { ...windowed, bytes: readFileSync(path.join(dir, "windowed.jsonl")) },
  };
}

describe("moving a line a window at a time", () => {
  it.each([
    [48, 16],
    [61, 8],
    [97, 40],
    [256, 100],
  ])(
    "writes the bytes the whole-line move writes (windows of %i, tokens over %i bytes long)",
    async (window, token) => {
      const { whole, windowed } = await movedBoth(craftedLines(window + 16), { line: 1, token, window });
      expect(whole.changed).toBeGreaterThan(0);
      expect(windowed.changed).toBe(whole.changed);
      expect(windowed.lines).toBe(whole.lines);
      expect(windowed.bytes.equals(whole.bytes)).toBe(true);
      // The moved file holds the new place, the old only as a longer name or in lines that are not JSON.
      expect(windowed.bytes.toString()).toContain(enc(NEW));
    },
  );

  it("moves bytes that are not UTF-8 as the whole-line move does", async () => {
    const bad = Buffer.from([0xff, 0xc3, 0x28, 0xe2, 0x82, 0xf0, 0x9f, 0x98]);
    const line = (k: number) =>
      Buffer.concat([
        Buffer.from(`{"file_path":"${enc(OLD)}","content":"${"x".repeat(k)}`),
        bad,
        Buffer.from(`${enc(OLD)} ${"y".repeat(k)}","other":"${"z".repeat(k)}`),
        bad,
        Buffer.from('"}'),
      ]);
    const { whole, windowed } = await movedBoth(
      Array.from({ length: 40 }, (_, k) => line(k)),
      { line: 1, token: 8, window: 48 },
    );
    expect(windowed.bytes.equals(whole.bytes)).toBe(true);
  });

  it("moves a line of several MB read in 1 MB windows, paths and pairs across their edges", async () => {
    const lines: Buffer[] = [];
    for (const edge of [1 << 20, 2 << 20]) {
      for (const shift of [-30, -13, -7, -2, -1, 0, 1]) {
        const prefix = `{"type":"user","input":{"file_path":"${enc(OLD)}/f","content":"`;
        const pad = "p".repeat(edge - prefix.length + shift);
        lines.push(Buffer.from(`${prefix}${pad}${enc(OLD)}/x \\ud83d\\ude00 ${"q".repeat(1 << 20)}"}}`));
        lines.push(Buffer.from(`${prefix}${pad}\\ud83d\\ude00${enc(OLD)}/x ${"q".repeat(1 << 20)}"}}`));
      }
    }
    const { whole, windowed } = await movedBoth(lines, { line: 1 << 10, token: 64 << 10, window: 1 << 20 });
    expect(windowed.changed).toBe(lines.length);
    expect(windowed.bytes.equals(whole.bytes)).toBe(true);
  }, 120_000);
});
