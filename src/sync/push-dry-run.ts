/**
 * Whether the `git push` that runs the pre-push hook is a dry run. git tells a hook nothing of it
 * (`git push -n` runs pre-push all the same), so the hook reads the command line of the git
 * process above it (/proc) and hands push's arguments to git's own option parser (`git rev-parse
 * --parseopt`, given push's options): `-vn`, `--dr`, `-n … --no-dry-run` and `-on` (a push
 * option "n", not a dry run) read exactly as git push reads them. git runs an alias
 * (`alias.p = push -n`, or `!git push -n`) as a child `git push -n …`, so the git above the hook
 * is that child. Anything it cannot read is "unsure", and the hook then publishes nothing.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseOptions } from "../snapshot/git-remote.js";

export type DryRunAnswer = { dryRun: boolean } | { unsure: string };

/**
 * git push's options (git 2.39 to 2.47), in rev-parse --parseopt's spec: `=` takes a value, `?`
 * an optional one. Only the names and which take a value matter: they decide how `-on` or `--d`
 * read. An option git knows and this list lacks makes the parser refuse: unsure, nothing published.
 */
const PUSH_SPEC = `git push [<options>]
--
v,verbose x
q,quiet x
repo= x
all x
branches x
mirror x
d,delete x
tags x
n,dry-run x
porcelain x
f,force x
force-with-lease? x
force-if-includes x
recurse-submodules= x
thin x
receive-pack= x
exec= x
u,set-upstream x
progress x
prune x
no-verify x
follow-tags x
signed? x
atomic x
o,push-option= x
4,ipv4 x
6,ipv6 x
`;

/** git's options before the command that take the next word as their value (git.c handle_options). */
const GLOBAL_WITH_VALUE = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--super-prefix",
  "--config-env",
  "--attr-source",
]);
const GLOBAL_FLAG =
  /^(-p|-P|--paginate|--no-pager|--bare|--no-replace-objects|--no-lazy-fetch|--no-optional-locks|--no-advice|--literal-pathspecs|--glob-pathspecs|--noglob-pathspecs|--icase-pathspecs|--exec-path(=.*)?|--(git-dir|work-tree|namespace|super-prefix|config-env|attr-source|list-cmds)=.*)$/s;

/** How far up the process tree a git push is looked for: git → the hook's shell → nudge, plus a hook manager or two. */
const MAX_DEPTH = 6;

export async function pushIsDryRun(root: string, fromPid: number = process.ppid): Promise<DryRunAnswer> {
  const found = findGitPush(fromPid);
  if ("unsure" in found) return found;
  const parsed = await parseOptions(root, PUSH_SPEC, found.args);
  if (parsed === null)
    return { unsure: `git's option parser does not read the push's options as nudge knows them (${found.shown})` };
  return { dryRun: dryRunIn(parsed) };
}

/** The arguments of the nearest `git push` above `pid`, or why there is none to read. */
function findGitPush(pid: number): { args: string[]; shown: string } | { unsure: string } {
  for (let depth = 0, at = pid; depth < MAX_DEPTH && at > 1; depth++) {
    const argv = commandLine(at);
    if (argv === null) return { unsure: `cannot read the command line of process ${at} (no /proc?)` };
    const name = path.basename(argv[0] ?? "");
    const shown = argv.join(" ").slice(0, 200);
    if (name === "git-push") return { args: argv.slice(1), shown };
    if (name === "git") {
      const command = afterGlobalOptions(argv);
      if (typeof command !== "number") return { unsure: `${command} (${shown})` };
      if (argv[command] === "push") return { args: argv.slice(command + 1), shown };
      return { unsure: `the git above this hook runs "${argv[command]}", not push (${shown})` };
    }
    const parent = parentOf(at);
    if (parent === null) return { unsure: `cannot read the parent of process ${at}` };
    at = parent;
  }
  return { unsure: "no git push found above this hook" };
}

/** Where the command word is in a git command line, or why it cannot be told. */
function afterGlobalOptions(argv: string[]): number | string {
  let i = 1;
  for (; i < argv.length && argv[i]!.startsWith("-"); i++) {
    if (GLOBAL_WITH_VALUE.has(argv[i]!)) i++;
    else if (!GLOBAL_FLAG.test(argv[i]!)) return `git option ${argv[i]} is not one nudge knows`;
  }
  return i < argv.length ? i : "no git command";
}

/** The last of --dry-run and --no-dry-run wins, as in git; after a bare `--` come refspecs. */
function dryRunIn(parsed: string): boolean {
  let dry = false;
  for (const word of shellWords(parsed.replace(/^set -- /, ""))) {
    if (word === "--") break;
    if (word === "--dry-run") dry = true;
    else if (word === "--no-dry-run") dry = false;
  }
  return dry;
}

/** Words as git's sq_quote writes them: '…' quoted, `\x` outside quotes for one character. */
function shellWords(text: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      word = (word ?? "") + text.slice(i + 1, end === -1 ? undefined : end);
      i = end === -1 ? text.length : end;
    } else if (c === "\\") word = (word ?? "") + (text[++i] ?? "");
    else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else word = (word ?? "") + c;
  }
  if (word !== null) words.push(word);
  return words;
}

function commandLine(pid: number): string[] | null {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    return raw === "" ? null : raw.replace(/\0$/, "").split("\0");
  } catch {
    return null;
  }
}

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    return Number.isInteger(ppid) ? ppid : null;
  } catch {
    return null;
  }
}
