/**
 * Conversation storage with the real claude (issue 24): the pinned claude CLI, driven by the
 * scripted Messages API on loopback as the tests drive it, records two sessions of the same kind
 * of turn (each reads a file, edits it, runs a command and answers in a streamed paragraph), one
 * short and one long. What the bundle's conversation grew between them (transcript copy, stream,
 * input, turn records) ÷ what claude's own transcript (and its side folder) grew: per-turn growth,
 * the constant start of a session cancelled out.
 */
import { execa } from "execa";
import { readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CLAUDE_BIN, claudeEnv } from "../test/support/claude-env.js";
import { startScriptedApi, type ScriptStep } from "../test/support/scripted-api.js";
import { generateRepo, scratchDir } from "./repo.js";
import { progress } from "./stats.js";
import { storeSizes, treeBytes, type StoreSizes } from "./store-size.js";

const CLI = process.env.BENCH_CLI ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/nudge.mjs");

export interface ConversationStorageResult {
  /** Turns in the short and the long session. */
  turns: [number, number];
  /** The size of the pieces the API streamed text and tool input in, null for one piece a block. */
  chunk: number | null;
  /** claude's transcript and side folder, whole, after each session. */
  claude: [number, number];
  /** The bundle's parts after each session. */
  bundle: [StoreSizes["bundle"], StoreSizes["bundle"]];
}

/** `chunk`: the API streams each text and tool input in pieces of this many characters (default: one piece, as the tests' scripted API does). */
export async function conversationStorage(short = 3, long = 15, chunk?: number): Promise<ConversationStorageResult> {
  const a = await recordReal(short, chunk);
  const b = await recordReal(long, chunk);
  return { turns: [short, long], chunk: chunk ?? null, claude: [a.claude, b.claude], bundle: [a.bundle, b.bundle] };
}

/** Per turn, between the short session and the long one. */
export function perTurn(r: ConversationStorageResult): { claude: number; bundle: StoreSizes["bundle"] } {
  const turns = r.turns[1] - r.turns[0];
  const bundle = Object.fromEntries(
    Object.keys(r.bundle[1]).map((k) => [
      k,
      (r.bundle[1][k as keyof StoreSizes["bundle"]] - r.bundle[0][k as keyof StoreSizes["bundle"]]) / turns,
    ]),
  );
  return { claude: (r.claude[1] - r.claude[0]) / turns, bundle: bundle as StoreSizes["bundle"] };
}

/** The conversation's part of a bundle: everything but the patches. */
export function conversationBytes(b: StoreSizes["bundle"]): number {
  return b.transcriptCopy + b.stream + b.input + b.journal + b.other;
}

async function recordReal(
  turns: number,
  chunk: number | undefined,
): Promise<{ claude: number; bundle: StoreSizes["bundle"] }> {
  progress(
    `conversation storage: a ${turns}-turn session with the real claude${chunk ? `, streamed in ${chunk}-character pieces` : ""}`,
  );
  const repo = await generateRepo({ files: 200 });
  const steps: ScriptStep[] = [];
  const prompts: string[] = [];
  for (let n = 1; n <= turns; n++) {
    const file = path.join(repo, `module-${n}.ts`);
    writeFileSync(file, sourceText(n));
    steps.push(
      { tool: "Read", input: { file_path: file } },
      {
        tool: "Edit",
        input: {
          file_path: file,
          old_string: `export const limit${n} = ${n};`,
          new_string: `export const limit${n} = ${n * 10};`,
        },
      },
      {
        tool: "Bash",
        input: { command: `grep -c export ${path.basename(file)} && ls | head -20`, description: "check the module" },
      },
      { text: answerText(n) },
    );
    prompts.push(`turn ${n}: raise the limit in module-${n}.ts and check it`);
  }
  await execa("git", ["add", "-A"], { cwd: repo });
  await execa("git", ["commit", "-qm", "modules"], { cwd: repo });
  // In pieces, as the real API streams tokens, every piece is a partial-message event nudge keeps.
  const api = await startScriptedApi(steps, chunk ? { chunk } : {});
  try {
    const config = path.join(scratchDir("claude-config"), "claude");
    const run = await execa(
      "node",
      [CLI, "claude", "run", "--claude-bin", CLAUDE_BIN, "--permission-mode", "acceptEdits", "--allowed-tools", "Bash"],
      {
        cwd: repo,
        env: { NO_COLOR: "1", ...claudeEnv(api, config) },
        input: prompts.join("\n") + "\n",
        reject: false,
        timeout: 60_000 + turns * 20_000,
      },
    );
    const id = /session (\w+):/.exec(run.stderr)?.[1];
    if (run.exitCode !== 0 || !id)
      throw new Error(`nudge claude run failed (${run.exitCode}): ${run.stderr.slice(-2000)}`);
    const projects = path.join(config, "projects");
    const claude = readdirSync(projects).reduce((sum, p) => sum + treeBytes(path.join(projects, p)), 0);
    return { claude, bundle: storeSizes(repo, id).bundle };
  } finally {
    await api.close();
  }
}

/** A module of a few KB, different in every turn (claude's Read puts it in the transcript). */
function sourceText(n: number): string {
  const lines = [`// module ${n}: limits and helpers`, `export const limit${n} = ${n};`];
  for (let i = 0; i < 60; i++)
    lines.push(
      `export function helper${n}_${i}(value: number): number {`,
      `  return value * ${i + n} + ${(i * 7919 + n) % 1000};`,
      "}",
    );
  return lines.join("\n") + "\n";
}

function answerText(n: number): string {
  return (
    `I raised limit${n} in module-${n}.ts from ${n} to ${n * 10}, and the module still exports every helper ` +
    `(grep counts them). Nothing else in the repository refers to limit${n}, so no other file needed a change; ` +
    `if you want the helpers to respect the new limit, say so and I will thread it through helper${n}_0 to helper${n}_59.`
  );
}
