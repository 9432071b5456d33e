/**
 * Secrets in big content: a text scanned in windows (secret-detect.ts) and a huge NDJSON line
 * masked from its bytes (huge-line.ts) still find a secret that straddles a window's edge, with
 * the name before it that a rule needs, and mask it as a scan of the whole would.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { detectSecrets, windows } from "../../src/secrets/secret-detect.js";
import { HUGE_LINE } from "../../src/secrets/huge-line.js";
import { maskNdjsonFile, scanNdjsonFile } from "../../src/secrets/secrets.js";
import { tempDir } from "../support/gitdir.js";

// Shaped like the real thing; none is a live credential. Built from parts so this file is not itself flagged.
const ANTHROPIC = "sk-ant-api03-" + "Xy7_Q2-wErTyUiOpAsDfGhJkLzXcVbNm".repeat(3).slice(0, 93) + "AA";
const GITHUB = "ghp_" + "1234567890abcdefghijABCDEFGHIJ123456";
const FILLER = "0123456789 the quick brown fox jumps over the lazy dog, a line of a big generated file\n";

/** `size` characters of filler (lines, or one line without a newline), with `secret` written across `at`. */
function textWith(size: number, secret: string, at: number, lines = true): string {
  const filler = (n: number) => (lines ? FILLER.repeat(Math.ceil(n / FILLER.length)) : "x".repeat(n)).slice(0, n);
  const start = at - Math.floor(secret.length / 2) - 1;
  return filler(start) + ` ${secret} ` + filler(size - start - secret.length - 2);
}

describe("a text longer than a window", () => {
  it("finds a secret across a window's edge, cut at a line's end or inside a line", async () => {
    for (const lines of [true, false]) {
      const size = 3 << 20;
      const edge = windows("x".repeat(size)).next().value![1];
      for (const secret of [ANTHROPIC, ` API_TOKEN=${"k9".repeat(8)}Zq `]) {
        const text = textWith(size, secret, edge, lines);
        const spans = await detectSecrets(text);
        expect(spans).toHaveLength(1);
        expect(secret).toContain(text.slice(spans[0]!.start, spans[0]!.end));
        expect(spans[0]!.end - spans[0]!.start).toBeGreaterThanOrEqual(16);
      }
    }
  });

  it("covers the text with windows that overlap, and never splits a surrogate pair", () => {
    const text = "😀".repeat(700_000);
    let end = 0;
    for (const [from, to] of windows(text, 1000, 100)) {
      expect(from).toBeLessThanOrEqual(end - (end ? 50 : 0));
      expect(text.charCodeAt(from) & 0xfc00).not.toBe(0xdc00);
      if (to < text.length) expect(text.charCodeAt(to) & 0xfc00).not.toBe(0xdc00);
      end = to;
    }
    expect(end).toBe(text.length);
  });
});

describe("a huge NDJSON line (a 50 MB tool input)", () => {
  it("masks secrets anywhere in its long value, across windows and escapes, and keeps every other byte", async () => {
    const dir = tempDir();
    const size = HUGE_LINE + (1 << 20);
    // Secrets at the start and the end, and one after another (after escapes) where the first window ends.
    const filler = (n: number) => FILLER.repeat(Math.ceil(n / FILLER.length)).slice(0, n);
    let content = `${GITHUB} é😀\n` + filler(480_000);
    while (content.length < 580_000) content += ` "${ANTHROPIC}"\t`;
    content += filler(size - content.length) + `\n${GITHUB}`;
    const line = JSON.stringify({ type: "assistant", id: GITHUB, input: { file_path: "/x/big.txt", content } });
    const src = path.join(dir, "c.jsonl");
    const small = JSON.stringify({ type: "user", message: { content: `key ${ANTHROPIC}` } });
    writeFileSync(src, `${small}\n${line}\n${small}`);
    const dest = path.join(dir, "masked.jsonl");
    const findings = await maskNdjsonFile(src, dest, { file: "c.jsonl", turnOfLine: () => 1 });

    const out = readFileSync(dest, "utf8").split("\n");
    expect(out).toHaveLength(3);
    const expected = content
      .replaceAll(ANTHROPIC, "[REDACTED:anthropic-api-key]")
      .replaceAll(GITHUB, "[REDACTED:github-token]");
    const masked = JSON.parse(out[1]!) as { id: string; input: { content: string } };
    expect(masked.id).toBe("[REDACTED:github-token]");
    expect(masked.input.content === expected).toBe(true);
    // Every other byte as it was: the raw line with the secrets' bytes replaced, escapes and all.
    expect(
      out[1] ===
        line.replaceAll(ANTHROPIC, "[REDACTED:anthropic-api-key]").replaceAll(GITHUB, "[REDACTED:github-token]"),
    ).toBe(true);
    expect(out[0]).toBe(out[2]);
    const secrets = content.split(ANTHROPIC).length - 1;
    expect(findings.filter((f) => f.line === 2 && f.kind === "anthropic-api-key")).toHaveLength(secrets);
    expect(findings.filter((f) => f.line === 2 && f.kind === "github-token")).toHaveLength(3);
    const first = findings.find((f) => f.line === 2 && f.kind === "anthropic-api-key")!;
    expect(line.slice(first.start, first.end)).toBe(ANTHROPIC);
    expect((await scanNdjsonFile(src, { file: "c.jsonl" })).length).toBe(findings.length);
  });

  it("masks a huge line that is not JSON as text", async () => {
    const dir = tempDir();
    const text = textWith(HUGE_LINE + 1000, `PASSWORD=${"hunter2".repeat(3)} ${ANTHROPIC}`, HUGE_LINE - 300_000, false);
    const src = path.join(dir, "c.jsonl");
    writeFileSync(src, `{not json ${text}\n`);
    const dest = path.join(dir, "masked.jsonl");
    const findings = await maskNdjsonFile(src, dest, { file: "c.jsonl" });
    expect(findings.map((f) => f.kind)).toEqual(["password", "anthropic-api-key"]);
    const masked = `{not json ${text}\n`
      .replace("hunter2".repeat(3), "[REDACTED:password]")
      .replace(ANTHROPIC, "[REDACTED:anthropic-api-key]");
    expect(readFileSync(dest, "utf8") === masked).toBe(true);
  });
});
