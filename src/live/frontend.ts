/**
 * What a session needs from the frontend that drives it (the terminal today): where prompts come
 * from, who answers claude's questions, and where the conversation and nudge's notices go. The
 * session decides; the frontend shows and asks.
 */
import type { Turn } from "../store/manifest-schema.js";
import type { StreamEvent } from "../claude/stream-events.js";
import type { FinishedTurn } from "../recorder/session-recorder.js";

export type { FinishedTurn };
import type { Asker } from "./ask.js";

export interface PromptSource {
  /** The next prompt, or null when the user is done (EOF, /exit, the terminal closed). */
  next(): Promise<string | null>;
  /** Is a prompt already waiting (typed ahead, piped)? Then the next turn starts at once. */
  hasQueued?(): boolean;
  /** No more prompts: lines read ahead are dropped. */
  close(): void;
}

export interface Frontend {
  prompts: PromptSource;
  /** Who answers permission questions, AskUserQuestion and plans; null: nobody can (no terminal). */
  asker: Asker | null;
  /** One of claude's stream events, to show. */
  render(event: StreamEvent): void;
  /** claude's result is in (or claude is gone): the turn's end line (outcome, time, cost), before it is saved. */
  turnFinished(turn: FinishedTurn): void;
  /** The turn is saved: what it changed, under its end line. */
  turnSaved(turn: Turn): void;
  /**
   * Resolves once what was written to stdout can have reached the screen beside what goes to
   * stderr next (stdout piped through `tee` or a pager while stderr is the terminal): the end
   * line then does not land in the middle of claude's last line. None: at once.
   */
  outputSettled?(): Promise<void>;
  /** A status line from nudge (dim). */
  say(text: string): void;
  /** Something the user should notice (yellow): a refused tool, a recovered turn. */
  warn(text: string): void;
  /** An error the session survives (a /rewind that was refused), with what to do about it. */
  error(message: string, hint?: string): void;
  /**
   * Show a plan and ask before discarding anything (an in-session /rewind, /fork, /undo). Without
   * anyone to ask, the frontend answers no.
   */
  confirm(plan: string[], question: string): Promise<boolean>;
  /**
   * The files differ from where the conversation resumes: rewind the code to match, or go on and
   * tell claude what changed. Without anyone to ask: "tell".
   */
  resumeMismatch(changed: string[]): Promise<"rewind" | "tell">;
  /** The keys this frontend understands, one line each, for /help (a terminal's; none elsewhere). */
  readonly keys?: readonly string[];
  /** Besides /exit, how the user ends the session here ("Ctrl-D", "the End session button"): /help says it. */
  readonly endsWith?: string;
  /** A prompt given another way than `prompts` (on the command line): show it as a typed one stands. */
  promptGiven?(text: string): void;
  /** The turn in flight is running (true) or done (false): a status line or spinner may follow it. */
  working?(busy: boolean): void;
}
