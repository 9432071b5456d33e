import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { detectSecrets } from "../../src/secrets/secret-detect.js";
import {
  maskNdjsonFile,
  maskTextData,
  scanNdjsonFile,
  scanText,
  summarizeFindings,
} from "../../src/secrets/secrets.js";
import { tempDir } from "../support/gitdir.js";

// Shaped like the real thing; none is a live credential. Built from parts so this file is not itself flagged.
const ANTHROPIC = "sk-ant-api03-" + "Xy7_Q2-wErTyUiOpAsDfGhJkLzXcVbNm".repeat(3).slice(0, 93) + "AA";
const OPENAI =
  "sk-proj-" +
  "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0u1V2w3X4y5Z6a7B8c9D0e1F2g3H4i5J6k7L8m9".slice(0, 74) +
  "T3BlbkFJ" +
  "z9Y8x7W6v5U4t3S2r1Q0p9O8n7M6l5K4j3I2h1G0f9E8d7C6b5A4z3Y2x1W0v9U8t7S6r5Q4p3O2n1".slice(0, 74);
const GITHUB = "ghp_" + "1234567890abcdefghijABCDEFGHIJ123456";
const SLACK = "xoxb-" + "123456789012-1234567890123-" + "abcdefghijABCDEFGHIJabcd";
const AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYz7Hq2LmKQa";
const PEM = `-----BEGIN RSA PRIVATE KEY-----\n${"MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi0ZQ5tW8V2bL8r3w1Hn0sO4c2e\n".repeat(4)}-----END RSA PRIVATE KEY-----`;
const POSTGRES = "postgres://app:" + "s3cr3t-Pa55" + "@db.example.com:5432/app";

async function kinds(text: string): Promise<string[]> {
  return (await detectSecrets(text)).map((s) => s.kind);
}

describe("finding secrets (secretlint's recommended preset on this Node, plus assignments)", () => {
  it.each([
    ["an Anthropic key", `key: ${ANTHROPIC}`, "anthropic-api-key", ANTHROPIC],
    ["an OpenAI key", `use ${OPENAI} here`, "openai-api-key", OPENAI],
    ["a GitHub token", `token ${GITHUB}`, "github-token", GITHUB],
    ["a Slack token", `slack ${SLACK}`, "slack-token", SLACK],
    ["an AWS secret access key", `aws_secret_access_key = ${AWS_SECRET}`, "aws-secret-access-key", AWS_SECRET],
    ["a private key", PEM, "private-key", PEM],
    ["a connection string", `DATABASE_URL=${POSTGRES}`, "postgresql-connection-string", POSTGRES],
    ["an env-style *_KEY", "STRIPE_WEBHOOK_KEY=whsec_9f8e7d6c5b4a", "secret-assignment", "whsec_9f8e7d6c5b4a"],
    ["an exported *_TOKEN", "export DEPLOY_TOKEN='d3pl0y-t0k3n-xyz'", "secret-assignment", "d3pl0y-t0k3n-xyz"],
    ["a *_SECRET", "SESSION_SECRET=kj3h4k5j6h7g8f", "secret-assignment", "kj3h4k5j6h7g8f"],
    ["PASSWORD=", "PASSWORD=hunter22", "password", "hunter22"],
    ["password: in YAML", "db:\n  password: hunter22\n", "password", "hunter22"],
    ["password in JSON", '{"user": "ana", "password": "hunter22"}', "password", "hunter22"],
  ])("%s", async (_what, text, kind, secret) => {
    const spans = await detectSecrets(text);
    expect(spans.map((s) => s.kind)).toEqual([kind]);
    expect(text.slice(spans[0]!.start, spans[0]!.end)).toBe(secret);
  });

  it.each([
    ["code reading a key", "const apiKey = getKey(); headers.token = token;"],
    ["a shell reference", "PASSWORD=$DB_PASSWORD\nAPI_KEY=${API_KEY}"],
    ["a property path", "password: req.body.password,"],
    ["a placeholder", "API_KEY=<your-key-here>\npassword: ********"],
    ["a masked secret", "ANTHROPIC_API_KEY=[REDACTED:anthropic-api-key]"],
  ])("leaves %s alone", async (_what, text) => {
    expect(await kinds(text)).toEqual([]);
  });

  it("cannot be switched off by a secretlint-disable comment in the text", async () => {
    expect(await kinds(`// secretlint-disable\n${GITHUB}\n`)).toEqual(["github-token"]);
  });
});

