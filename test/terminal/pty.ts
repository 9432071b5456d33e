/**
 * The terminal frontend on a real pseudo-terminal: util-linux `script` runs the harness
 * (tty-harness.ts) with a scenario, the test types into it like a person, and reads back both
 * what the harness logged (what the frontend returned) and the screen. The screen is the bytes
 * written to the terminal, played into a headless xterm of the same size, so a test sees what a
 * person would: a status line erased, a pasted block on its own lines.
 */
import xterm from "@xterm/headless";
import { execa } from "execa";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { tempDir } from "../support/gitdir.js";

const HARNESS = path.join(path.dirname(fileURLToPath(import.meta.url)), "tty-harness.ts");
/** tsx by path: the harness may run in any folder (a test's temp dir), where `--import tsx` would not resolve. */
const TSX = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../node_modules/tsx/dist/loader.mjs");

export interface PtyOptions {
  /** TERM for the harness: a real terminal by default; "dumb" for one that cannot move the cursor. */
  term?: string;
  cols?: number;
  rows?: number;
  env?: Record<string, string>;
  cwd?: string;
}

export function runHarness(scenario: { steps: object[] }, o: PtyOptions = {}) {
  const dir = tempDir("nudge-pty-");
  const scenarioFile = path.join(dir, "scenario.json");
  const logFile = path.join(dir, "log.jsonl");
  const stderrFile = path.join(dir, "stderr.txt");
  writeFileSync(scenarioFile, JSON.stringify(scenario));
  const cols = o.cols ?? 80;
  const rows = o.rows ?? 24;
  // script runs the command with `$SHELL -c`; `exec` makes the harness the shell itself, so the
  // terminal's hang-up reaches it directly. Its stderr goes to a file: a stack trace must not hide.
  const command = `stty cols ${cols} rows ${rows}; exec node --import ${quote(pathToFileURL(TSX).href)} ${[HARNESS, scenarioFile, logFile].map(quote).join(" ")} 2>${quote(stderrFile)}`;
  const child = execa("script", ["-qfec", command, "/dev/null"], {
    cwd: o.cwd ?? dir,
    env: { SHELL: "/bin/sh", TERM: o.term ?? "xterm-256color", NO_COLOR: "1", ...o.env },
    reject: false,
  });
  let raw = "";
  child.stdout!.on("data", (d: Buffer) => (raw += d.toString()));
  const poll = async (ok: () => boolean, what: string) => {
    const start = Date.now();
    while (!ok()) {
      if (Date.now() - start > 20_000)
        throw new Error(
          `timed out waiting for ${what}\nscreen:\n${plain(raw)}\nlog:\n${readLog(logFile)
            .map((e) => JSON.stringify(e))
            .join("\n")}`,
        );
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return {
    child,
    dir,
    /** Type keys, as the terminal would send them. */
    type: (keys: string) => void child.stdin!.write(keys),
    /** Wait until the terminal has shown `text` (escape sequences removed) since the start. */
    waitFor: (text: string | RegExp) =>
      poll(() => (typeof text === "string" ? plain(raw).includes(text) : text.test(plain(raw))), String(text)),
    /** Wait until the harness has logged `n` entries with `key` (a returned prompt, an answer). */
    waitForLog: (key: string, n = 1) =>
      poll(() => readLog(logFile).filter((e) => key in e).length >= n, `${n}× ${key} in the log`),
    log: () => readLog(logFile),
    /** The values the harness logged under `key`, in order. */
    logged: (key: string) =>
      readLog(logFile)
        .filter((e) => key in e)
        .map((e) => e[key]),
    stderr: () => (existsSync(stderrFile) ? readFileSync(stderrFile, "utf8") : ""),
    raw: () => raw,
    /** The screen as a person sees it now: the rows of a headless xterm fed everything written so far. */
    screen: () => render(raw, cols, rows),
    /** The screen once `ok` holds for it: text arrives before the redraw that carries it has ended. */
    screenWhen: (ok: (lines: string[]) => boolean, what: string) => screenWhen(() => raw, { cols, rows }, ok, what),
  };
}

/**
 * The rows of the screen (as `render` gives them) once `ok` holds for them: the text a test waits
 * for arrives before the redraw that carries it has ended (under load, mid-redraw), so a test that
 * reads other rows waits for them too, never for a fixed time.
 */
export async function screenWhen(
  bytes: () => string,
  size: { cols: number; rows: number },
  ok: (lines: string[]) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<string[]> {
  const start = Date.now();
  for (;;) {
    const { lines } = await render(bytes(), size.cols, size.rows);
    if (ok(lines)) return lines;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}\nscreen:\n${lines.join("\n")}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function readLog(file: string): Array<Record<string, unknown>> {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Output without escape sequences, for waiting on text. */
function plain(text: string): string {
  return text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "").replace(/\u001b[()][0-9A-Z]/g, "");
}

/** The visible rows (trailing blanks trimmed, empty rows at the bottom dropped) and the cursor. */
export async function render(
  bytes: string,
  cols: number,
  rows: number,
): Promise<{ lines: string[]; cursor: { x: number; y: number } }> {
  const terminal = new xterm.Terminal({ cols, rows, allowProposedApi: true, scrollback: 1000 });
  await new Promise<void>((resolve) => terminal.write(bytes, resolve));
  const buffer = terminal.buffer.active;
  const lines: string[] = [];
  for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? "");
  while (lines.length > 0 && lines.at(-1) === "") lines.pop();
  const cursor = { x: buffer.cursorX, y: buffer.baseY + buffer.cursorY };
  terminal.dispose();
  return { lines, cursor };
}

function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** How a cell is drawn: bold, and whether its colour is the terminal's default. */
export interface CellStyle {
  bold: boolean;
  italic: boolean;
  defaultColour: boolean;
}

/**
 * The style of the first cell of `text` on the screen (the first row holding it), as a headless
 * xterm fed the same bytes draws it; null when no row holds it.
 */
export async function styleOf(bytes: string, cols: number, rows: number, text: string): Promise<CellStyle | null> {
  const terminal = new xterm.Terminal({ cols, rows, allowProposedApi: true, scrollback: 1000 });
  await new Promise<void>((resolve) => terminal.write(bytes, resolve));
  const buffer = terminal.buffer.active;
  try {
    for (let i = 0; i < buffer.length; i++) {
      const line = buffer.getLine(i);
      const x = line?.translateToString(true).indexOf(text) ?? -1;
      if (x === -1) continue;
      const cell = line!.getCell(x)!;
      return { bold: cell.isBold() !== 0, italic: cell.isItalic() !== 0, defaultColour: cell.isFgDefault() };
    }
    return null;
  } finally {
    terminal.dispose();
  }
}
