/**
 * docs/terminal.png, the README's picture of `nudge claude run`: a rendered answer (bold, a list,
 * a highlighted TypeScript block) and a permission question with its diff, from a real run. The
 * built CLI drives the pinned claude binary, whose API is the tests' scripted one (so the words
 * are scripted, the rest is nudge's real output), on a pseudo-terminal (util-linux `script`); the
 * bytes it writes are played into a headless xterm, as the tests read the screen, and its cells,
 * colours and all, are drawn as HTML and photographed by Debian's Chromium (playwright-core).
 *
 *   npm run build && node --import tsx scripts/terminal-screenshot.ts [out.png]
 */
import xterm from "@xterm/headless";
import { execa } from "execa";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { CLAUDE_BIN, claudeEnv } from "../test/support/claude-env.js";
import { gitdir, tempDir } from "../test/support/gitdir.js";
import { startScriptedApi } from "../test/support/scripted-api.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const OUT = path.resolve(process.argv[2] ?? path.join(ROOT, "docs/terminal.png"));
const CHROMIUM = process.env.NUDGE_CHROMIUM ?? "/usr/bin/chromium";
const COLS = 96;
const ROWS = 38;

const ANSWER = [
  "Read it from **`PORT`**, with a default, and check it is a number:",
  "",
  '- `Number()` turns `"8080"` into `8080`, and anything else into `NaN`',
  "- keep the default in *one* place, so tests can pass their own",
  "",
  "```ts",
  "/** The port to listen on: $PORT, or 3000. */",
  "export function port(env: NodeJS.ProcessEnv = process.env): number {",
  "  const value = Number(env.PORT ?? 3000);",
  "  if (!Number.isInteger(value)) throw new Error(`bad PORT: ${env.PORT}`);",
  "  return value;",
  "}",
  "```",
].join("\n");

const SERVER_BEFORE = [
  'import http from "node:http";',
  'import { handler } from "./handler.js";',
  "",
  "const server = http.createServer(handler);",
  "server.listen(3000);",
  "",
].join("\n");
const SERVER_AFTER = [
  'import http from "node:http";',
  'import { handler } from "./handler.js";',
  'import { port } from "./port.js";',
  "",
  "const server = http.createServer(handler);",
  "server.listen(port(), () => console.log(`listening on ${port()}`));",
  "",
].join("\n");