// Issue 22, leak 6: what neither secretlint's preset nor the assignments found. Built from parts, made up.
const GAPS: Array<[string, string, string]> = [
  [
    "an AWS key id in prose",
    "our key is AKIA" + "Q3ZV7XK2MP4RT6WB with secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYz7Hq2LmKQa",
    "AKIA" + "Q3ZV7XK2MP4RT6WB",
  ],
  [
    "the AWS secret half in prose",
    "our key is AKIA" + "Q3ZV7XK2MP4RT6WB with secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYz7Hq2LmKQa",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYz7Hq2LmKQa",
  ],
  ["AWS_ACCESS_KEY_ID=", "AWS_ACCESS_KEY_ID=AKIA" + "Q3ZV7XK2MP4RT6WB", "AKIA" + "Q3ZV7XK2MP4RT6WB"],
  [
    "a Google API key",
    "key AI" + "zaSyD3m0-kX9v_Qq7R2tYb8uLcN4pW1eZ5fJ6",
    "AI" + "zaSyD3m0-kX9v_Qq7R2tYb8uLcN4pW1eZ5fJ6",
  ],
  [
    "a JWT",
    "token eyJ" + "hbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.kX9v_Qq7R2tYb8uLcN4pW1eZ5fJ6aB3c",
    "eyJ" + "hbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.kX9v_Qq7R2tYb8uLcN4pW1eZ5fJ6aB3c",
  ],
  [
    "an EC P-256 key",
    "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI" +
      "Bq7R2tYb8uLcN4pW1eZ5fJ6aB3ckX9v_Qq7R2tYb8uLoAoGCCqGSM49\n-----END EC PRIVATE KEY-----",
    "MHcCAQEEI" + "Bq7R2tYb8uLcN4pW1eZ5fJ6aB3ckX9v_Qq7R2tYb8uLoAoGCCqGSM49",
  ],
  [
    "a SendGrid key with -",
    "SG.-" + "kX9v_Qq7R2tYb8uLcN4pW.1eZ5fJ6aB3c-kX9v_Qq7R2tYb8uLcN4pW1eZ5fJ6aB",
    "SG.-" + "kX9v_Qq7R2tYb8uLcN4pW.1eZ5fJ6aB3c-kX9v_Qq7R2tYb8uLcN4pW1eZ5fJ6aB",
  ],
  [
    "_authToken outside .npmrc",
    "//registry.npmjs.org/:_authToken=" + "npm_kX9vQq7R2tYb8uLcN4pW1eZ5fJ6aB3ckX9v",
    "npm_kX9vQq7R2tYb8uLcN4pW1eZ5fJ6aB3ckX9v",
  ],
  ["a redis URL with a password", "redis://:" + "s3cretRedisPw42@cache:6379", "s3cretRedisPw42"],
  [
    "an Authorization: Bearer header",
    "Authorization: Bearer " + "kX9vQq7R2tYb8uLcN4pW1eZ5fJ6aB3c",
    "kX9vQq7R2tYb8uLcN4pW1eZ5fJ6aB3c",
  ],
  ["curl -u user:pw", "curl -u admin:" + "Hunter2Pass9 https://ci.local", "Hunter2Pass9"],
  [
    "an Azure AccountKey=",
    "AccountKey=" + "kX9vQq7R2tYb8uLcN4pW1eZ5fJ6aB3ckX9vQq7R2tYb8uLcN4pW1eZ5fJ6aB3ckX9vQq7R2tYb8uLcN4pW1eZ5f==",
    "kX9vQq7R2tYb8uLcN4pW1eZ5fJ6aB3ckX9vQq7R2tYb8uLcN4pW1eZ5fJ6aB3ckX9vQq7R2tYb8uLcN4pW1eZ5f==",
  ],
  [
    "a lowercase export github_token=",
    "export github_token=" + "a9f3kq7r2tyb8ulcn4pw1ez5fj6ab3ck",
    "a9f3kq7r2tyb8ulcn4pw1ez5fj6ab3ck",
  ],
];

