/**
 * A Bash command read the way bash splits it into simple commands, so that a rule on a command
 * sees each part: `touch x\nnode --test`, `a; b`, `a && b`, `a | b`, `$(b)` and `` `b` `` are
 * several commands, not "the command a". The reader is deliberately conservative: anything it
 * cannot vouch for (a substitution, a subshell, a here-document, a compound command, a control
 * character, an unterminated quote) makes the command "not plain", and an allow rule never
 * allows a command that is not plain. Deny, ask and note rules see every part it found,
 * including the inside of substitutions, so they stay at least as strict as a search of the
 * whole text.
 */

export interface ShellReading {
  /** Every simple command found, trimmed, in order; those inside `$( )`, backticks and `( )` too. */
  commands: string[];
  /** Why an allow rule cannot vouch for the command; null when every part is a plain simple command. */
  notPlain: string | null;
}

/** Words that open or continue a compound command (`if …; then …`), or change how the next one runs. */
const RESERVED = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "do",
  "done",
  "while",
  "until",
  "for",
  "case",
  "esac",
  "select",
  "function",
  "coproc",
  "!",
  "{",
  "}",
  "[[",
]);

/** Longer than this is read as one opaque part: the reader stays linear, and such a command is never plain. */
const MAX_COMMAND = 1_000_000;

export function readShell(command: string): ShellReading {
  if (command.length > MAX_COMMAND)
    return { commands: [command], notPlain: "a command longer than a million characters" };
  const reader = new Reader(command);
  // A control character, or an invisible one (bidi override, zero-width space), has no place in a command anyone reviewed.
  if (/[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test(command)) reader.flag("a control character");
  else if (/\p{Cf}/u.test(command)) reader.flag("an invisible Unicode character");
  reader.parse(0, null);
  const commands: string[] = [];
  for (const segment of reader.commands) {
    const rest = withoutReservedWords(segment);
    if (rest !== segment) reader.flag("a compound command (if, while, for, { }, …)");
    if (rest !== "") commands.push(rest);
  }
  return { commands, notPlain: reader.notPlain };
}

/** `then rm -rf x` → `rm -rf x`: the command that runs, for rules anchored with ^. */
function withoutReservedWords(segment: string): string {
  let rest = segment;
  for (;;) {
    const word = /^(\S+)(\s+|$)/.exec(rest);
    if (!word || !RESERVED.has(word[1]!)) return rest;
    rest = rest.slice(word[0].length);
  }
}

/** Substitutions nested deeper than this are not followed: their openers and closers only split commands. */
const MAX_DEPTH = 64;

class Reader {
  commands: string[] = [];
  notPlain: string | null = null;
  private depth = 0;
  constructor(private readonly s: string) {}

  flag(why: string): void {
    this.notPlain ??= why;
  }

  /**
   * Reads simple commands from `start` until `close` (`)` or a backtick) or the end; returns the
   * index after the closing character. Each simple command's text is built as bash reads it:
   * a backslash-newline outside single quotes joins the lines.
   */
  parse(start: number, close: ")" | "`" | null): number {
    this.depth++;
    try {
      return this.parseAt(start, close);
    } finally {
      this.depth--;
    }
  }

  private parseAt(start: number, close: ")" | "`" | null): number {
    const s = this.s;
    let current = "";
    const end = () => {
      // Only the blanks bash splits words on: a no-break space is part of a word to bash.
      const text = current.replace(/^[ \t\n]+|[ \t\n]+$/g, "");
      if (text !== "") this.commands.push(text);
      current = "";
    };
    let i = start;
    while (i < s.length) {
      const c = s[i]!;
      const next = s[i + 1];
      if (c === close) {
        end();
        return i + 1;
      }
      if (c === "\\") {
        if (next === "\n")
          i += 2; // a line continuation: bash joins the lines
        else {
          current += s.slice(i, i + 2);
          i += 2;
        }
        continue;
      }
      if (c === "'") {
        const closing = s.indexOf("'", i + 1);
        if (closing < 0) {
          this.flag("an unterminated quote");
          current += s.slice(i);
          i = s.length;
          continue;
        }
        current += s.slice(i, closing + 1);
        i = closing + 1;
        continue;
      }
      if (c === '"') {
        const after = this.doubleQuoted(i + 1);
        current += s.slice(i, after);
        i = after;
        continue;
      }
      if (this.depth >= MAX_DEPTH && (c === "`" || c === "(" || (c === "$" && next === "("))) {
        // Too deep to follow the nesting: the opener ends a command, and so will its ) (as above).
        this.flag("substitutions nested too deeply");
        end();
        i += c === "$" ? 2 : 1;
        continue;
      }
      if (c === "`" || (c === "$" && next === "(") || ((c === "<" || c === ">") && next === "(")) {
        this.flag(c === "$" || c === "`" ? "a command substitution" : "a process substitution");
        const inner = c === "`" ? i + 1 : i + 2;
        const after = this.parse(inner, c === "`" ? "`" : ")");
        current += s.slice(i, after);
        i = after;
        continue;
      }
      if (c === "(") {
        this.flag("a subshell");
        const after = this.parse(i + 1, ")");
        current += s.slice(i, after);
        i = after;
        continue;
      }
      if (c === ")") {
        // `case x in a) rm y;; esac`: what follows a pattern's ) is a command of its own.
        this.flag("an unbalanced ) (a case branch?)");
        end();
        i++;
        continue;
      }
      if ((c === "{" || c === "}") && /^\s?$/.test(s[i - 1] ?? "") && /^\s?$/.test(next ?? "")) {
        // A brace group or a function body (`f() { rm x; }`): what is inside is a command of its own.
        this.flag("a compound command (if, while, for, { }, …)");
        end();
        i++;
        continue;
      }
      if (c === "<" && next === "<" && s[i + 2] !== "<") this.flag("a here-document");
      if (c === ";" || c === "\n") {
        end();
        i++;
        continue;
      }
      if (c === "|") {
        // |, || and |& all end a simple command; >| is a redirection.
        if (current.endsWith(">")) {
          current += c;
          i++;
          continue;
        }
        end();
        i += next === "|" || next === "&" ? 2 : 1;
        continue;
      }
      if (c === "&") {
        // >&2, <&0 and &>file are redirections; & and && end a simple command.
        if (current.endsWith(">") || current.endsWith("<") || next === ">") {
          current += c;
          i++;
          continue;
        }
        end();
        i += next === "&" ? 2 : 1;
        continue;
      }
      current += c;
      i++;
    }
    if (close !== null) this.flag(`an unterminated ${close === ")" ? "(" : "backtick"}`);
    end();
    return i;
  }

  /** From just after an opening `"` to just after its closing one; substitutions inside are read as commands. */
  private doubleQuoted(start: number): number {
    const s = this.s;
    let i = start;
    while (i < s.length) {
      const c = s[i]!;
      if (c === '"') return i + 1;
      if (c === "\\") {
        i += 2;
        continue;
      }
      if (c === "`" || (c === "$" && s[i + 1] === "(")) {
        this.flag("a command substitution");
        i = this.parse(c === "`" ? i + 1 : i + 2, c === "`" ? "`" : ")");
        continue;
      }
      i++;
    }
    this.flag("an unterminated quote");
    return i;
  }
}

/** A leading assignment (`FOO=1`, `a[0]=1`, `A+=1`) or redirection (`2>/dev/null`, `<in`) before the command word. */
const PREFIX = /^(?:[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]\s]*\])?\+?=\S*|\d*(?:>>|>&|<&|>\||&>|[<>])\s*\S+)\s+/;
/** Commands that run a command given among their arguments: `nice -n 5 rm x` runs rm. */
const WRAPPERS = new Set([
  "command",
  "exec",
  "builtin",
  "env",
  "nohup",
  "sudo",
  "doas",
  "nice",
  "ionice",
  "time",
  "timeout",
  "stdbuf",
  "xargs",
  "chrt",
  "taskset",
  "setsid",
  "unbuffer",
]);

