/** A session's view, fetched from the source and fetched again on `load()`; the tab says its title. */
import { useCallback, useEffect, useState } from "preact/hooks";
import type { SessionView } from "../../../view/view-types.js";
import { title } from "./format.js";
import type { Source } from "./source.js";

export function useSessionView(
  source: Source,
  id: string,
): { view: SessionView | null; error: unknown; load: () => Promise<void> } {
  const [view, setView] = useState<SessionView | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(
    () =>
      source.session(id).then((v) => {
        setView(v);
        setError(null);
      }, setError),
    [source, id],
  );
  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    if (view) document.title = `${title(view.session.firstPrompt)} · nudge`;
  }, [view?.session.firstPrompt]);
  return { view, error, load };
}
