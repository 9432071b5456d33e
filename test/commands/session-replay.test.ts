/**
 * `nudge session replay` on a real recording (real claude binary, scripted API, 3 turns). Under
 * test stdout is a pipe, not a terminal, so every replay here must be instant.
 */
import { appendFileSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readStreamOf, writeStreamOf } from "../support/stream.js";
import { readManifestFile } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { recordThreeTurnsForFile } from "../support/three-turns.js";

let repo: string;
let id: string;
let bundle: string;

recordThreeTurnsForFile((recorded) => ({ repo, id, dir: bundle } = recorded));

// runNudge's stdout and stderr have their final newline stripped (execa's default), so exact matches end without one.
const replay = (...args: string[]) => runNudge(["session", "replay", ...args], { cwd: repo });

/** Every needle occurs in `text`, each after the one before. */
function expectInOrder(text: string, needles: Array<string | RegExp>): void {
  const find = (rest: string, needle: string | RegExp): [number, number] => {
    if (typeof needle === "string") return [rest.indexOf(needle), needle.length];
    const m = needle.exec(rest);
    return m ? [m.index, m[0].length] : [-1, 0];
  };
  let at = 0;
  for (const needle of needles) {
    const [index, length] = find(text.slice(at), needle);
    expect(index, `${String(needle)} after offset ${at} in:\n${text}`).toBeGreaterThanOrEqual(0);
    at += index + length;
  }
}

describe("nudge session replay", () => {
  it("replays every turn in order: header, prompt, tools, assistant text, end line", async () => {
    const run = await replay(id.slice(0, 4));
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toBe("");
    expectInOrder(run.stdout, [
      "── turn 1 · write notes ──\n",
      "› write notes\n",
      "⏺ Write(notes.txt)\n",
      "Wrote notes.txt.\n",
      /● turn 1 · success · .* · 1 file \+3 -0\n/,
      "── turn 2 · edit notes ──\n",
      "› edit notes\n",
      "⏺ Edit(notes.txt)\n",
      "Edited notes.txt.\n",
      /● turn 2 · success · .*\n/,
      "── turn 3 · shuffle the files ──\n",
      "› shuffle the files\n",
      "⏺ Bash(printf",
      "Shuffled.\n",
      /● turn 3 · success · .*$/,
    ]);
    expect(run.stdout).not.toContain("\u001b["); // NO_COLOR
  });

  it("--turn 2 replays only turn 2", async () => {
    const run = await replay(id, "--turn", "2");
    expect(run.exitCode, run.stderr).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines.slice(0, -1)).toEqual([
      "── turn 2 · edit notes ──",
      "› edit notes",
      "⏺ Read(notes.txt)",
      "⏺ Edit(notes.txt)",
      "Edited notes.txt.",
    ]);
    expect(lines.at(-1)).toMatch(/^● turn 2 · success · /);
  });

  it("-v shows tool inputs, as the live run does", async () => {
    const run = await replay(id, "--turn", "2", "-v");
    expect(run.stdout).toContain('"new_string": "BETA"');
  });

  it.each([
    [["--turn", "4"], /^error: session \w+ has no turn 4\nhint: its turns are 1 to 3;/m],
    [["--turn", "0"], /^error: session \w+ has no turn 0\nhint: its turns are 1 to 3;/m],
    [["--speed", "0"], /^error: invalid --speed/m],
    [["--idle-limit", "soon"], /^error: invalid --idle-limit/m],
    // Past 2^53 the number would be rounded and echoed back as a turn the user never typed.
    [
      ["--turn", "99999999999999999999"],
      /^error: turn is too large to be a turn number, got "99999999999999999999"\nhint: nudge session show <id> lists the turns$/m,
    ],
    [["--turn", "9007199254740993"], /^error: turn is too large to be a turn number, got "9007199254740993"$/m],
  ])("rejects %j with an error and a hint, exit 1", async (args, message) => {
    const run = await replay(id, ...args);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/^hint: /m);
  });

  it("is instant when stdout is not a terminal, however long the recorded pauses", async () => {
    const timing = path.join(bundle, "timing.txt");
    const original = readFileSync(timing);
    // A minute between lines: paced, this would take the idle limit (2 s) per line.
    const lines = original.toString("utf8").trim().split("\n");
    writeFileSync(timing, lines.map((_, i) => `${1_700_000_000_000 + i * 60_000}\n`).join(""));
    try {
      const started = Date.now();
      const run = await replay(id, "--idle-limit", "5");
      expect(run.exitCode, run.stderr).toBe(0);
      expect(lines.length).toBeGreaterThan(10);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      writeFileSync(timing, original);
    }
  });

  it("shows a half-written last line (claude killed mid-write) as not JSON instead of failing", async () => {
    const conversation = path.join(bundle, "conversation.jsonl");
    const original = readStreamOf(bundle);
    writeStreamOf(bundle, original);
    appendFileSync(conversation, '{"type":"assistant","message":{"content":[{"type":"te');
    try {
      const run = await replay(id);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/● turn 3 · success/);
      // A notice of nudge's own: on stderr, so `replay > conversation.txt` keeps only the conversation.
      expect(run.stderr).toBe('! not JSON: {"type":"assistant","message":{"content":[{"type":"te');
      expect(run.stdout).not.toContain("not JSON");
    } finally {
      writeStreamOf(bundle, original);
    }
  });
});

