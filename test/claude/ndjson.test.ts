import { describe, expect, it } from "vitest";
import { LineFramer, lineText, parseLine, splitLines } from "../../src/claude/ndjson.js";

function frame(chunks: Buffer[]): Buffer[] {
  const framer = new LineFramer();
  const lines: Buffer[] = [];
  for (const chunk of chunks) framer.push(chunk, (l) => lines.push(l));
  framer.end((l) => lines.push(l));
  return lines;
}

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
