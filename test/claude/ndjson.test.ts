import { closeSync, openSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FileLine } from "../../src/claude/long-line.js";
import { tempDir } from "../support/gitdir.js";
import {
  BoundedLineFramer,
  KEPT_STRING_BYTES,
  LARGE_LINE_BYTES,
  LineFramer,
  lineText,
  parseEventLine,
  parseLine,
  reduceLongStrings,
  splitLines,
} from "../../src/claude/ndjson.js";

function frame(chunks: Buffer[]): Buffer[] {
  const framer = new LineFramer();
  const lines: Buffer[] = [];
  for (const chunk of chunks) framer.push(chunk, (l) => lines.push(l));
  framer.end((l) => lines.push(l));
  return lines;
}

describe("BoundedLineFramer", () => {
  it("hands a line over the limit as its place in the file, every other line as LineFramer does, at any chunking", () => {
    const long = "L".repeat(40);
    const text = `short\n\n${long}\nx${long}\r\nmid\n${long}`;
    const bytes = Buffer.from(text);
    const expected = [
      "short",
      "",
      { start: 7, length: 40 },
      { start: 48, length: 42 },
      "mid",
      { start: 95, length: 40 },
    ];
    for (const size of [1, 3, 7, 16, 41, bytes.length]) {
      const framer = new BoundedLineFramer(20);
      const lines: unknown[] = [];
      const take = (l: Buffer | { start: number; length: number }) => lines.push(Buffer.isBuffer(l) ? l.toString() : l);
      for (let at = 0; at < bytes.length; at += size) framer.push(bytes.subarray(at, at + size), take);
      framer.end(take);
      expect(lines).toEqual(expected);
    }
  });

  it("reads a long line back from its file a window at a time as a Buffer would give it", () => {
    const dir = tempDir();
    const line = `{"a":"${"é\\n0123456789".repeat(200_000)}"}`;
    const file = path.join(dir, "f.jsonl");
    writeFileSync(file, `head\n${line}\ntail`);
    const bytes = Buffer.from(line);
    const fd = openSync(file, "r");
    try {
      const read = new FileLine(fd, { start: 5, length: bytes.length });
      for (const i of [0, 5, bytes.length - 1, (1 << 20) - 1, 1 << 20, bytes.length])
        expect(read.at(i)).toBe(bytes.at(i));
      expect(read.indexOf(0x22, 7)).toBe(bytes.indexOf(0x22, 7));
      expect(read.indexOf(0x7d, 0)).toBe(bytes.length - 1);
      expect(read.toString("utf8", (1 << 20) - 5, (3 << 20) + 9)).toBe(
        bytes.toString("utf8", (1 << 20) - 5, (3 << 20) + 9),
      );
      expect(read.includes(Buffer.from('"}'))).toBe(true);
      expect(read.includes(Buffer.from("tail"))).toBe(false);
      // Each piece is read over by the next: copied as it comes.
      const pieces = Array.from(read.pieces(3, bytes.length), (p) => Buffer.from(p));
      expect(Buffer.concat(pieces).equals(bytes.subarray(3))).toBe(true);
      expect(read.whole().equals(bytes)).toBe(true);
    } finally {
      closeSync(fd);
    }
  });
});

describe("LineFramer", () => {
  it("joins a line split across chunks, at every possible split point", () => {
    const text = '{"type":"assistant","n":1}\n{"type":"result","é":"ü"}\n';
    const bytes = Buffer.from(text);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const lines = frame([bytes.subarray(0, cut), bytes.subarray(cut)]);
      expect(lines.map((l) => l.toString())).toEqual(['{"type":"assistant","n":1}', '{"type":"result","é":"ü"}']);
    }
  });

  it("handles one-byte chunks and several lines in one chunk", () => {
    const bytes = Buffer.from("a\nbb\n\nccc\n");
    const oneByOne = frame([...bytes].map((b) => Buffer.from([b])));
    expect(oneByOne.map(String)).toEqual(["a", "bb", "", "ccc"]);
    expect(frame([bytes]).map(String)).toEqual(["a", "bb", "", "ccc"]);
  });

  it("frames a 10 MB line delivered in 64 KiB chunks intact", () => {
    const big = JSON.stringify({ type: "user", content: "x".repeat(10 * 1024 * 1024) });
    const bytes = Buffer.from(`${big}\n{"type":"result"}\n`);
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 65536) chunks.push(bytes.subarray(i, i + 65536));
    const lines = frame(chunks);
    expect(lines).toHaveLength(2);
    expect(lines[0]!.length).toBe(Buffer.byteLength(big));
    expect((parseLine(lines[0]!) as { content: string }).content.length).toBe(10 * 1024 * 1024);
    expect(parseLine(lines[1]!)).toEqual({ type: "result" });
  });

  it("keeps CRLF bytes in the line but parses without the \\r", () => {
    const lines = frame([Buffer.from('{"a":1}\r\n{"b":2}\r\n')]);
    expect(lines[0]!.toString()).toBe('{"a":1}\r');
    expect(lineText(lines[0]!)).toBe('{"a":1}');
    expect(parseLine(lines[1]!)).toEqual({ b: 2 });
  });

  it("returns null for invalid JSON and blank lines instead of throwing", () => {
    expect(parseLine(Buffer.from("not json {"))).toBeNull();
    expect(parseLine(Buffer.from('{"cut": "mid-wri'))).toBeNull();
    expect(parseLine(Buffer.from("   "))).toBeNull();
  });

  it("hands over a final line without a newline only at end of stream", () => {
    const framer = new LineFramer();
    const lines: string[] = [];
    framer.push(Buffer.from('{"a":1}\n{"partial"'), (l) => lines.push(l.toString()));
    expect(lines).toEqual(['{"a":1}']);
    expect(framer.hasPartialLine).toBe(true);
    framer.end((l) => lines.push(l.toString()));
    expect(lines).toEqual(['{"a":1}', '{"partial"']);
  });

  it("splitLines on a whole file matches framing it in pieces", () => {
    const data = Buffer.from("x\ny\nz");
    expect(splitLines(data).map(String)).toEqual(["x", "y", "z"]);
  });
});

