/**
 * The recorder's log with images stored apart (image-store.ts): claude's stdout in any chunking
 * (5 bytes, one line, a line cut before its "\n" by a process that died) is stored with each
 * image once in images/<sha256>, read back byte for byte, and its positions are those of the
 * stored file (where the next line starts), so a turn's byte range reads the lines it holds.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readConversation, readInput, readLineSpan } from "../../src/store/conversation-reader.js";
import { bundleFiles } from "../../src/store/store.js";
import { ConversationLog, InputLog } from "../../src/recorder/conversation-log.js";
import { tempDir } from "../support/gitdir.js";
import { randomPng } from "../support/png.js";

const PNG = randomPng(40 * 1024);
const data = PNG.toString("base64");
const image = `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"${data}"}}`;
const prompt = `{"type":"user","message":{"role":"user","content":[${image},{"type":"text","text":"look"}]},"isReplay":true}`;
const lines = [
  `{"type":"system","subtype":"init"}`,
  prompt,
  `{"type":"assistant","message":{"content":[{"type":"text","text":"a user line \\"type\\":\\"user\\" quoted"}]}}`,
  prompt.replace('"look"', '"again"'),
  `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"ok"}]}}`,
  `{"type":"user","message":{"role":"user","content":[{"type":"im`, // short, and a prefix of a prompt's echo
  `not json at all`,
  `{"type":"result"}`,
];
const stdout = Buffer.from(lines.join("\n") + "\n");

function record(chunks: Buffer[], end = false): { dir: string; positions: number[]; seen: Buffer[] } {
  const dir = tempDir("nudge-bundle-");
  const log = ConversationLog.open(bundleFiles(dir));
  const positions: number[] = [];
  const seen: Buffer[] = [];
  for (const chunk of chunks) {
    log.appendStdout(chunk, (line) => {
      seen.push(line);
      positions.push(log.position.byte);
    });
  }
  if (end) log.endOfStream((line) => seen.push(line));
  log.close();
  return { dir, positions, seen };
}

function pieces(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

/** Pieces of 1 to 200 bytes, by a fixed sequence (the same cuts every run). */
function randomPieces(bytes: Buffer, seed = 21): Buffer[] {
  const out: Buffer[] = [];
  let state = seed;
  for (let i = 0; i < bytes.length;) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const size = 1 + (state % 200);
    out.push(bytes.subarray(i, i + size));
    i += size;
  }
  return out;
}

describe("conversation.jsonl with images stored apart", () => {
  for (const [name, chunks] of [
    ["one chunk", [stdout]],
    ["5-byte chunks", pieces(stdout, 5)],
    ["13-byte chunks (the echo's first bytes cut everywhere)", pieces(stdout, 13)],
    [
      "65- and 67-byte chunks (about the length of what tells an echo with images)",
      [...pieces(stdout.subarray(0, 3000), 65), ...pieces(stdout.subarray(3000), 67)],
    ],
    ["chunks of 1 to 200 bytes, cut pseudo-randomly", randomPieces(stdout)],
    ["chunks of 1 to 200 bytes, cut otherwise", randomPieces(stdout, 4242)],
  ] as const) {
    it(`${name}: the image once, the lines back byte for byte, claude's lines handed on as written`, async () => {
      const { dir, seen } = record([...chunks]);
      expect(readdirSync(`${dir}/images`)).toHaveLength(1);
      const stored = readFileSync(bundleFiles(dir).conversation);
      expect(stored.length).toBeLessThan(2000);
      expect(stored.toString("latin1")).not.toContain(data.slice(0, 100));
      const back = await readConversation(dir);
      expect(Buffer.concat(back.flatMap((l) => [l.bytes, Buffer.from("\n")])).equals(stdout)).toBe(true);
      expect(Buffer.concat(seen.flatMap((l) => [l, Buffer.from("\n")])).equals(stdout)).toBe(true);
    });
  }

  it("positions are where each next line starts in the stored file: a span read from them is the line", async () => {
    const { dir, positions } = record(pieces(stdout, 7));
    expect(positions.at(-1)).toBe(statSync(bundleFiles(dir).conversation).size);
    const span = await readLineSpan(
      dir,
      { line: 1, byte: positions[0]! },
      { line: 2, byte: positions[1]! },
      { writing: false },
    );
    expect(span.map((l) => l.bytes.toString())).toEqual([prompt]);
  });

  it("a user line cut short by claude's death is kept, with its image apart, and reads back", async () => {
    const cut = Buffer.from(`${lines[0]}\n${prompt}`);
    const { dir, seen } = record(pieces(cut, 1000), true);
    expect(seen.map((l) => l.toString())).toEqual([lines[0], prompt]);
    expect(readdirSync(`${dir}/images`)).toHaveLength(1);
    expect((await readConversation(dir)).map((l) => l.bytes.toString())).toEqual([lines[0], prompt]);
  });

  it("input.jsonl: a prompt sent twice keeps its image once, and reads back as sent", async () => {
    const dir = tempDir("nudge-bundle-");
    const input = InputLog.open(bundleFiles(dir));
    input.append(prompt);
    input.append(prompt);
    input.close();
    expect(readdirSync(`${dir}/images`)).toHaveLength(1);
    expect(statSync(bundleFiles(dir).input).size).toBeLessThan(1000);
    expect((await readInput(dir)).map((l) => l.bytes.toString())).toEqual([prompt, prompt]);
  });
});