/**
 * A simple command as bash will run it, for deny, ask and note rules: the text as written, and
 * again with quotes and backslashes removed (`"rm" x`, `r''m x`, `\rm x`, `$'rm' x`), a leading
 * brace expansion opened (`{rm,x}` is `rm x`), leading assignments and redirections dropped
 * (`FOO=1 rm x`, `2>/dev/null rm x`) and whitespace as single spaces (`rm<TAB>x`). After a word
 * that runs another command (`sudo`, `nice`, `xargs`, `timeout`, …) every later word may be that
 * command (`nice -n 5 rm x`, `sudo -u root rm x`): each is a form too. Only ever more forms to
 * search: a deny rule can only match more.
 */
export function commandForms(command: string): string[] {
  let t = command
    .replace(/\$'/g, "'")
    .replace(/\\(.)/gs, "$1")
    .replace(/['"]/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^\{([^{}\s]*,[^{}\s]*)\}/, (_, inner: string) => inner.split(",").join(" "));
  for (let next = t.replace(PREFIX, ""); next !== t; next = t.replace(PREFIX, "")) t = next;
  const forms = new Set([command, t]);
  const words = t.split(" ");
  const wrapper = words.findIndex((w) => !WRAPPERS.has(w));
  // `nice -n 5 rm x`: after the wrappers, any word may be the command they run.
  if (wrapper > 0) for (let i = wrapper; i < words.length; i++) forms.add(words.slice(i).join(" "));
  return [...forms];
}
