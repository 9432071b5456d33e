/**
 * The recording guide (docs/guide/recording.md) names every key the prompt understands. Each key a terminal can send
 * (control characters, Alt with a letter, arrows and their Ctrl/Alt forms, Home, End, Delete) is
 * decoded as nudge decodes it (readline's keypress events) and given to the prompt's line editor
 * with text, history and a big paste on the line; every key that does something there, and the
 * keys the prompt line itself takes (Ctrl-C, Esc, Shift-Tab, Ctrl-Z), must be named in the
 * guide's table of keys.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LineEditor, type Key } from "../../src/terminal/line-editor.js";

const GUIDE = readFileSync(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../docs/guide/recording.md"),
  "utf8",
);
const TABLE = GUIDE.slice(
  GUIDE.indexOf("- The keys the prompt understands"),
  GUIDE.indexOf("Prompts are kept per repository"),
);

/** What a terminal sends for a key, and the key's name as the guide writes it. */
function terminalKeys(): Array<[string, string]> {
  const keys: Array<[string, string]> = [];
  const special: Record<string, string> = { "\r": "Enter", "\n": "Ctrl-J", "\t": "Tab", "\b": "Ctrl-H" };
  for (let c = 1; c <= 26; c++) {
    const ch = String.fromCharCode(c);
    keys.push([ch, special[ch] ?? `Ctrl-${String.fromCharCode(64 + c)}`]);
  }
  for (let c = 97; c <= 122; c++) keys.push([`\u001b${String.fromCharCode(c)}`, `Alt-${String.fromCharCode(c - 32)}`]);
  keys.push(["\u007f", "Backspace"], ["\u001b\u007f", "Alt-Backspace"], ["\u001b\r", "Alt-Enter"]);
  const arrows: Array<[string, string]> = [
    ["A", "↑"],
    ["B", "↓"],
    ["C", "→"],
    ["D", "←"],
  ];
  for (const [code, arrow] of arrows)
    keys.push([`\u001b[${code}`, arrow], [`\u001b[1;5${code}`, `Ctrl-${arrow}`], [`\u001b[1;3${code}`, `Alt-${arrow}`]);
  keys.push(["\u001b[H", "Home"], ["\u001b[F", "End"], ["\u001b[3~", "Delete"], ["\u001b[Z", "Shift-Tab"]);
  return keys;
}

/** The key as nudge's keyboard gets it from readline. */
async function decode(sequence: string): Promise<Key[]> {
  const input = new PassThrough();
  readline.emitKeypressEvents(input);
  const keys: Key[] = [];
  input.on("keypress", (ch: string | undefined, key: Key | undefined) =>
    keys.push(key ? { ...key } : { sequence: ch }),
  );
  input.write(sequence);
  await new Promise((r) => setTimeout(r, 5));
  input.destroy();
  return keys;
}

/** An editor where any key can have something to do: text on two lines, the cursor inside a word, history, a big paste. */
function busyEditor(): LineEditor {
  const editor = new LineEditor();
  editor.loadHistory(["an earlier prompt"]);
  editor.key({ name: "paste", text: Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n") });
  for (const ch of " one two\\") editor.key({ sequence: ch });
  editor.key({ name: "return", sequence: "\r" }); // a trailing \: a second line
  for (const ch of "three four") editor.key({ sequence: ch });
  editor.key({ name: "left", sequence: "\u001b[D" });
  editor.key({ name: "left", sequence: "\u001b[D" });
  return editor;
}

describe("the recording guide's keys", () => {
  it("names every key the prompt's editor acts on", async () => {
    const acted: string[] = [];
    for (const [sequence, name] of terminalKeys()) {
      for (const key of await decode(sequence)) if (busyEditor().key(key) !== "ignored") acted.push(name);
    }
    // Sanity: the decoding and the editor work (these keys certainly act).
    expect(acted).toEqual(expect.arrayContaining(["Ctrl-A", "Alt-B", "←", "Backspace", "Enter"]));
    const missing = [...new Set(acted)].filter((name) => !named(name));
    expect(missing).toEqual([]);
  });

  it("names the keys the prompt line and a Ctrl-R search take before the editor", () => {
    const missing = ["Ctrl-C", "Esc", "Shift-Tab", "Ctrl-Z", "Ctrl-D", "Ctrl-R", "Ctrl-O"].filter(
      (name) => !named(name),
    );
    expect(missing).toEqual([]);
    // The search's own keys are in its row.
    const search = TABLE.split("\n").find((row) => row.startsWith("  | Ctrl-R |")) ?? "";
    for (const key of ["Ctrl-G", "Esc", "Backspace", "Enter"]) expect(search).toContain(key);
  });
});

/** The name stands on its own in the table's key column ("Ctrl-A" in "Ctrl-A / Ctrl-E", not inside "Ctrl-AB"). */
function named(name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return TABLE.split("\n").some((row) => {
    const keyColumn = row.split("|")[1] ?? "";
    return new RegExp(`(^|[\\s,/(])${escaped}($|[\\s,/)])`).test(keyColumn);
  });
}
