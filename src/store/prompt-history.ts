/**
 * The prompts typed at nudge's prompt line, kept per repository across runs (`<store>/prompt-history.jsonl`,
 * one `{"at","prompt"}` line each), for ↑ and Ctrl-R as a shell keeps its history. Each prompt
 * is one append of one line, so two sessions in the repository at once add theirs without losing
 * the other's; a line that does not parse (a crash mid-write) is skipped. Capped: past twice
 * HISTORY_CAP lines the file is rewritten, atomically, with the last HISTORY_CAP.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import * as z from "../base/zod.js";
import { writeFileAtomic } from "./atomic-write.js";
import type { Store } from "./store.js";

/** Prompts kept (the newest); what ↑ can reach. */
const HISTORY_CAP = 1000;
/** A prompt longer than this (a huge paste) is not kept: history is for what is typed again. */
const HISTORY_PROMPT_CHARS = 64 * 1024;

const Entry = z.object({ at: z.string(), prompt: z.string() });

export interface PromptHistory {
  /** The prompts, oldest first, at most HISTORY_CAP. */
  readonly prompts: string[];
  /** Keep a sent prompt (a failure to write is not the session's problem: the history is a convenience). */
  add(prompt: string): Promise<void>;
}

function historyFile(store: Store): string {
  return path.join(store.dir, "prompt-history.jsonl");
}

export async function openPromptHistory(store: Store): Promise<PromptHistory> {
  const file = historyFile(store);
  const lines = (await fs.readFile(file, "utf8").catch(() => "")).split("\n").filter(Boolean);
  const prompts: string[] = [];
  for (const line of lines) {
    const entry = parseEntry(line);
    if (entry) prompts.push(entry.prompt);
  }
  if (lines.length > 2 * HISTORY_CAP) {
    await writeFileAtomic(file, lines.slice(-HISTORY_CAP).join("\n") + "\n", 0o600).catch(() => undefined);
  }
  return {
    prompts: prompts.slice(-HISTORY_CAP),
    async add(prompt) {
      if (!prompt.trim() || prompt.length > HISTORY_PROMPT_CHARS) return;
      const line = `${JSON.stringify({ at: new Date().toISOString(), prompt })}\n`;
      try {
        await fs.mkdir(path.dirname(file), { recursive: true });
        // One write of one line with O_APPEND: lines of two sessions never interleave.
        await fs.appendFile(file, line, { mode: 0o600 });
      } catch {
        // A read-only store or a full disk: the prompt is still sent, only not remembered.
      }
    },
  };
}

function parseEntry(line: string): z.infer<typeof Entry> | null {
  try {
    const parsed = Entry.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
