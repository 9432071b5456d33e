/**
 * The browser's side of a live session: the second implementation of the session's `Frontend`
 * and `Asker` (the terminal's is src/terminal/live-run.ts). Prompts come from the page's POSTs;
 * claude's questions wait here until the page answers them; nudge's notices are kept for the page.
 * What claude writes is not passed through: the page reads the recording, as it does for a session
 * a terminal records, so the two never disagree.
 */
import type { CanUseToolRequest } from "../../claude/control-protocol.js";
import type { Turn } from "../../store/manifest-schema.js";
import type { Asker, PermissionContext, Question } from "../../live/ask.js";
import { isSlashCommand } from "../../live/conversation.js";
import type { FinishedTurn, Frontend, PromptSource } from "../../live/frontend.js";
import type { StreamEvent } from "../../claude/stream-events.js";
import { inertValue, visible } from "../../base/inert-text.js";
import type { LiveState, Notice, PendingQuestion, QuestionReply } from "./live-types.js";
import { activityOf, AnsweredRequests } from "../../live/activity.js";
import { editDiff } from "../../live/edit-diff.js";
import { toolDetail } from "../../claude/tool-detail.js";

const KEPT_NOTICES = 50;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export class BrowserFrontend implements Frontend {
  private readonly waiting: Array<(prompt: string | null) => void> = [];
  private readonly queued: string[] = [];
  private closed = false;
  private busy = false;
  private ended = false;
  private question: { shown: PendingQuestion; settle: (reply: QuestionReply | null) => void } | null = null;
  private questions = 0;
  private notices: Notice[] = [];
  private noticeCount = 0;
  private activity: string | null = null;
  private since: number | null = null;
  private readonly answered: AnsweredRequests;

  /**
   * `changed`: the state the page shows is different now. `firstPrompt`: the session starts with
   * it, so it is busy from the start (not only once claude's turn begins).
   */
  constructor(
    private readonly changed: () => void,
    o: { firstPrompt: string | null; cwd: string; dropped?: (prompt: string) => void },
  ) {
    this.dropped = o.dropped ?? (() => undefined);
    this.busy = o.firstPrompt !== null && !isSlashCommand(o.firstPrompt);
    if (this.busy) this.startActivity();
    this.answered = new AnsweredRequests(o.cwd);
    this.cwd = o.cwd;
  }

  private readonly cwd: string;
  /** A prompt the page sent that never went to claude (the session ended first): said where someone sees it. */
  private readonly dropped: (prompt: string) => void;
  readonly endsWith = "the End session button";

  readonly prompts: PromptSource = {
    next: () => {
      const ready = this.queued.shift();
      if (ready !== undefined) return Promise.resolve(ready);
      if (this.closed) return Promise.resolve(null);
      return new Promise((resolve) => this.waiting.push(resolve));
    },
    hasQueued: () => this.queued.length > 0,
    close: () => {
      this.closed = true;
      for (const prompt of this.queued.splice(0)) {
        this.notice("warn", `the session ended before it went to claude: not sent: ${prompt}`, null);
        this.dropped(prompt);
      }
      for (const resolve of this.waiting.splice(0)) resolve(null);
    },
  };

  readonly asker: Asker = {
    permission: async (request: CanUseToolRequest, _context: PermissionContext) => {
      const diff = editDiff(request.tool_name, request.input, { cwd: this.cwd, maxLines: 400 });
      const detail = toolDetail({ input: request.input }, this.cwd) || null;
      const reply = await this.ask({
        kind: "permission",
        tool: request.tool_name,
        detail,
        input: request.input,
        description: request.description ?? null,
        canSave: (request.permission_suggestions?.length ?? 0) > 0,
        diff,
      });
      return reply?.kind === "permission" ? reply.answer : { kind: "no", reason: "nobody answered on the page" };
    },
    questions: async (questions: Question[]) => {
      const reply = await this.ask({ kind: "questions", questions });
      return reply?.kind === "questions" ? reply.answers : null;
    },
    plan: async (plan: string) => {
      const reply = await this.ask({ kind: "plan", plan });
      return reply?.kind === "plan" ? reply.answer : { approve: false, feedback: "nobody answered on the page" };
    },
  };

  /** A prompt from the page: refused while a turn runs or a question waits (the page shows why). */
  send(text: string): "sent" | "busy" | "asking" | "ended" {
    if (this.closed || this.ended) return "ended";
    if (this.question) return "asking";
    if (this.busy || this.queued.length > 0) return "busy";
    const resolve = this.waiting.shift();
    if (resolve) resolve(text);
    else this.queued.push(text);
    // Until the turn's own working(false): the page must not send twice. nudge's own commands run no turn.
    if (!isSlashCommand(text)) {
      this.busy = true;
      this.startActivity();
    }
    this.changed();
    return "sent";
  }

  /**
   * Stop pressed while the page's prompt waits for the last turn's save (it has not gone to
   * claude): it is taken back, and the page says so. Null when no prompt of the page's waits.
   */
  withdraw(): string | null {
    const prompt = this.queued.shift();
    if (prompt === undefined) return null;
    this.busy = false;
    this.activity = this.since = null;
    this.notice("warn", `stopped before it went to claude: not sent: ${prompt}`, null);
    return prompt;
  }

  /** The page's answer to the question it was shown (by id, and of that question's kind). */
  answer(id: number, reply: QuestionReply): "answered" | "not asked" | "wrong kind" {
    const q = this.question;
    if (!q || q.shown.id !== id) return "not asked";
    if (q.shown.kind !== reply.kind) return "wrong kind";
    this.question = null;
    q.settle(reply);
    this.changed();
    return "answered";
  }

  /** The session is over (ended, or failed): a question still open is answered no. */
  finish(): void {
    this.ended = true;
    this.busy = false;
    this.activity = this.since = null;
    this.question?.settle(null);
    this.question = null;
    this.prompts.close();
    this.changed();
  }

  state(): LiveState {
    return inertValue({
      busy: this.busy,
      ended: this.ended,
      question: this.question?.shown ?? null,
      activity: this.activity,
      since: this.since,
      notices: this.notices,
    });
  }

  /** Claude's words reach the page through the recording; here only what it is doing now is followed. */
  render(event: StreamEvent): void {
    const answered = this.answered.activity(event);
    if (!this.busy) return;
    const found = answered ?? activityOf(event, this.cwd);
    const next = found === null ? null : visible(found);
    if (next !== null && next !== this.activity) {
      this.activity = next;
      this.changed();
    }
  }

  /**
   * claude's result is in: the page's status line says so at once. The session stays busy (no
   * prompt taken) until `working(false)`, once the turn's code is captured, as before.
   */
  turnFinished(_turn: FinishedTurn): void {
    if (!this.busy) return;
    this.activity = "turn over, recording its changes";
    this.changed();
  }

  turnSaved(_turn: Turn): void {
    this.changed();
  }

  working(busy: boolean): void {
    this.busy = busy;
    if (busy) this.startActivity();
    else {
      this.activity = this.since = null;
      // The turn is over (Stop, claude gone): a question still open asks nothing any more.
      this.question?.settle(null);
      this.question = null;
    }
    this.changed();
  }

  private startActivity(): void {
    // A prompt sent and its turn begun are one wait for the person: the clock starts at the first.
    if (this.since === null) this.since = Date.now();
    this.activity ??= "starting";
  }

  say(text: string): void {
    this.notice("say", text, null);
  }

  warn(text: string): void {
    this.notice("warn", text, null);
  }

  error(message: string, hint?: string): void {
    this.notice("error", message, hint ?? null);
  }

  /** A typed /rewind, /fork, /undo: its plan, asked on the page; nobody answering is a no. */
  async confirm(plan: string[], question: string): Promise<boolean> {
    const reply = await this.ask({ kind: "confirm", plan, question });
    return reply?.kind === "confirm" && reply.yes;
  }

  /** Continue, with files changed since: asked on the page; nobody answering tells claude (as without a terminal). */
  async resumeMismatch(changed: string[]): Promise<"rewind" | "tell"> {
    const reply = await this.ask({ kind: "mismatch", changed });
    return reply?.kind === "mismatch" ? reply.choice : "tell";
  }

  private ask(question: DistributiveOmit<PendingQuestion, "id">): Promise<QuestionReply | null> {
    if (this.ended) return Promise.resolve(null);
    return new Promise((settle) => {
      this.question = { shown: { ...question, id: ++this.questions } as PendingQuestion, settle };
      this.changed();
    });
  }

  private notice(level: Notice["level"], text: string, hint: string | null): void {
    this.notices = [...this.notices, { n: ++this.noticeCount, level, text, hint }].slice(-KEPT_NOTICES);
    this.changed();
  }
}
