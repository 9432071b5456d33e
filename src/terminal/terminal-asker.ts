/**
 * Claude's requests, asked on the terminal: the `Asker` of the terminal frontend. It works with
 * the prompt line active or not (mid-turn): it takes the keyboard's focus for the question (and
 * raw mode if nobody had it), hides the status line and the line typed ahead while it asks, and
 * gives everything back as it was after, type-ahead text and queued prompts untouched.
 *
 * Answers are typed and sent with Enter, never taken from a single key: someone typing ahead when
 * the question appears must not answer it by accident. Ctrl-C or Esc at a question is a "no" (a
 * refusal, no answers, keep planning), never the end of the session; so is the terminal going away.
 * Questions asked at the same time (parallel tool calls) are asked one after another.
 */
import type { CanUseToolRequest } from "../claude/control-protocol.js";
import type { Asker, PermissionAnswer, PermissionContext, PlanAnswer, Question, QuestionAnswers } from "../live/ask.js";
import type { Keyboard } from "./keyboard.js";
import { LineEditor } from "./line-editor.js";
import {
  parseChoice,
  parsePermission,
  parseYesNo,
  permissionQuestion,
  permissionView,
  planLines,
  planQuestion,
  questionLines,
  questionPrompt,
  savedRule,
  type ViewOptions,
} from "./question-views.js";
import { runPager } from "./pager.js";
import { wrapRows } from "./wrap-lines.js";
import type { Screen } from "./screen.js";
import type { Style } from "./style.js";

export interface TerminalAskerOptions {
  keyboard: Keyboard;
  screen: Screen;
  style: Style;
  /** How file contents are read for diffs (tests pass their own). */
  readFile?: ViewOptions["readFile"];
  /** Called as each question appears (the prompt line takes back what was typed just before it). */
  beforeQuestion?: () => void;
  /** A plan approved with "accept edits from now on": the mode shown changes. */
  onAcceptEdits?: () => void;
  /** The terminal's file descriptor, where a pager draws (1 unless stdout is piped). */
  terminalFd?: number;
  /** PAGER and LESS for the whole diff. */
  env?: NodeJS.ProcessEnv;
}

/** Rows a permission question keeps for itself besides its diff: its title, a description, the cut line, the answer (wrapped), a hint, the status line. */
const QUESTION_ROWS = 8;

