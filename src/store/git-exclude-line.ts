/**
 * The line `hooks install --claude` adds to the repository's info/exclude (so the project's
 * .claude/settings.local.json, which holds this machine's paths, is never committed), and its
 * removal by `uninstall --claude`. What install added is noted in the store, so uninstall takes
 * out exactly that (the line, and the newline put before it when the file did not end with one)
 * and leaves every other byte as it is; a line the user had before is never nudge's.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "./atomic-write.js";
import * as z from "../base/zod.js";

const Added = z.object({
  version: z.literal(1),
  file: z.string(),
  /** The bytes appended, as appended. */
  text: z.string(),
  /** The file was made by install (none before): removed again when nothing else was written in it since. */
  made: z.boolean(),
});

/** What appending `lines` to a file holding `before` writes: a newline first when its last line has none. */
export function appendedText(before: string | null, lines: string): string {
  return `${before === null || before === "" || before.endsWith("\n") ? "" : "\n"}${lines}`;
}

/** Append `line` to `exclude` and note what was added in `noteFile`. */
export async function addExcludeLine(exclude: string, line: string, noteFile: string): Promise<void> {
  await fs.mkdir(path.dirname(exclude), { recursive: true });
  const before = await fs.readFile(exclude, "utf8").catch(() => null);
  const text = appendedText(before, `${line}\n`);
  const note: z.infer<typeof Added> = { version: 1, file: exclude, text, made: before === null };
  // The note first: a line nudge added is always one it knows it added.
  await writeFileAtomic(noteFile, `${JSON.stringify(note)}\n`, 0o600);
  await fs.appendFile(exclude, text);
}

/** Take out the line noted in `noteFile` (its last occurrence as appended); the file otherwise as it is. Returns the file changed, or null. */
export async function removeExcludeLine(noteFile: string): Promise<string | null> {
  const note = await readNote(noteFile);
  if (!note) return null;
  const current = await fs.readFile(note.file, "utf8").catch(() => null);
  let changed: string | null = null;
  if (current !== null) {
    const at = lastLineAt(current, note.text);
    if (at !== -1) {
      const end = at + note.text.length;
      // The newline install put before its line goes too, unless lines were added after it since (they would join the one before).
      const from = note.text.startsWith("\n") && end < current.length ? at + 1 : at;
      const rest = current.slice(0, from) + current.slice(end);
      if (rest === "" && note.made) await fs.rm(note.file, { force: true });
      else await writeFileAtomic(note.file, rest, ((await fs.stat(note.file)).mode ?? 0o644) & 0o777);
      changed = note.file;
    }
  }
  await fs.rm(noteFile, { force: true });
  return changed;
}

/** Where `text` was appended: its last occurrence that stands as whole lines (at the file's start or after a newline). */
function lastLineAt(current: string, text: string): number {
  for (let at = current.lastIndexOf(text); at !== -1; at = at === 0 ? -1 : current.lastIndexOf(text, at - 1)) {
    if (text.startsWith("\n") || at === 0 || current[at - 1] === "\n") return at;
  }
  return -1;
}

async function readNote(file: string): Promise<z.infer<typeof Added> | null> {
  try {
    const parsed = Added.safeParse(JSON.parse(await fs.readFile(file, "utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null; // none (install added nothing), or damaged: nothing is taken out
  }
}
