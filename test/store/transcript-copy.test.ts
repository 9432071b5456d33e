/**
 * The compressed transcript copy's format (src/store/transcript-copy.ts) on its own: members any
 * gzip reader inflates, found from their headers alone, a torn last member never read, a cut
 * copied as it is where a member ends and compressed again where it does not.
 */
import { randomBytes } from "node:crypto";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  copyCompressedPrefix,
  encodeMembers,
  MEMBER_BYTES,
  readCopy,
  readMembers,
} from "../../src/store/transcript-copy.js";
import { tempDir } from "../support/gitdir.js";

/** Transcript-like lines: JSON that repeats itself, and some bytes that do not compress. */
function lines(count: number, seed: string): Buffer {
  const out: string[] = [];
  for (let i = 0; i < count; i++)
    out.push(
      JSON.stringify({
        type: "assistant",
        uuid: `${seed}-${i}`,
        message: { content: [{ type: "text", text: `line ${i} ${randomBytes(24).toString("base64")}` }] },
      }),
    );
  return Buffer.from(out.join("\n") + "\n");
}

async function writeTurns(file: string, turns: Buffer[]): Promise<void> {
  writeFileSync(file, "");
  let start = 0;
  for (const t of turns) {
    for (const m of await encodeMembers(start, t)) appendFileSync(file, m);
    start += t.length;
  }
}

describe("the compressed transcript copy's format", () => {
  it("is one gzip file any reader inflates byte for byte; its members are read from their headers, a large append split at 4 MB", async () => {
    const file = path.join(tempDir(), "t.jsonl.gz");
    const turns = [lines(50, "a"), Buffer.concat([lines(60_000, "b")]), lines(3, "c")];
    expect(turns[1]!.length).toBeGreaterThan(MEMBER_BYTES);
    await writeTurns(file, turns);
    const whole = Buffer.concat(turns);
    expect(gunzipSync(readFileSync(file)).equals(whole)).toBe(true);
    const found = await readMembers(file);
    expect(found.bytes).toBe(whole.length);
    expect(found.end).toBe(found.size);
    const splits = Math.ceil(turns[1]!.length / MEMBER_BYTES);
    expect(found.members).toHaveLength(1 + splits + 1);
    expect(found.members.map((m) => m.start)).toEqual([
      0,
      ...Array.from({ length: splits }, (_, i) => turns[0]!.length + i * MEMBER_BYTES),
      turns[0]!.length + turns[1]!.length,
    ]);
    expect((await readCopy({ file, compressed: true })).equals(whole)).toBe(true);
    expect((await readCopy({ file, compressed: true }, 1000)).equals(whole.subarray(0, 1000))).toBe(true);
  });

  it("a member cut short (a killed append) is not read: the copy holds the whole members before it", async () => {
    const file = path.join(tempDir(), "t.jsonl.gz");
    const turns = [lines(40, "a"), lines(40, "b")];
    await writeTurns(file, turns);
    const [next] = await encodeMembers(turns[0]!.length + turns[1]!.length, lines(40, "c"));
    appendFileSync(file, next!.subarray(0, next!.length - 9));
    expect(() => gunzipSync(readFileSync(file))).toThrow();
    const found = await readMembers(file);
    expect(found.members).toHaveLength(2);
    expect(found.size - found.end).toBe(next!.length - 9);
    expect((await readCopy({ file, compressed: true })).equals(Buffer.concat(turns))).toBe(true);
  });

  it("a gzip file nudge did not write has no members of nudge's", async () => {
    const file = path.join(tempDir(), "t.jsonl.gz");
    writeFileSync(file, gzipSync(lines(5, "x")));
    expect((await readMembers(file)).members).toEqual([]);
  });

  it("a cut at a member's end copies the members as they are; elsewhere, the part is compressed again; a plain copy is compressed", async () => {
    const dir = tempDir();
    const file = path.join(dir, "t.jsonl.gz");
    const turns = [lines(30, "a"), lines(30, "b"), lines(30, "c")];
    await writeTurns(file, turns);
    const whole = Buffer.concat(turns);
    const atTurn = path.join(dir, "turn.gz");
    await copyCompressedPrefix({ file, compressed: true }, atTurn, turns[0]!.length + turns[1]!.length);
    const original = readFileSync(file);
    expect(original.subarray(0, readFileSync(atTurn).length).equals(readFileSync(atTurn))).toBe(true);
    expect(gunzipSync(readFileSync(atTurn)).equals(whole.subarray(0, turns[0]!.length + turns[1]!.length))).toBe(true);
    const midway = path.join(dir, "mid.gz");
    await copyCompressedPrefix({ file, compressed: true }, midway, turns[0]!.length + 17);
    expect(gunzipSync(readFileSync(midway)).equals(whole.subarray(0, turns[0]!.length + 17))).toBe(true);
    expect((await readMembers(midway)).bytes).toBe(turns[0]!.length + 17);
    const plain = path.join(dir, "old.jsonl");
    writeFileSync(plain, whole);
    const fromPlain = path.join(dir, "old.gz");
    await copyCompressedPrefix({ file: plain, compressed: false }, fromPlain, 5000);
    expect(gunzipSync(readFileSync(fromPlain)).equals(whole.subarray(0, 5000))).toBe(true);
  });
});
