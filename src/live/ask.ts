/**
 * What the session needs from whoever sits at the other end (a terminal today, another frontend
 * tomorrow): answers to claude's questions. The session turns these answers into control
 * responses; a frontend only shows the question and reports what the person chose.
 */
import type { CanUseToolRequest } from "../claude/control-protocol.js";
import type { ToolUse } from "../claude/stream-events.js";

export type PermissionAnswer =
  /** Run it this once. */
  | { kind: "yes" }
  /** Do not run it; `reason` (typed by the user) reaches claude as the tool's error. */
  | { kind: "no"; reason?: string }
  /** Run it, and do not ask again for the same request in this session. */
  | { kind: "always" }
  /** Run it, and save the request's permission suggestion as a rule (claude's settings). */
  | { kind: "save" };

interface QuestionOption {
  label: string;
  description?: string;
}

/** One AskUserQuestion question, as claude sends it in `input.questions[]`. */
export interface Question {
  question: string;
  header?: string;
  multiSelect?: boolean;
  options: QuestionOption[];
}

/** The answers, keyed by question text; several labels of a multi-select are joined with ", ". */
export type QuestionAnswers = Record<string, string>;

/** `acceptEdits`: approved, and claude's file edits allowed without asking from now on. */
export type PlanAnswer = { approve: true; acceptEdits?: boolean } | { approve: false; feedback: string };

export interface PermissionContext {
  /** The folder claude works in: paths are shown relative to it. */
  cwd: string;
  /** The assistant's tool_use block of the same id, when it was seen (it carries ExitPlanMode's plan). */
  toolUse?: ToolUse;
}

export interface Asker {
  /** A tool needs permission. */
  permission(request: CanUseToolRequest, context: PermissionContext): Promise<PermissionAnswer>;
  /** AskUserQuestion; null when the user declined to answer (Ctrl-C). */
  questions(questions: Question[]): Promise<QuestionAnswers | null>;
  /** ExitPlanMode: approve the plan, or keep planning with feedback. */
  plan(plan: string): Promise<PlanAnswer>;
}
