/**
 * A store of synthetic sessions for the search bench: each bundle as nudge writes it (manifest,
 * turn journal, conversation.jsonl in claude's stream-json, timing, patches, a copy of claude's
 * transcript), so the index reads it through the same session layer as a recorded one. The text
 * is varied (a Zipf-like draw from a vocabulary of made-up words, English, identifiers, hex ids,
 * Japanese), so neither the index nor grep sees one page repeated a thousand times. Seeded: every
 * run writes the same corpus.
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Manifest, Turn } from "../src/store/manifest-schema.js";
import { writeBundle } from "../src/store/store.js";

export interface CorpusShape {
  sessions: number;
  turns: number;
  /** Characters of tool output per turn. */
  outputChars: number;
}

/** Words planted for the queries, with how many sessions hold each. */
export const PLANTED = {
  rare: "xylophonequartz",
  phrase: ["connection", "refused", "while", "retrying"],
  cjk: "認証タイムアウト",
} as const;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ENGLISH =
  "the a to of and in is it that for on with as this was be by not are from or have an they which one you were all we when there can use each file test error function value return request timeout auth user session token cache build config server client retry login parse import export module type string number fix change update add remove check run".split(
    " ",
  );
const JAPANESE = [
  "認証",
  "タイムアウト",
  "を",
  "修正",
  "しました",
  "設定",
  "ファイル",
  "エラー",
  "接続",
  "再試行",
  "ユーザー",
  "の",
  "が",
  "です",
];

export async function makeCorpus(store: string, root: string, shape: CorpusShape): Promise<{ recordingBytes: number }> {
  const random = rng(42);
  const vocab = Array.from({ length: 60_000 }, (_, i) => made(i));
  const word = () => {
    const r = random();
    if (r < 0.45) return ENGLISH[Math.floor(random() * ENGLISH.length)]!;
    if (r < 0.5) return `${ENGLISH[Math.floor(random() * ENGLISH.length)]}_${vocab[Math.floor(random() * 500)]}`;
    if (r < 0.52) return randomUUID().slice(0, 8);
    // Zipf-like: low indexes far more often.
    return vocab[Math.floor(vocab.length * random() ** 3)]!;
  };
  const sentence = (n: number) => Array.from({ length: n }, word).join(" ");
  const japanese = (n: number) =>
    Array.from({ length: n }, () => JAPANESE[Math.floor(random() * JAPANESE.length)]).join("");
  let recordingBytes = 0;
  for (let s = 0; s < shape.sessions; s++) {
    const id = `b${String(s).padStart(9, "0")}`;
    const dir = path.join(store, "sessions", id);
    mkdirSync(path.join(dir, "changes"), { recursive: true });
    mkdirSync(path.join(dir, "claude"), { recursive: true });
    const claudeId = randomUUID();
    const start = Date.UTC(2026, 0, 1) + s * 3_600_000;
    const lines: string[] = [];
    const times: number[] = [];
    let bytes = 0;
    const turns: Turn[] = [];
    const emit = (obj: unknown, at: number) => {
      const line = JSON.stringify(obj) + "\n";
      lines.push(line);
      times.push(at);
      bytes += Buffer.byteLength(line);
    };
    turns.push(turn0(id, start));
    writeFileSync(path.join(dir, "changes", "turn-000.patch"), "");
    for (let n = 1; n <= shape.turns; n++) {
      const at = start + n * 60_000;
      const from = { line: lines.length, byte: bytes };
      let prompt = `${sentence(8)} ${random() < 0.2 ? japanese(6) : ""}`.trim();
      if (s % 100 === 7 && n === 3) prompt += ` ${PLANTED.rare}`;
      if (s % 10 === 3 && n === 2) prompt += ` the ${PLANTED.phrase.join(" ")} the server`;
      if (s % 20 === 5 && n === 4) prompt += ` ${PLANTED.cjk}を修正`;
      emit(
        {
          type: "user",
          message: { role: "user", content: prompt },
          session_id: claudeId,
          parent_tool_use_id: null,
          uuid: randomUUID(),
          isReplay: true,
        },
        at,
      );
      const file = `src/m${s % 50}/f${(s * 7 + n) % 300}.ts`;
      emit(
        assistant(claudeId, [
          { type: "text", text: sentence(30) },
          {
            type: "tool_use",
            id: `toolu_${s}_${n}`,
            name: "Bash",
            input: { command: `npm test -- ${word()} ${word()}`, description: sentence(4) },
          },
        ]),
        at + 1000,
      );
      const output = Array.from({ length: Math.ceil(shape.outputChars / 80) }, () =>
        random() < 0.05 ? japanese(20) : sentence(12),
      )
        .join("\n")
        .slice(0, shape.outputChars);
      emit(
        {
          type: "user",
          message: {
            role: "user",
            content: [{ tool_use_id: `toolu_${s}_${n}`, type: "tool_result", content: output }],
          },
          session_id: claudeId,
          parent_tool_use_id: null,
          uuid: randomUUID(),
        },
        at + 5000,
      );
      emit(
        assistant(claudeId, [
          {
            type: "tool_use",
            id: `toolu_e${s}_${n}`,
            name: "Edit",
            input: { file_path: path.join(root, file), old_string: sentence(6), new_string: sentence(6) },
          },
        ]),
        at + 6000,
      );
      emit(
        {
          type: "user",
          message: {
            role: "user",
            content: [
              {
                tool_use_id: `toolu_e${s}_${n}`,
                type: "tool_result",
                content: "The file has been updated successfully.",
              },
            ],
          },
          session_id: claudeId,
          parent_tool_use_id: null,
          uuid: randomUUID(),
        },
        at + 6500,
      );
      emit(assistant(claudeId, [{ type: "text", text: sentence(60) }]), at + 8000);
      emit(
        {
          type: "result",
          subtype: "success",
          is_error: false,
          duration_ms: 9000,
          num_turns: 3,
          result: "done",
          session_id: claudeId,
          total_cost_usd: 0.01,
          usage: { input_tokens: 1000, output_tokens: 100 },
        },
        at + 9000,
      );
      const patch = `diff --git a/${file} b/${file}\nindex 1111111..2222222 100644\n--- a/${file}\n+++ b/${file}\n@@ -1 +1 @@\n-${sentence(6)}\n+${sentence(6)}\n`;
      const patchFile = `changes/turn-${String(n).padStart(3, "0")}.patch`;
      writeFileSync(path.join(dir, patchFile), patch);
      turns.push({
        ...turn0(id, at),
        n,
        prompt,
        endedAt: new Date(at + 9500).toISOString(),
        lines: { from: from.line, to: lines.length },
        bytes: { from: from.byte, to: bytes },
        input: null,
        result: {
          subtype: "success",
          isError: false,
          costUsd: 0.01,
          durationMs: 9000,
          numTurns: 3,
          usage: { input_tokens: 1000, output_tokens: 100 },
        },
        claudeSessionId: claudeId,
        patch: {
          file: patchFile,
          sha256: createHash("sha256").update(patch).digest("hex"),
          bytes: patch.length,
          filesChanged: 1,
          insertions: 1,
          deletions: 1,
          binaryFiles: 0,
        },
        transcript: `claude/${claudeId}.jsonl`,
      } as Turn);
    }
    const conversation = lines.join("");
    writeFileSync(path.join(dir, "conversation.jsonl"), conversation);
    writeFileSync(path.join(dir, "timing.txt"), times.map((t) => `${t}\n`).join(""));
    // claude's own transcript holds the same messages again: a recording carries both.
    writeFileSync(path.join(dir, "claude", `${claudeId}.jsonl`), conversation);
    recordingBytes += 2 * Buffer.byteLength(conversation);
    const manifest = {
      format: 2,
      id,
      createdAt: new Date(start).toISOString(),
      updatedAt: new Date(start + shape.turns * 60_000).toISOString(),
      state: "complete",
      repo: { root, cwd: root, baseCommit: "0".repeat(40), branch: "main", worktree: null },
      claude: { version: "2.1.329", model: "claude-bench" },
      parent: null,
      resume: null,
      rewoundTo: null,
      origin: null,
      summary: {
        turns: shape.turns,
        costUsd: 0.01 * shape.turns,
        durationMs: 9000 * shape.turns,
        firstPrompt: turns[1]?.prompt ?? null,
        lastPrompt: turns.at(-1)?.prompt ?? null,
      },
      turns,
      unsaved: [],
    } as unknown as Manifest;
    await writeBundle(dir, manifest);
  }
  return { recordingBytes };
}

