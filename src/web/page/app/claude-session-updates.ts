/**
 * One of claude's own sessions kept up to date while its page is open: the server's
 * `claude-session` event (its transcript written: `claude --resume` in a terminal) asks for the
 * session again, and its last turns' sections are refetched (a reply lands in the turn in flight).
 * The stream is what the connection banner reads, so a stopped server is said here as on every page.
 * nudge's own list of sessions is listened to as well: an adoption elsewhere (the CLI, another tab)
 * is asked about at once, and the page says the session is nudge's now.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { ClaudeSessionView } from "../../../view/claude-web-views.js";
import { listen } from "./live.js";
import { inRepo } from "./repo-base.js";
import { getJson } from "./source.js";

export function useClaudeSessionUpdates(
  id: string,
  setView: (view: ClaudeSessionView) => void,
  setError: (error: unknown) => void,
): { versions: Record<number, number>; known: (view: ClaudeSessionView) => void } {
  const [versions, setVersions] = useState<Record<number, number>>({});
  // Listened to once the session is found: an id the server has none of is said once by the page.
  const [found, setFound] = useState(false);
  const last = useRef<number | null>(null);
  const known = useCallback((view: ClaudeSessionView) => {
    last.current = view.turns.at(-1)?.n ?? null;
    setFound(true);
  }, []);
  useEffect(() => {
    if (!found) return;
    const url = inRepo(`/api/claude-sessions/${encodeURIComponent(id)}`);
    const reload = () =>
      getJson<ClaudeSessionView>(url).then((view) => {
        const before = last.current;
        const now = view.turns.at(-1)?.n ?? null;
        last.current = now;
        // The turn that was last (it may have been finished since) and the one that is now.
        setVersions((v) => {
          const next = { ...v };
          for (const n of new Set([before, now])) if (n !== null) next[n] = (next[n] ?? 0) + 1;
          return next;
        });
        setView(view);
      }, setError);
    const stops = [
      listen(inRepo(`/api/claude-sessions/${encodeURIComponent(id)}/events`), {
        "claude-session": () => void reload(),
        reopen: () => void reload(),
        gone: () => void reload(),
      }),
      // nudge's sessions changed: this one may have been adopted meanwhile (its transcript is not
      // written then). Only a refusal matters: what claude wrote comes by the stream above.
      listen(inRepo("/api/events"), { sessions: () => void getJson(url).catch(setError) }),
    ];
    return () => stops.forEach((stop) => stop());
  }, [id, found, setView, setError]);
  return { versions, known };
}
