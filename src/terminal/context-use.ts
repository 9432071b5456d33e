/**
 * How full claude's context is, for the status line: the tokens of the main agent's latest
 * message (its prompt — input, cache written, cache read — and its answer so far), against the
 * model's window. The window is what claude reports in each result's `modelUsage[model].contextWindow`
 * (measured on 2.1.329: 200,000, or 1,000,000 for a 1M model, keyed `<model>[1m]` with
 * `canonicalModel` the name its messages carry); until a result says, 200,000.
 * Past WARN_AT of the window the line warns that claude will soon compact on its own (claude's
 * exact threshold is its own and not reported; nudge warns early rather than late).
 */
import type { StreamEvent } from "../claude/stream-events.js";

const DEFAULT_WINDOW = 200_000;
const WARN_AT = 0.8;

type Usage = Partial<
  Record<"input_tokens" | "cache_creation_input_tokens" | "cache_read_input_tokens" | "output_tokens", unknown>
>;

export class ContextUse {
  private tokens: number | null = null;
  private model: string | undefined;
  private readonly windows = new Map<string, number>();

  /** Follow one event; true when the figure changed. */
  observe(event: StreamEvent): boolean {
    const e = event as {
      type: string;
      parent_tool_use_id?: unknown;
      message?: { model?: unknown; usage?: Usage };
      event?: { type?: string; message?: { model?: unknown; usage?: Usage } };
      modelUsage?: unknown;
    };
    if (e.parent_tool_use_id) return false; // a subagent's context is its own
    const start = e.type === "stream_event" && e.event?.type === "message_start";
    // Every streamed delta comes through here: only these three events carry a figure.
    if (!start && e.type !== "assistant" && e.type !== "result") return false;
    const before = this.text();
    if (e.type === "assistant") this.take(e.message);
    else if (start) this.take(e.event!.message);
    else if (e.type === "result" && e.modelUsage && typeof e.modelUsage === "object") {
      for (const [model, usage] of Object.entries(
        e.modelUsage as Record<string, { contextWindow?: unknown; canonicalModel?: unknown }>,
      )) {
        if (typeof usage?.contextWindow !== "number" || usage.contextWindow <= 0) continue;
        this.windows.set(model, usage.contextWindow);
        // A 1M model is reported as "claude-sonnet-4-5[1m]", its messages as "claude-sonnet-4-5":
        // the window is found by the message's name too.
        const base = typeof usage.canonicalModel === "string" ? usage.canonicalModel : model.replace(/\[[^\]]*\]$/, "");
        if (base !== model) this.windows.set(base, usage.contextWindow);
      }
    }
    return this.text() !== before;
  }

  /** The share of the window in use (0–1), or null before any message. */
  get used(): number | null {
    return this.tokens === null ? null : this.tokens / this.window;
  }

  /** Close enough to the window that claude will compact soon. */
  get warn(): boolean {
    return (this.used ?? 0) >= WARN_AT;
  }

  /** "context 45k/200k (23%)", with "· auto-compact soon" past WARN_AT; "" before any message. */
  text(): string {
    const used = this.used;
    if (used === null || this.tokens === null) return "";
    const figure = `context ${kilo(this.tokens)}/${kilo(this.window)} (${Math.round(used * 100)}%)`;
    return this.warn ? `${figure} · auto-compact soon` : figure;
  }

  private get window(): number {
    return (this.model && this.windows.get(this.model)) || DEFAULT_WINDOW;
  }

  private take(message: { model?: unknown; usage?: Usage } | undefined): void {
    const usage = message?.usage;
    if (!usage) return;
    const n = (v: unknown) => (typeof v === "number" && v > 0 ? v : 0);
    const total =
      n(usage.input_tokens) +
      n(usage.cache_creation_input_tokens) +
      n(usage.cache_read_input_tokens) +
      n(usage.output_tokens);
    if (total === 0) return;
    this.tokens = total;
    if (typeof message.model === "string") this.model = message.model;
  }
}

function kilo(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(n % 1_000_000 === 0 ? 0 : 1)}M`;
  return n >= 1000 ? `${Math.round(n / 1000)}k` : String(n);
}
