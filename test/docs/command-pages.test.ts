/**
 * Each command's page in docs/commands/ is held to its --help, so the two cannot drift: the whole
 * command tree is walked in-process (every command loaded, as `nudge --help` loads them), and for
 * every command and subcommand there is a page in man-page shape whose OPTIONS name every option
 * --help lists, and which names no option that does not exist. Every help ends with examples.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { program } from "../../src/commands/program.js";

const PAGES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../docs/commands");
const SECTIONS = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXAMPLES", "EXIT STATUS", "SEE ALSO"];

interface Entry {
  words: string[];
  command: Command;
}

/** The commands --help lists (a hidden one is a process nudge or claude starts, not a person). */
function walk(command: Command, words: string[]): Entry[] {
  const listed = command
    .createHelp()
    .visibleCommands(command)
    .filter((sub) => command.commands.includes(sub));
  return [{ words, command }, ...listed.flatMap((sub) => walk(sub, [...words, sub.name()]))];
}

const root = await program(["node", "nudge"]);
const commands = walk(root, []);
const pageOf = (words: string[]) => path.join(PAGES, `${words.length ? words.join("-") : "nudge"}.md`);

/** The text of a page's `## NAME` section, up to the next `## `. */
function section(page: string, name: string): string {
  const start = page.indexOf(`\n## ${name}\n`);
  if (start < 0) return "";
  const rest = page.slice(start + name.length + 5);
  const end = rest.search(/\n## /);
  return end < 0 ? rest : rest.slice(0, end);
}

/** Option flags written in text: `--dry-run`, `-y`, `--no-open` (not the bare `--` before claude's arguments). */
function flagsIn(text: string): string[] {
  return [...text.matchAll(/(?<![\w-])(--?[A-Za-z][\w-]*)/g)].map((m) => m[1]!);
}

/** The flags the page's OPTIONS list: the code spans that open each `- ` item. */
function pageOptions(page: string): Set<string> {
  const flags = new Set<string>();
  for (const line of section(page, "OPTIONS").split("\n")) {
    const head = /^- ((?:`[^`]+`(?:, )?)+)/.exec(line)?.[1];
    if (head) for (const flag of flagsIn(head)) flags.add(flag);
  }
  return flags;
}

function helpOptions(command: Command): Set<string> {
  const flags = new Set<string>();
  for (const option of command.createHelp().visibleOptions(command)) {
    if (option.short) flags.add(option.short);
    if (option.long) flags.add(option.long);
  }
  return flags;
}

function helpText(command: Command): string {
  let text = "";
  command.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
  command.outputHelp();
  return text;
}

describe("docs/commands", () => {
  it("walks the whole command tree", () => {
    expect(commands.map((c) => c.words.join(" "))).toEqual(
      expect.arrayContaining(["", "claude run", "session rewind", "web"]),
    );
    expect(commands.length).toBeGreaterThan(25);
  });

  it.each(commands.map((c) => [`nudge ${c.words.join(" ")}`.trim(), c] as const))(
    "%s has a page in man-page shape",
    (name, { words }) => {
      const file = pageOf(words);
      expect(existsSync(file), `${path.relative(process.cwd(), file)} is missing`).toBe(true);
      const page = readFileSync(file, "utf8");
      const at = SECTIONS.map((s) => page.indexOf(`\n## ${s}\n`));
      expect(
        at.every((i) => i >= 0),
        `sections: ${SECTIONS.join(", ")}`,
      ).toBe(true);
      expect([...at].sort((a, b) => a - b)).toEqual(at);
      expect(section(page, "NAME")).toContain(`${name} — `);
      expect(section(page, "SYNOPSIS")).toContain(name);
    },
  );

  it.each(commands.map((c) => [`nudge ${c.words.join(" ")}`.trim(), c] as const))(
    "%s: the page's options are --help's",
    (_name, { words, command }) => {
      const page = readFileSync(pageOf(words), "utf8");
      const help = helpOptions(command);
      const listed = pageOptions(page);
      expect(
        [...help].filter((f) => !listed.has(f)),
        "in --help, not on the page",
      ).toEqual([]);
      expect(
        [...listed].filter((f) => !help.has(f)),
        "on the page, not in --help",
      ).toEqual([]);
      const synopsis = flagsIn(section(page, "SYNOPSIS").replace(/-- claude args/g, ""));
      expect(
        synopsis.filter((f) => !help.has(f)),
        "in the SYNOPSIS, not in --help",
      ).toEqual([]);
    },
  );

  it.each(commands.map((c) => [`nudge ${c.words.join(" ")}`.trim(), c] as const))(
    "%s --help gives examples",
    (_name, { command }) => {
      expect(helpText(command)).toMatch(/\nExamples:\n {2}\$ /);
    },
  );

  /** Every command --help does not list (run by nudge or claude) still answers --help with examples. */
  const hidden = (command: Command, words: string[]): Entry[] =>
    command.commands.flatMap((sub) => {
      const entries = hidden(sub, [...words, sub.name()]);
      return commands.some((c) => c.command === sub)
        ? entries
        : [{ words: [...words, sub.name()], command: sub }, ...entries];
    });
  it.each(hidden(root, []).map((c) => [`nudge ${c.words.join(" ")}`, c] as const))(
    "%s (hidden) --help gives examples",
    (_name, { command }) => {
      expect(helpText(command)).toMatch(/\nExamples:\n {2}\$ /);
    },
  );
});
