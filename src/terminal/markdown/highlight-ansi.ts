/**
 * Code coloured for a terminal with highlight.js: its core, and each language required the first
 * time a code block names it (the core takes ~30 ms to load, a language 10–40 ms: a command that
 * shows no code pays nothing, and a session pays only for the languages it shows). hljs writes
 * HTML (spans of classes around escaped text); this turns it into SGR colours, line by line, each
 * line opening again the colours still open from the line before, so a line can be printed alone.
 */
import { createRequire } from "node:module";
import { visible } from "../../base/inert-text.js";

type HljsApi = typeof import("highlight.js").default;
type LanguageFn = Parameters<HljsApi["registerLanguage"]>[1];

const require = createRequire(import.meta.url);

/** Each language's module, by the names a code fence or a file extension uses for it. Static strings: the bundler leaves them to node. */
const LOADERS: Record<string, () => LanguageFn> = {
  typescript: () => require("highlight.js/lib/languages/typescript") as LanguageFn,
  javascript: () => require("highlight.js/lib/languages/javascript") as LanguageFn,
  python: () => require("highlight.js/lib/languages/python") as LanguageFn,
  bash: () => require("highlight.js/lib/languages/bash") as LanguageFn,
  json: () => require("highlight.js/lib/languages/json") as LanguageFn,
  yaml: () => require("highlight.js/lib/languages/yaml") as LanguageFn,
  diff: () => require("highlight.js/lib/languages/diff") as LanguageFn,
  go: () => require("highlight.js/lib/languages/go") as LanguageFn,
  rust: () => require("highlight.js/lib/languages/rust") as LanguageFn,
  java: () => require("highlight.js/lib/languages/java") as LanguageFn,
  c: () => require("highlight.js/lib/languages/c") as LanguageFn,
  cpp: () => require("highlight.js/lib/languages/cpp") as LanguageFn,
  ruby: () => require("highlight.js/lib/languages/ruby") as LanguageFn,
  css: () => require("highlight.js/lib/languages/css") as LanguageFn,
  xml: () => require("highlight.js/lib/languages/xml") as LanguageFn,
  sql: () => require("highlight.js/lib/languages/sql") as LanguageFn,
  markdown: () => require("highlight.js/lib/languages/markdown") as LanguageFn,
};

/** Fence names and file extensions → the language that loads them. */
const ALIASES: Record<string, string> = {
  ts: "typescript",
  tsx: "typescript",
  mts: "typescript",
  cts: "typescript",
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  node: "javascript",
  py: "python",
  python3: "python",
  sh: "bash",
  shell: "bash",
  zsh: "bash",
  console: "bash",
  shellsession: "bash",
  yml: "yaml",
  patch: "diff",
  golang: "go",
  rs: "rust",
  h: "c",
  cc: "cpp",
  "c++": "cpp",
  hpp: "cpp",
  cxx: "cpp",
  rb: "ruby",
  html: "xml",
  htm: "xml",
  svg: "xml",
  md: "markdown",
  jsonc: "json",
  scss: "css",
};

/** hljs scopes → SGR colour (the first part of a scope: `title.function` is `title`). */
const COLOURS: Record<string, string> = {
  keyword: "35",
  built_in: "36",
  type: "36",
  literal: "33",
  number: "33",
  string: "32",
  regexp: "32",
  comment: "90",
  doc: "90",
  meta: "90",
  title: "34",
  function: "34",
  class: "34",
  attr: "33",
  attribute: "33",
  variable: "31",
  params: "",
  symbol: "33",
  tag: "34",
  name: "34",
  selector: "35",
  addition: "32",
  deletion: "31",
  subst: "",
  property: "36",
  section: "1",
  bullet: "33",
  emphasis: "3",
  strong: "1",
};

let hljs: HljsApi | null = null;

/**
 * What closes a colour: default foreground, normal weight, not italic. Not a full reset (SGR 0),
 * so a background around the code (a diff's added line) stays.
 */
const OFF = "\u001b[39;22;23m";

/** The language a fence's info string or a file's extension names, or null. */
export function languageOf(name: string): string | null {
  const key = name.trim().toLowerCase();
  const language = ALIASES[key] ?? key;
  return language in LOADERS ? language : null;
}

/** The language of a file, by its extension. */
function languageOfPath(path: string): string | null {
  const ext = /\.([A-Za-z0-9+]+)$/.exec(path)?.[1];
  return ext ? languageOf(ext) : null;
}

/**
 * `code` coloured as `language`, one string per line (as many as `code.split("\n")`), and whether
 * a construct is still open at its end (a comment not closed yet); null for a language not known
 * here. The code is the session's text: made visible before it is coloured.
 */
export function highlightLines(code: string, language: string): { lines: string[]; open: boolean } | null {
  const api = load(language);
  if (!api) return null;
  let result: ReturnType<HljsApi["highlight"]>;
  try {
    result = api.highlight(code, { language, ignoreIllegals: true });
  } catch {
    return null;
  }
  // hljs closes every span at the end of its input; its mode stack (`_top`, a mode with a parent
  // when not at the language's top level) says whether a comment, string or list was left open.
  const top = (result as { _top?: { parent?: unknown } })._top;
  return { lines: htmlToAnsiLines(result.value), open: !!top?.parent };
}

function load(language: string): HljsApi | null {
  const loader = LOADERS[language];
  if (!loader) return null;
  hljs ??= require("highlight.js/lib/core") as HljsApi;
  if (!hljs.getLanguage(language)) hljs.registerLanguage(language, loader());
  return hljs;
}

const TOKEN = /<span class="([^"]*)">|<\/span>|([^<]+)/g;

/** hljs's HTML as lines of SGR-coloured text, each line closing its colours and opening them again on the next. */
function htmlToAnsiLines(html: string): string[] {
  const stack: string[] = [];
  const lines: string[] = [];
  let line = "";
  const open = () =>
    stack
      .filter(Boolean)
      .map((c) => `\u001b[${c}m`)
      .join("");
  for (const m of html.matchAll(TOKEN)) {
    if (m[1] !== undefined) {
      const scope = /hljs-([\w-]+)/.exec(m[1])?.[1] ?? "";
      const colour = COLOURS[scope.split(".")[0]!] ?? COLOURS[scope] ?? "";
      stack.push(colour);
      if (colour) line += `\u001b[${colour}m`;
    } else if (m[0] === "</span>") {
      stack.pop();
      line += `${OFF}${open()}`;
    } else {
      const parts = visible(unescapeHtml(m[2]!)).split("\n");
      line += parts[0];
      for (const part of parts.slice(1)) {
        lines.push(stack.some(Boolean) ? `${line}${OFF}` : line);
        line = open() + part;
      }
    }
  }
  lines.push(stack.some(Boolean) ? `${line}${OFF}` : line);
  return lines.map(tidy);
}

/** Drop colour codes that colour nothing (an SGR followed at once by a close, or a close at the line's start). */
function tidy(line: string): string {
  return line
    .replace(/(?:\u001b\[[0-9;]*m)+(\u001b\[39;22;23m)/g, "$1")
    .replace(/^\u001b\[39;22;23m/, "")
    .replace(/(\u001b\[39;22;23m)+/g, OFF);
}

/** One line of code coloured by the language of `file` (its extension), or null when nudge does not know it. */
export function highlightCodeLine(code: string, file: string): string | null {
  const language = languageOfPath(file);
  return language ? (highlightLines(code, language)?.lines[0] ?? null) : null;
}

function unescapeHtml(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|#x27|#39);/g,
    (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#x27": "'", "#39": "'" })[e]!,
  );
}