async function main(): Promise<void> {
  const repo = await gitdir();
  mkdirSync(path.join(repo, "src"));
  writeFileSync(path.join(repo, "src/server.ts"), SERVER_BEFORE);
  await execa("git", ["add", "-A"], { cwd: repo });
  await execa("git", ["commit", "-qm", "server"], { cwd: repo });
  const api = await startScriptedApi(
    [
      { text: ANSWER },
      { tool: "Write", input: { file_path: path.join(repo, "src/server.ts"), content: SERVER_AFTER } },
      { text: "Done." },
    ],
    { chunk: 12 },
  );
  const nudge = path.join(ROOT, "dist/nudge.mjs");
  const command = `stty cols ${COLS} rows ${ROWS}; exec node '${nudge}' claude run --claude-bin '${CLAUDE_BIN}'`;
  const child = execa("script", ["-qfec", command, "/dev/null"], {
    cwd: repo,
    env: {
      ...claudeEnv(api, path.join(tempDir(), "cfg")),
      SHELL: "/bin/sh",
      TERM: "xterm-256color",
      NO_COLOR: "",
      HOME: tempDir(),
    },
    reject: false,
  });
  let bytes = "";
  child.stdout!.on("data", (d: Buffer) => (bytes += d.toString()));
  const waitFor = async (text: string) => {
    const start = Date.now();
    while (!plain(bytes).includes(text)) {
      if (Date.now() - start > 30_000) throw new Error(`timed out waiting for ${text}:\n${plain(bytes)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  try {
    await waitFor("› ");
    child.stdin!.write("how should the server read its port?\r");
    await waitFor("turn 1 · success");
    child.stdin!.write("use it in src/server.ts\r");
    await waitFor("Allow?");
    await new Promise((r) => setTimeout(r, 500)); // the question's line and cursor drawn
    const shot = bytes;
    child.stdin!.write("y\r");
    await waitFor("turn 2 · success");
    child.stdin!.write("/exit\r");
    await child;
    // The README's examples show the repository as ~/app; so does its picture.
    await photograph(await screenHtml(shot.split(repo).join("~/app")), OUT);
    console.log(`wrote ${path.relative(process.cwd(), OUT)}`);
  } finally {
    child.kill();
    await api.close();
  }
}

/** The visible screen after `bytes`, as rows of styled spans. */
async function screenHtml(bytes: string): Promise<string> {
  const term = new xterm.Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true, scrollback: 0 });
  await new Promise<void>((resolve) => term.write(bytes, resolve));
  const buffer = term.buffer.active;
  const cursor = { x: buffer.cursorX, y: buffer.cursorY };
  const rows: string[] = [];
  let last = -1;
  for (let y = 0; y < ROWS; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    let row = "";
    let run = { style: "", text: "" };
    const flush = () => {
      if (run.text) row += run.style ? `<span style="${run.style}">${run.text}</span>` : run.text;
      run = { style: "", text: "" };
    };
    for (let x = 0; x < COLS; x++) {
      const cell = line?.getCell(x);
      if (!cell || cell.getWidth() === 0) continue;
      const atCursor = x === cursor.x && y === cursor.y;
      const style = cellStyle(cell, atCursor);
      if (style !== run.style) flush();
      run.style = style;
      const chars = cell.getChars() || " ";
      run.text += escapeHtml(GLYPHS[chars] ?? chars);
    }
    flush();
    rows.push(`<div class="row">${row || " "}</div>`);
    if (line?.translateToString(true).trim() || cursor.y === y) last = y;
  }
  term.dispose();
  return rows.slice(0, last + 1).join("");
}

type Cell = NonNullable<ReturnType<NonNullable<ReturnType<xterm.Terminal["buffer"]["active"]["getLine"]>>["getCell"]>>;

function cellStyle(cell: Cell, cursor: boolean): string {
  let fg = cell.isFgDefault()
    ? null
    : cell.isFgRGB()
      ? rgb(cell.getFgColor())
      : palette(cell.getFgColor(), !!cell.isBold());
  let bg = cell.isBgDefault() ? null : cell.isBgRGB() ? rgb(cell.getBgColor()) : palette(cell.getBgColor(), false);
  if (cell.isInverse() || cursor) [fg, bg] = [bg ?? BACKGROUND, fg ?? FOREGROUND];
  const css: string[] = [];
  if (fg) css.push(`color:${fg}`);
  if (bg) css.push(`background:${bg}`);
  if (cell.isBold()) css.push("font-weight:bold");
  if (cell.isItalic()) css.push("font-style:italic");
  if (cell.isDim()) css.push("opacity:0.6");
  const lines = [cell.isUnderline() ? "underline" : "", cell.isStrikethrough() ? "line-through" : ""].filter(Boolean);
  if (lines.length) css.push(`text-decoration:${lines.join(" ")}`);
  return css.join(";");
}

const FOREGROUND = "#d4d4d4";
const BACKGROUND = "#1e1e1e";
/** The 16 colours of a common dark theme (VS Code's terminal); the bright ones for bold too, as xterm draws them. */
const ANSI16 = [
  "#000000",
  "#cd3131",
  "#0dbc79",
  "#e5e510",
  "#2472c8",
  "#bc3fbc",
  "#11a8cd",
  "#e5e5e5",
  "#666666",
  "#f14c4c",
  "#23d18b",
  "#f5f543",
  "#3b8eea",
  "#d670d6",
  "#29b8db",
  "#ffffff",
];

function palette(n: number, bold: boolean): string {
  if (n < 16) return ANSI16[bold && n < 8 ? n + 8 : n]!;
  if (n < 232) {
    const level = [0, 95, 135, 175, 215, 255];
    const i = n - 16;
    return `rgb(${level[Math.floor(i / 36)]},${level[Math.floor(i / 6) % 6]},${level[i % 6]})`;
  }
  const grey = 8 + 10 * (n - 232);
  return `rgb(${grey},${grey},${grey})`;
}

function rgb(n: number): string {
  return `#${n.toString(16).padStart(6, "0")}`;
}

/** Characters Debian's fonts lack, drawn as the nearest ones they have (a terminal's font would show them). */
const GLYPHS: Record<string, string> = { "⏺": "●", "⎿": "└" };

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

async function photograph(rows: string, out: string): Promise<void> {
  const html = `<!doctype html><meta charset="utf-8"><style>
    body { margin: 0; background: #111; }
    .term { display: inline-block; margin: 16px; padding: 14px 16px; background: ${BACKGROUND}; color: ${FOREGROUND};
            border-radius: 8px; font: 14px/1.35 "DejaVu Sans Mono", "Liberation Mono", monospace; white-space: pre; }
    .row { height: 1.35em; }
  </style><div class="term">${rows}</div>`;
  const asRoot = process.getuid?.() === 0;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: asRoot ? ["--no-sandbox"] : [],
  });
  try {
    const page = await browser.newPage({ deviceScaleFactor: 2 });
    await page.setContent(html);
    mkdirSync(path.dirname(out), { recursive: true });
    await page.locator(".term").screenshot({ path: out });
  } finally {
    await browser.close();
  }
}

function plain(text: string): string {
  return text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "").replace(/\r\n/g, "\n");
}

await main();