function assistant(claudeId: string, content: unknown[]) {
  return {
    type: "assistant",
    message: {
      id: `msg_${randomUUID().slice(0, 12)}`,
      type: "message",
      role: "assistant",
      model: "claude-bench",
      content,
      stop_reason: null,
      usage: { input_tokens: 100, output_tokens: 10 },
    },
    parent_tool_use_id: null,
    session_id: claudeId,
    uuid: randomUUID(),
  };
}

function turn0(id: string, at: number): Turn {
  return {
    n: 0,
    prompt: null,
    status: "complete",
    startedAt: new Date(at).toISOString(),
    endedAt: new Date(at).toISOString(),
    lines: { from: 0, to: 0 },
    bytes: { from: 0, to: 0 },
    input: null,
    result: null,
    claudeSessionId: null,
    lastAssistantUuid: null,
    head: "0".repeat(40),
    snapshot: { commit: "1".repeat(40), tree: "2".repeat(40), ref: `refs/nudge/sessions/${id}` },
    patch: {
      file: "changes/turn-000.patch",
      sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
      bytes: 0,
      filesChanged: 0,
      insertions: 0,
      deletions: 0,
      binaryFiles: 0,
    },
    edits: null,
    transcript: null,
    transcriptBytes: null,
    compaction: null,
  } as Turn;
}

/** Made-up words: syllables from the index, so the vocabulary is large and stable. */
function made(i: number): string {
  const syl = ["ka", "lo", "mi", "ser", "tan", "vo", "qu", "ri", "zen", "pa", "dor", "el", "fi", "gu", "ho", "ju"];
  let out = "";
  let k = i + 17;
  do {
    out += syl[k % syl.length];
    k = Math.floor(k / syl.length);
  } while (k > 0);
  return out;
}
