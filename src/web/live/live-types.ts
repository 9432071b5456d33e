/**
 * What the page and the server say to each other about a session the page drives: its state, the
 * question it asks, the answers. Types only: the server (browser-frontend.ts) and the page
 * (src/web/page/app/live-session.ts) both use them, so the two cannot drift apart.
 */
import type { PermissionAnswer, PlanAnswer, Question, QuestionAnswers } from "../../live/ask.js";

/** What the page is asked, one at a time. */
export type PendingQuestion =
  /** `diff`: what a Write or Edit would change in the file, as unified diff lines (null for other tools). */
  | {
      id: number;
      kind: "permission";
      tool: string;
      detail: string | null;
      input: Record<string, unknown>;
      description: string | null;
      canSave: boolean;
      diff: string[] | null;
    }
  | { id: number; kind: "questions"; questions: Question[] }
  | { id: number; kind: "plan"; plan: string }
  /** nudge's own question before it discards anything (a typed /rewind, /fork, /undo): its plan, yes or no. */
  | { id: number; kind: "confirm"; plan: string[]; question: string }
  /** The files changed since the conversation last ran (Continue): rewind them to match, or tell claude. */
  | { id: number; kind: "mismatch"; changed: string[] };

export type QuestionReply =
  | { kind: "permission"; answer: PermissionAnswer }
  | { kind: "questions"; answers: QuestionAnswers | null }
  | { kind: "plan"; answer: PlanAnswer }
  | { kind: "confirm"; yes: boolean }
  | { kind: "mismatch"; choice: "rewind" | "tell" };

export interface Notice {
  n: number;
  level: "say" | "warn" | "error";
  text: string;
  hint: string | null;
}

/** What the page shows of a session this server drives. */
export interface LiveState {
  /** A turn is running (claude is working). */
  busy: boolean;
  /** The session ended: no more prompts. */
  ended: boolean;
  question: PendingQuestion | null;
  /** What claude is doing in the turn in flight ("running Bash(npm test)"), and since when the turn runs (epoch ms). */
  activity: string | null;
  since: number | null;
  /** The last notices, oldest first. */
  notices: Notice[];
}

/** The state as the page gets it: with the id the session records under now (another after a /fork or /compact). */
export type DrivenState = LiveState & { sessionId: string };
