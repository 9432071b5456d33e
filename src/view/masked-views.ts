/**
 * What `nudge web` shows of a session, masked as `session export --html` masks it: every text
 * that comes from a session (prompts, Claude's text, tool inputs and outputs, the list's first
 * and last prompts) has its secrets replaced by `[REDACTED:<kind>]`; diffs are code and pass as
 * they are, as in the export. One rule for the whole page, its search included: a page is shown
 * on shared screens and in screenshots as often as an export is sent.
 */
import type { Store } from "../store/store.js";
import type { SessionListItem, SessionView, TurnView } from "./view-types.js";
import { listSessionItems, sessionView, turnView } from "./session-views.js";

export async function maskedSessionItems(store: Store): Promise<SessionListItem[]> {
  return maskStrings(await listSessionItems(store));
}

export async function maskedSessionView(store: Store, id: string): Promise<SessionView> {
  return maskStrings(await sessionView(store, id));
}

/** A turn's texts masked; its diffs (code) as they are. */
export async function maskedTurnView(store: Store, id: string, n: number, o: { full: boolean }): Promise<TurnView> {
  const view = await turnView(store, id, n, o);
  const { summary, entries } = await maskStrings({ summary: view.summary, entries: view.entries });
  return { ...view, summary, entries };
}

/** A copy of `value` with every string's secrets masked (object keys stay), found in a few detection calls. */
export async function maskStrings<T>(value: T): Promise<T> {
  const [{ SecretBatch }, { maskText }] = await Promise.all([
    import("../secrets/secret-batch.js"),
    import("../secrets/secrets.js"),
  ]);
  const batch = new SecretBatch<{ holder: Record<string | number, unknown>; key: string | number }>(
    ({ holder, key }, spans, text) => {
      holder[key] = maskText(text, spans);
    },
  );
  const strings: Array<{ holder: Record<string | number, unknown>; key: string | number; text: string }> = [];
  const walk = (holder: Record<string | number, unknown>) => {
    for (const key of Object.keys(holder)) {
      const v = holder[key];
      if (typeof v === "string") strings.push({ holder, key, text: v });
      else if (v !== null && typeof v === "object") walk(v as Record<string, unknown>);
    }
  };
  const root: Record<string, unknown> = { value: structuredClone(value) };
  walk(root);
  for (const s of strings) await batch.add(s, s.text);
  await batch.flush();
  return root.value as T;
}
