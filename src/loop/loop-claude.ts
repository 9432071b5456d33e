/**
 * The claude process a loop's turns run in: a new conversation for every --fresh iteration and
 * every verifier, the loop's own conversation back after a verifier, another model when the
 * strategy or a hint says so. Ending claude between turns is cheap: the next turn starts it.
 */
import type { Sandbox } from "../claude/sandbox.js";
import type { Restart } from "../live/claude-link.js";
import type { Conversation } from "../live/conversation.js";
import type { TurnRole } from "./loop-phase.js";
import type { ModelPlan } from "./model-plan.js";
import { VERIFIER_FLAGS } from "./verifier.js";

export interface LoopClaudeSettings {
  fresh: boolean;
  models: ModelPlan;
  /** The verifier's sandbox (the work tree read-only too); null where bubblewrap cannot make one. */
  verifierSandbox: Sandbox | null;
}

export class LoopClaude {
  private conversation: Conversation | null = null;
  /** The process runs as the last turn left it: its model, a verifier's tools (null: as the session started it). */
  private running: { model: string | undefined; verifier: boolean } | null = null;
  /** The loop's own claude conversation (not a verifier's), to go back to when not --fresh. */
  private mainConversation: string | null = null;

  constructor(private readonly settings: LoopClaudeSettings) {}

  attach(conversation: Conversation): void {
    this.conversation = conversation;
  }

  /** The model the process runs with (undefined: claude's default). */
  get model(): string | undefined {
    return this.running?.model;
  }

  /** The process the next turn needs, restarted only when it differs from the one running. */
  async prepare(role: TurnRole): Promise<void> {
    const verifier = role === "verifier";
    const model = verifier ? this.running?.model : this.settings.models.next();
    const flags: Restart["flags"] = { ...(model ? { model } : {}), ...(verifier ? VERIFIER_FLAGS : {}) };
    const was = this.running;
    this.running = { model, verifier };
    if (!this.conversation) return;
    // The verifier in a sandbox of its own, the work tree read-only; the iterations back in the session's.
    const sandbox = verifier ? this.settings.verifierSandbox : undefined;
    if (verifier || this.settings.fresh)
      return this.conversation.restartClaude({ next: { kind: "fresh" }, flags, sandbox });
    if (was === null ? model === undefined : !was.verifier && was.model === model) return;
    const main = this.mainConversation;
    await this.conversation.restartClaude({
      next: main ? { kind: "session", claudeSessionId: main } : null,
      flags,
      sandbox,
    });
  }

  /** An iteration's turn ended in this claude conversation: the next one goes on in it. */
  remember(claudeSessionId: string): void {
    this.mainConversation = claudeSessionId;
  }

  /** A rewind starts claude anew, in the conversation of the turn it goes back to. */
  forget(): void {
    this.running = null;
    this.mainConversation = null;
  }

  interrupt(): void {
    this.conversation?.interrupt();
  }
}
