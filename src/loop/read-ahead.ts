/**
 * A prompt source that can say whether a line is waiting. The loop needs that to let a line the
 * user typed steer it; a source that cannot tell (stdin lines read one at a time) is read ahead
 * here instead: one `next()` is always outstanding, and what it brings waits in a queue.
 * Only for sources that show nothing when asked: a terminal's prompt line must not be drawn while
 * claude works, so on a terminal the source's own `hasQueued` (type-ahead) is what counts.
 */
import type { PromptSource } from "../live/frontend.js";

export function readAhead(source: PromptSource): PromptSource & { hasQueued(): boolean } {
  const queue: Array<string | null> = [];
  let pending: Promise<void> | null = null;
  let closed = false;
  const pump = () => {
    if (pending || closed || queue.at(-1) === null) return;
    pending = source.next().then((line) => {
      pending = null;
      if (closed) return;
      queue.push(line);
      pump();
    });
  };
  pump();
  return {
    hasQueued: () => queue.length > 0 && queue[0] !== null,
    async next() {
      while (queue.length === 0 && pending && !closed) await pending;
      if (closed || queue.length === 0) return null;
      const line = queue[0]!;
      if (line === null) return null; // EOF stays EOF
      queue.shift();
      return line;
    },
    close() {
      closed = true;
      queue.length = 0;
      source.close();
    },
  };
}