describe("nudge session replay of a damaged conversation.jsonl", () => {
  const conversation = () => path.join(bundle, "conversation.jsonl");
  /** The lines the manifest's turns cover: the end of the last turn's range. */
  const recorded = () => Math.max(...readManifestFile(bundle).turns.map((t) => t.lines.to));
  const warning = (holds: string) =>
    `! the conversation (conversation.d and conversation.jsonl) holds ${holds} while the manifest records ${recorded()} (truncated or missing); replaying what is left`;

  /** Damage the file for one test; the next test gets it back as recorded. */
  async function withDamage<T>(damage: (file: string) => void, check: () => Promise<T>): Promise<T> {
    // Kept whole in conversation.jsonl (as a bundle from before pieces), so the damage is to the one file.
    const original = readStreamOf(bundle);
    writeStreamOf(bundle, original);
    damage(conversation());
    try {
      return await check();
    } finally {
      writeStreamOf(bundle, original);
    }
  }

  /** Every turn still opens and closes, so what the manifest knows is still shown. */
  function expectEveryTurnShown(stdout: string): void {
    expectInOrder(stdout, [
      "── turn 1 · write notes ──\n",
      /● turn 1 · /,
      "── turn 2 · edit notes ──\n",
      /● turn 2 · /,
      "── turn 3 · shuffle the files ──\n",
      /● turn 3 · /,
    ]);
  }

  it("warns once on stderr when the file is empty, shows the turns it can, and exits 0", async () => {
    const run = await withDamage(
      (file) => writeFileSync(file, ""),
      () => replay(id),
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toBe(warning("0 lines"));
    expectEveryTurnShown(run.stdout);
  });

  it("treats a deleted file like an empty one: the same warning, no crash", async () => {
    const run = await withDamage(
      (file) => unlinkSync(file),
      () => replay(id),
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toBe(warning("0 lines"));
    expectEveryTurnShown(run.stdout);
  });

  it("warns when the file was cut short, and still replays the turns that survived in full", async () => {
    const turn1End = readManifestFile(bundle).turns[1]!.lines.to;
    const keepTurn1 = (file: string) => {
      const lines = readFileSync(file, "utf8").split("\n");
      writeFileSync(file, lines.slice(0, turn1End).join("\n") + "\n");
    };
    const run = await withDamage(keepTurn1, () => replay(id));
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toBe(warning(`${turn1End} lines`));
    expectInOrder(run.stdout, ["› write notes\n", "⏺ Write(notes.txt)\n", "Wrote notes.txt.\n", /● turn 1 · success/]);
    expectEveryTurnShown(run.stdout);
    expect(run.stdout).not.toContain("Edited notes.txt.");
  });

  it("says nothing when the file holds every recorded line", async () => {
    const run = await replay(id);
    expect(run.stderr).toBe("");
  });
});
