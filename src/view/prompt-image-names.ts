/**
 * The images a session's prompts carried, for `session show` (`[image: shot.png 120 KB]`, as replay
 * says) and for `session export`'s warning that images are not scanned for secrets. Read from
 * `input.jsonl`, what nudge wrote to claude's stdin, byte for byte (images stored apart put
 * back): a prompt with images is one line with image blocks beside its text. Only lines that
 * mention an image block are parsed.
 */
import { readInput } from "../store/conversation-reader.js";
import type { Turn } from "../store/manifest-schema.js";
import { imageLabel, imageWords } from "../live/prompt-images.js";

export interface PromptImageName {
  /** The turn the prompt began, or null for a line outside every saved turn's input range. */
  turn: number | null;
  /** `[image: shot.png 120 KB]`: named by the path the prompt's text gives it, else `#1`. */
  label: string;
}

export async function promptImageNames(dir: string, turns: Pick<Turn, "n" | "input">[]): Promise<PromptImageName[]> {
  const found: PromptImageName[] = [];
  for (const { n, bytes } of await readInput(dir)) {
    if (!bytes.includes('"image"')) continue;
    const turn = turns.find((t) => t.input && n >= t.input.from && n < t.input.to)?.n ?? null;
    for (const label of imageLabels(bytes.toString("utf8"))) found.push({ turn, label });
  }
  return found;
}

/** The image blocks of one user line, labelled; none when it is not one (or not JSON). */
function imageLabels(line: string): string[] {
  let event: unknown;
  try {
    event = JSON.parse(line);
  } catch {
    return [];
  }
  const content = (event as { type?: unknown; message?: { content?: unknown } } | null)?.message?.content;
  if ((event as { type?: unknown }).type !== "user" || !Array.isArray(content)) return [];
  const blocks = content.filter((b): b is Record<string, unknown> => typeof b === "object" && b !== null);
  const images = blocks.filter((b) => b.type === "image");
  if (images.length === 0) return [];
  const words = blocks.map((b) => (b.type === "text" && typeof b.text === "string" ? b.text : "")).join("\n");
  const names = imageWords(words).map((w) => w.file.split("/").at(-1)!);
  return images.map((image, i) => {
    const source = image.source as { data?: unknown } | undefined;
    return imageLabel(names[i] ?? `#${i + 1}`, typeof source?.data === "string" ? source.data : "");
  });
}