describe("the detector gaps of issue 22 (leak 6)", () => {
  it.each(GAPS)("masks %s", async (_what, text, secret) => {
    const masked = (await maskTextData(text)).data.toString();
    expect(masked).not.toContain(secret);
    expect(masked).toContain("[REDACTED:");
  });

  it("leaves the documentation's example keys alone (they say EXAMPLE)", async () => {
    expect(await kinds("e.g. AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")).toEqual([]);
  });
});

describe("masking NDJSON", () => {
  it("masks inside string values, keeps every line valid JSON and every other byte as it was", async () => {
    const dir = tempDir();
    const lines = [
      JSON.stringify({
        type: "user",
        message: { role: "user", content: `my key is ${ANTHROPIC}, "quoted" \\ and 😀` },
      }),
      JSON.stringify({ type: "system", subtype: "init", cwd: "/home/ana/app" }),
      JSON.stringify({ type: "user", toolUseResult: { stdout: `cat id_rsa\n${PEM}\n` }, tokens: [GITHUB, "fine"] }),
      `not json: PASSWORD=hunter22 "${SLACK}"`,
      '{"type":"assistant","crlf":true}\r',
      JSON.stringify({ type: "user", message: { content: `.env:\nDB_PASSWORD=hunter22\nAPI_URL=https://x` } }),
    ];
    const src = path.join(dir, "conversation.jsonl");
    writeFileSync(src, lines.join("\n")); // the last line without its newline, as a crash leaves it
    const dest = path.join(dir, "masked.jsonl");
    const findings = await maskNdjsonFile(src, dest, {
      file: "session/conversation.jsonl",
      turnOfLine: (n) => (n <= 2 ? 1 : 2),
    });

    const out = readFileSync(dest, "utf8").split("\n");
    expect(out).toHaveLength(lines.length);
    expect(JSON.parse(out[0]!).message.content).toBe('my key is [REDACTED:anthropic-api-key], "quoted" \\ and 😀');
    expect(out[1]).toBe(lines[1]);
    expect(JSON.parse(out[2]!)).toEqual({
      type: "user",
      toolUseResult: { stdout: "cat id_rsa\n[REDACTED:private-key]\n" },
      tokens: ["[REDACTED:github-token]", "fine"],
    });
    expect(out[3]).toBe('not json: PASSWORD=[REDACTED:password] "[REDACTED:slack-token]"');
    expect(out[4]).toBe(lines[4]);
    expect(JSON.parse(out[5]!).message.content).toBe(".env:\nDB_PASSWORD=[REDACTED:password]\nAPI_URL=https://x");
    for (const line of [out[0], out[2], out[4], out[5]]) expect(() => JSON.parse(line!)).not.toThrow();
    expect(readFileSync(dest, "utf8").includes("hunter22")).toBe(false);

    expect(findings.map((f) => [f.kind, f.line, f.turn])).toEqual([
      ["anthropic-api-key", 1, 1],
      ["private-key", 3, 2],
      ["github-token", 3, 2],
      ["password", 4, 2],
      ["slack-token", 4, 2],
      ["password", 6, 2],
    ]);
    // start/end point at the secret as it is written in the raw line.
    const first = findings[0]!;
    expect(lines[0]!.slice(first.start, first.end)).toBe(ANTHROPIC);
    const pem = findings[1]!;
    expect(lines[2]!.slice(pem.start, pem.end)).toBe(JSON.stringify(PEM).slice(1, -1));

    expect(await scanNdjsonFile(src, { file: "session/conversation.jsonl" })).toHaveLength(6);
    expect(summarizeFindings(findings)).toEqual([
      { kind: "anthropic-api-key", file: "session/conversation.jsonl", count: 1, turns: [1] },
      { kind: "github-token", file: "session/conversation.jsonl", count: 1, turns: [2] },
      { kind: "password", file: "session/conversation.jsonl", count: 2, turns: [2] },
      { kind: "private-key", file: "session/conversation.jsonl", count: 1, turns: [2] },
      { kind: "slack-token", file: "session/conversation.jsonl", count: 1, turns: [2] },
    ]);
  });

  it("copies a file without secrets byte for byte", async () => {
    const dir = tempDir();
    const src = path.join(dir, "a.jsonl");
    const bytes = Buffer.concat([
      Buffer.from('{"a":"caf\\u00e9 \\/ x"}\r\n{"b":1}\n'),
      Buffer.from([0xff, 0xfe, 0x0a]),
    ]);
    writeFileSync(src, bytes);
    expect(await maskNdjsonFile(src, path.join(dir, "b.jsonl"), { file: "a.jsonl" })).toEqual([]);
    expect(readFileSync(path.join(dir, "b.jsonl")).equals(bytes)).toBe(true);
  });
});

