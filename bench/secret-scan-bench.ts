/**
 * Secret scanning speed on conversation-like NDJSON (100 MB unless told): secretlint alone on the
 * raw text, gitleaks' ported rules with the providers' formats alone, the block detections alone
 * (PuTTY, base64-wrapped, prose passwords, Discord), then nudge's scan (decoded string values) and
 * mask (scan + a masked copy). The cpu column is the process's CPU time: on a loaded machine it
 * moves less than the wall time.
 *
 *     node --import tsx bench/secret-scan-bench.ts [megabytes]
 */
import { lintSource } from "@secretlint/core";
import { creator as recommended } from "@secretlint/secretlint-rule-preset-recommend";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { maskNdjsonFile, scanNdjsonFile } from "../src/secrets/secrets.js";
import { GITLEAKS_RULES } from "../src/secrets/gitleaks-rules.js";
import { PortedRules } from "../src/secrets/ported-rules.js";
import { PROVIDER_RULES } from "../src/secrets/provider-rules.js";
import { blockFindings } from "../src/secrets/secret-blocks.js";

const megabytes = Number(process.argv[2] ?? 100);
const dir = mkdtempSync(path.join(os.tmpdir(), "nudge-secret-bench-"));
const file = path.join(dir, "conversation.jsonl");

const code = "export function add(a: number, b: number): number {\n  return a + b; // the sum\n}\n".repeat(20);
const key = "sk-ant-api03-" + "Xy7_Q2-wErTyUiOpAsDfGhJkLzXcVbNm".repeat(3).slice(0, 93) + "AA";
const lines: string[] = [];
let size = 0;
for (let i = 0; size < megabytes * 1e6; i++) {
  const line =
    i % 3 === 0
      ? {
          type: "assistant",
          uuid: `u-${i}`,
          session_id: "s",
          message: {
            role: "assistant",
            content: [
              { type: "text", text: `Step ${i}: I will edit src/file-${i}.ts and run the tests.` },
              {
                type: "tool_use",
                id: `toolu_${i}`,
                name: "Edit",
                input: { file_path: `/home/ana/app/src/file-${i}.ts`, old_string: "a - b", new_string: "a + b" },
              },
            ],
          },
        }
      : i % 3 === 1
        ? {
            type: "user",
            uuid: `u-${i}`,
            session_id: "s",
            message: {
              role: "user",
              content: [
                {
                  type: "tool_result",
                  tool_use_id: `toolu_${i - 1}`,
                  content: i % 400 === 1 ? `.env\nANTHROPIC_API_KEY=${key}\nDB_PASSWORD=hunter22\n` : code,
                },
              ],
            },
          }
        : { type: "system", subtype: "status", session_id: "s", cwd: "/home/ana/app", n: i };
  const text = JSON.stringify(line);
  lines.push(text);
  size += text.length + 1;
}
writeFileSync(file, lines.join("\n") + "\n");
const mb = statSync(file).size / 1e6;

async function time<T>(label: string, run: () => Promise<T>, describe: (t: T) => string): Promise<void> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await run();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  process.stdout.write(
    `| ${label} | ${mb.toFixed(1)} MB | ${seconds.toFixed(2)} s | ${cpuSeconds.toFixed(2)} s | ${(mb / seconds).toFixed(1)} MB/s | ${describe(result)} |\n`,
  );
}

process.stdout.write(
  `Secret scanning on Node ${process.version} (secretlint recommended preset)\n| what | input | time | cpu | speed | found |\n|---|---:|---:|---:|---:|---|\n`,
);
const raw = lines.join("\n");
await time(
  "secretlint alone, raw text",
  () =>
    lintSource({
      source: { content: raw, filePath: "x.jsonl", contentType: "text" },
      options: { config: { rules: [{ id: recommended.meta.id, rule: recommended }] }, noPhysicFilePath: true },
    }),
  (r) => `${r.messages.length} findings`,
);
const ported = new PortedRules([...GITLEAKS_RULES, ...PROVIDER_RULES]);
await time(
  `${GITLEAKS_RULES.length} gitleaks + ${PROVIDER_RULES.length} provider rules alone, raw text`,
  async () => ported.findings(raw),
  (f) => `${f.length} findings`,
);
await time(
  "blocks alone (PuTTY, base64, prose, Discord), raw text",
  async () => blockFindings(raw, () => []),
  (f) => `${f.length} findings`,
);
await time(
  "nudge scan (string values)",
  () => scanNdjsonFile(file, { file: "conversation.jsonl" }),
  (f) => `${f.length} findings`,
);
await time(
  "nudge mask (scan + masked copy)",
  () => maskNdjsonFile(file, path.join(dir, "masked.jsonl"), { file: "conversation.jsonl" }),
  (f) => `${f.length} masked`,
);
// A long one-line text (minified code, a base64 blob) against the same text in lines: a scan to the
// line's ends per hit once made the one line 8× slower.
const oneLine = "id AKIAQYLPMN5HHHFPZAM2, the secret api_key=getKey() ".repeat(8000);
const inLines = oneLine.replaceAll(", ", ",\n");
const seconds = (text: string) => {
  const started = performance.now();
  ported.findings(text);
  return (performance.now() - started) / 1000;
};
seconds(inLines.slice(0, 2000));
const [a, b] = [seconds(oneLine), seconds(inLines)];
process.stdout.write(
  `| one ${(oneLine.length / 1e6).toFixed(1)} MB line ÷ the same text in lines | | ${a.toFixed(3)} s ÷ ${b.toFixed(3)} s | | ${(a / b).toFixed(2)}× | |\n`,
);
rmSync(dir, { recursive: true, force: true });
