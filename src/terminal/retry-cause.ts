/**
 * The cause of claude's API retries, said once per turn at the first retry: claude's own retry
 * events carry an HTTP status at best, and nothing when no answer came, while the retries can run
 * for minutes. With a status, the status and claude's error kind; without, what a connection to
 * the API address finds (src/claude/api-reach.ts).
 */
import { whyUnreachable } from "../claude/api-reach.js";
import type { StreamEvent } from "../claude/stream-events.js";
import { oneLine } from "../base/format.js";

export class RetryCause {
  private explained = false;

  constructor(
    private readonly o: { env: NodeJS.ProcessEnv; warn: (text: string) => void; probe?: typeof whyUnreachable },
  ) {}

  observe(event: StreamEvent): void {
    if (event.type === "result") {
      this.explained = false;
      return;
    }
    if (event.type !== "system" || event.subtype !== "api_retry" || this.explained) return;
    this.explained = true;
    const status = typeof event.error_status === "number" ? event.error_status : null;
    const kind = typeof event.error === "string" && event.error !== "unknown" ? oneLine(event.error, 80) : "";
    if (status !== null) {
      this.o.warn(`the API answered HTTP ${status}${kind ? ` (${kind})` : ""}; claude retries`);
      return;
    }
    void (this.o.probe ?? whyUnreachable)(this.o.env).then((why) =>
      this.o.warn(
        why
          ? `the API cannot be reached: ${why}; claude retries`
          : `claude's API request failed${kind ? ` (${kind})` : ""}, though the API address takes connections; claude retries`,
      ),
    );
  }
}