/** claude's stream_event lines for one message streamed in `size`-character pieces, as --include-partial-messages writes them. */
function streamed(blocks: Array<{ type: "text" | "tool_use"; text: string }>, size = 7): string[] {
  const line = (event: unknown) =>
    JSON.stringify({ type: "stream_event", event, session_id: "s1", parent_tool_use_id: null, uuid: "u" });
  const lines = [line({ type: "message_start", message: { id: "msg_1", content: [] } })];
  for (const [index, b] of blocks.entries()) {
    lines.push(
      line({
        type: "content_block_start",
        index,
        content_block:
          b.type === "text" ? { type: "text", text: "" } : { type: "tool_use", id: "t", name: "Bash", input: {} },
      }),
    );
    for (let at = 0; at < b.text.length; at += size) {
      const piece = b.text.slice(at, at + size);
      lines.push(
        line({
          type: "content_block_delta",
          index,
          delta:
            b.type === "text" ? { type: "text_delta", text: piece } : { type: "input_json_delta", partial_json: piece },
        }),
      );
    }
    lines.push(line({ type: "content_block_stop", index }));
  }
  return lines;
}

/** What a reader gets back by joining a masked file's deltas, per block. */
function joinedDeltas(file: string): string[] {
  const blocks = new Map<number, string>();
  for (const l of readFileSync(file, "utf8").split("\n").filter(Boolean)) {
    const e = JSON.parse(l).event;
    if (e?.type === "content_block_delta")
      blocks.set(e.index, (blocks.get(e.index) ?? "") + (e.delta.text ?? e.delta.partial_json));
  }
  return [...blocks.values()];
}

describe("masking streamed fragments (issue 22, leak 5)", () => {
  it("joins each block's deltas, masks the secret across the fragments it spans, and keeps every line", async () => {
    const dir = tempDir();
    const command = JSON.stringify({ command: `cat > deploy/key <<'EOF'\n${PEM}\nEOF`, description: "write the key" });
    const lines = streamed([
      { type: "text", text: `Your token ${GITHUB} and the key ${ANTHROPIC} are set.` },
      { type: "tool_use", text: command },
    ]);
    const src = path.join(dir, "conversation.jsonl");
    writeFileSync(src, lines.join("\n") + "\n");
    const dest = path.join(dir, "masked.jsonl");
    const findings = await maskNdjsonFile(src, dest, { file: "session/conversation.jsonl" });

    const out = readFileSync(dest, "utf8").split("\n").filter(Boolean);
    expect(out).toHaveLength(lines.length);
    for (const l of out) expect(() => JSON.parse(l)).not.toThrow();
    const [text, input] = joinedDeltas(dest);
    expect(text).toBe("Your token [REDACTED:github-token] and the key [REDACTED:anthropic-api-key] are set.");
    expect(JSON.parse(input!).command).toBe("cat > deploy/key <<'EOF'\n[REDACTED:private-key]\nEOF");
    for (const secret of [GITHUB, ANTHROPIC, ...PEM.split("\n")])
      expect(readFileSync(dest, "utf8")).not.toContain(JSON.stringify(secret).slice(1, 8));
    // Each secret is counted once, at the line where it starts.
    expect(findings.map((f) => f.kind)).toEqual(["github-token", "anthropic-api-key", "private-key"]);
  });
});

describe("scanning text", () => {
  it("names the line of each secret in a patch, and masks text", async () => {
    const patch = `diff --git a/.env b/.env\n--- a/.env\n+++ b/.env\n@@ -1 +1,2 @@\n HOST=x\n+OPENAI_API_KEY=${OPENAI}\n`;
    const findings = await scanText(patch, { file: "session/changes/turn-002.patch", turnOfLine: () => 2 });
    expect(findings).toEqual([
      {
        kind: "openai-api-key",
        file: "session/changes/turn-002.patch",
        line: 6,
        start: 16,
        end: 16 + OPENAI.length,
        turn: 2,
      },
    ]);
    const masked = await maskTextData(`token ${GITHUB}\n`);
    expect(masked.data.toString()).toBe("token [REDACTED:github-token]\n");
    expect(masked.kinds).toEqual(["github-token"]);
  });
});