export class TerminalAsker implements Asker {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly o: TerminalAskerOptions) {}

  permission(request: CanUseToolRequest, context: PermissionContext): Promise<PermissionAnswer> {
    return this.serial(async () => {
      const { style } = this.o;
      // The diff is cut at the screen's height, so the question's title stays in sight; the key
      // named on the cut line shows it whole.
      const view = permissionView(request, context, {
        style,
        readFile: this.o.readFile,
        maxDiffLines: Math.max(5, this.o.screen.rows - QUESTION_ROWS),
      });
      this.show(view.lines, view.diffAt);
      const canSave = savedRule(request.permission_suggestions) !== null;
      const whole = view.whole;
      const answer = await this.read(
        permissionQuestion(request, style, whole !== null),
        (t) => parsePermission(t, canSave) !== undefined,
        canSave ? "type y, n, a or d" : "type y, n or a",
        whole ? () => this.showWhole(whole, view.diffAt) : undefined,
      );
      const kind = answer === null ? "no" : parsePermission(answer, canSave)!;
      if (kind !== "no") return { kind };
      if (answer === null) return { kind: "no" };
      const reason = await this.read("Reason for claude (Enter for none): ", () => true);
      return reason?.trim() ? { kind: "no", reason: reason.trim() } : { kind: "no" };
    });
  }

  questions(questions: Question[]): Promise<QuestionAnswers | null> {
    return this.serial(async () => {
      const answers: QuestionAnswers = {};
      for (const q of questions) {
        this.show(questionLines(q, this.o.style));
        const text = await this.read(
          questionPrompt(q),
          (t) => parseChoice(t, q) !== undefined,
          "type a number from the list, or your own answer",
        );
        if (text === null) return null;
        const choice = parseChoice(text, q)!;
        if ("text" in choice) {
          answers[q.question] = choice.text;
          continue;
        }
        let own: string | null = null;
        if (choice.other) {
          own = await this.read(
            "Your answer: ",
            (t) => t.trim() !== "",
            "type your answer, or Ctrl-C to skip the questions",
          );
          if (own === null) return null;
        }
        answers[q.question] = [...choice.labels, ...(own ? [own.trim()] : [])].join(", ");
      }
      return answers;
    });
  }

  plan(plan: string): Promise<PlanAnswer> {
    return this.serial(async () => {
      const { style } = this.o;
      // Fitted to the screen by its markdown already; its code lines keep their columns.
      this.show(planLines(plan, style, this.o.screen.columns), 0);
      const accept = (t: string) => /^a$/i.test(t.trim());
      const answer = await this.read(
        planQuestion(style),
        (t) => parseYesNo(t) !== undefined || accept(t),
        "type y, a or n",
      );
      if (answer !== null && accept(answer)) {
        this.o.onAcceptEdits?.();
        return { approve: true, acceptEdits: true };
      }
      if (answer !== null && parseYesNo(answer)) return { approve: true };
      if (answer === null) return { approve: false, feedback: "" };
      const feedback = await this.read("What should change? ", () => true);
      return { approve: false, feedback: feedback?.trim() ?? "" };
    });
  }

  /** nudge's own yes/no question after some lines (a plan to confirm); Ctrl-C or an empty answer is no. */
  confirm(lines: string[], question: string): Promise<boolean> {
    return this.serial(async () => {
      this.show(lines);
      const answer = await this.read(
        `${question} [y/N] `,
        (t) => t.trim() === "" || parseYesNo(t) !== undefined,
        "type y or n",
      );
      return answer !== null && parseYesNo(answer) === true;
    });
  }

  /** One of a few answers, each picked by its first letter; Ctrl-C or an empty answer is `fallback`. */
  choose<T extends string>(lines: string[], question: string, choices: T[], fallback: T): Promise<T> {
    return this.serial(async () => {
      this.show(lines);
      const pick = (t: string) => choices.find((c) => t.trim().toLowerCase() === c[0] || t.trim().toLowerCase() === c);
      const answer = await this.read(
        question,
        (t) => t.trim() === "" || pick(t) !== undefined,
        `type ${choices.map((c) => c[0]).join(" or ")}`,
      );
      return (answer !== null && pick(answer)) || fallback;
    });
  }

  /** One question at a time, in the order claude asked them. */
  private serial<T>(ask: () => Promise<T>): Promise<T> {
    const run = this.queue.then(ask, ask);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** A question's lines: nudge's own (before `rawFrom`) wrapped at words, the rest (a diff, a plan) as they are. */
  private show(lines: string[], rawFrom = lines.length): void {
    this.o.screen.endLine();
    this.o.beforeQuestion?.();
    this.writeLines(lines, rawFrom);
  }

  private writeLines(lines: string[], rawFrom: number): void {
    const text = (part: string[]) => part.map((l) => `${l}\n`).join("");
    this.o.screen.writeLines(text(lines.slice(0, rawFrom)));
    this.o.screen.write(text(lines.slice(rawFrom)));
  }

  /**
   * A question's whole diff, in the pager (`less -R` unless PAGER or LESS say otherwise): the
   * block put away and the terminal lent to it while it runs (cooked mode; nudge's own output
   * waits), all of it given back as it was when it quits, the question where it was (less draws
   * on the alternate screen). No pager, or a terminal that cannot move the cursor: the whole diff
   * is written above the question instead.
   */
  private async showWhole(lines: string[], diffAt: number): Promise<void> {
    const { screen, keyboard } = this.o;
    const text = lines.map((l) => `${l}\n`).join("");
    if (screen.ansi && !keyboard.hungUp) {
      const resume = screen.hold();
      const giveBack = keyboard.lend();
      let paged = false;
      try {
        paged = await runPager(text, { env: this.o.env, less: "R", fd: this.o.terminalFd });
      } finally {
        giveBack();
        resume();
      }
      if (paged) return;
    }
    this.writeLines(lines, diffAt);
  }

  /**
   * Read one answer after `label`, in the screen's modal slot. Enter sends it if `accept` says
   * so (otherwise `hint` shows under it); Ctrl-C, Ctrl-D on an empty answer, or the terminal
   * going away give null. The answered line stays on screen. `whole`: what Ctrl-O shows (the
   * question's whole diff); the question is drawn again after it.
   */
  private read(
    label: string,
    accept: (text: string) => boolean,
    hint = "",
    whole?: () => Promise<void>,
  ): Promise<string | null> {
    const { keyboard, screen, style } = this.o;
    if (keyboard.hungUp) return Promise.resolve(null);
    return new Promise((resolve) => {
      const editor = new LineEditor();
      let shownHint: string | null = null;
      // A label wider than the screen (the permission question's choices) wraps at word
      // boundaries; the answer is typed after its last row.
      const labelled = () => {
        const rows = wrapRows(label, screen.columns);
        const layout = editor.layout(rows.at(-1)!, "  ");
        const head = rows.slice(0, -1);
        return {
          lines: [...head, ...layout.lines],
          cursor: { row: head.length + layout.cursor.row, col: layout.cursor.col },
        };
      };
      const draw = () => {
        const layout = labelled();
        screen.set("modal", {
          lines: shownHint ? [...layout.lines, style.dim(shownHint)] : layout.lines,
          cursor: layout.cursor,
        });
      };
      const release = keyboard.acquire();
      let done = false;
      let paging = false;
      const finish = (answer: string | null, pressed = "^C") => {
        if (done) return;
        done = true;
        unfocus();
        stopWatching();
        shownHint = null;
        if (keyboard.hungUp) {
          screen.set("modal", null);
        } else {
          // What was answered stays in the conversation; a cancelled question says so.
          const layout = labelled();
          const lines =
            answer === null
              ? [...layout.lines.slice(0, -1), `${layout.lines.at(-1)}${style.dim(pressed)}`]
              : layout.lines;
          screen.set("modal", { lines });
          screen.commit("modal");
        }
        release();
        resolve(answer);
      };
      const unfocus = keyboard.focus((key) => {
        if (key.name === "redraw") return draw();
        if (key.ctrl && !key.meta && key.name === "c") return finish(null);
        // Esc is "no" too, as in Claude Code; shown as such on the answered line.
        if (key.name === "escape") return finish(null, "Esc");
        if (key.ctrl && !key.meta && key.name === "d" && editor.text === "") return finish(null);
        if (whole && key.ctrl && !key.meta && key.name === "o") {
          if (paging) return;
          paging = true;
          void whole().finally(() => {
            paging = false;
            if (!done) draw();
          });
          return;
        }
        const result = editor.key(key);
        if (result === "submit") {
          if (accept(editor.text)) return finish(editor.text);
          // Not an answer: start the line afresh (typing on after it would make "yes pleasey").
          editor.reset();
          shownHint = hint || null;
        }
        if (result !== "ignored") draw();
      });
      const stopWatching = keyboard.onHangUp(() => finish(null));
      draw();
    });
  }
}