describe("parseEventLine: a long tool result is parsed with its long strings cut", () => {
  /** Every string of `full`, cut as the reduced parse cuts it: a prefix of the original. */
  function expectPrefixes(reduced: unknown, full: unknown): void {
    if (typeof full === "string") {
      expect(typeof reduced).toBe("string");
      expect(full.startsWith(reduced as string)).toBe(true);
      if (Buffer.byteLength(full) <= KEPT_STRING_BYTES) expect(reduced).toBe(full);
      // Cut at 16 KB of JSON text: escapes make the parsed string shorter (\u00e9, six bytes, is two).
      else expect(Buffer.byteLength(reduced as string)).toBeGreaterThan(KEPT_STRING_BYTES / 3);
    } else if (Array.isArray(full)) {
      expect(reduced).toHaveLength(full.length);
      full.forEach((v, i) => expectPrefixes((reduced as unknown[])[i], v));
    } else if (full && typeof full === "object") {
      expect(Object.keys(reduced as object)).toEqual(Object.keys(full));
      for (const [k, v] of Object.entries(full)) expectPrefixes((reduced as Record<string, unknown>)[k], v);
    } else {
      expect(reduced).toEqual(full);
    }
  }

  // Tool output as JS strings: JSON.stringify writes their quotes, backslashes and newlines as escapes.
  const outputs = [
    "plain ascii output\n".repeat(5000),
    'quotes "inside", \\ backslashes \\" and \\\\"'.repeat(4000),
    "é ü 漢字 😀 🎉\n".repeat(5000),
  ];
  // And JSON text with \u escapes (another writer may escape what claude writes as UTF-8).
  const escaped = String.raw`\u00e9\u6f22\ud83d\ude00 \" \\ `.repeat(3000);

  it("keeps every string a prefix of the original, cut at a character and never inside an escape, at every cut offset", () => {
    for (let pad = 0; pad < 8; pad++) {
      for (const output of outputs) {
        const value = {
          type: "user",
          message: {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_1", content: "x".repeat(pad) + output, is_error: false },
            ],
          },
          uuid: "u-1",
          'a "quoted" key': "v",
        };
        const line = Buffer.from(JSON.stringify(value));
        expect(line.length).toBeGreaterThan(LARGE_LINE_BYTES);
        expectPrefixes(parseEventLine(line), value);
      }
      const line = Buffer.from(
        `{"type":"user","message":{"content":[{"type":"tool_result","content":"${"x".repeat(pad)}${escaped}"}]}}`,
      );
      expectPrefixes(parseEventLine(line), JSON.parse(line.toString()));
    }
  });

  it("parses any other long line whole: a permission request carries the file it would write", () => {
    const content = "const x = 1;\n".repeat(20_000);
    const request = {
      type: "control_request",
      request_id: "r1",
      request: { subtype: "can_use_tool", tool_name: "Write", input: { file_path: "/a.ts", content } },
    };
    expect(parseEventLine(Buffer.from(JSON.stringify(request)))).toEqual(request);
  });

  it("leaves short lines and lines with no long string as they are; a line that is not JSON stays not JSON", () => {
    const short = Buffer.from('{"type":"user","message":{"content":"hi"}}');
    expect(reduceLongStrings(short)).toBe(short);
    expect(parseEventLine(short)).toEqual({ type: "user", message: { content: "hi" } });
    const broken = Buffer.from('{"type":"user","content":"' + "a".repeat(LARGE_LINE_BYTES));
    expect(reduceLongStrings(broken)).toBeNull();
    expect(parseEventLine(broken)).toBeNull();
  });
});
