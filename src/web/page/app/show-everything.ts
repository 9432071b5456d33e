/**
 * "Draw everything now": what the in-page search asks before it looks, so that what a component
 * keeps behind a button (a diff's files past the first ones) is searched too. It holds for the
 * rest of the page's life: a component drawn later (a turn the search had drawn) starts expanded.
 */
const EVENT = "nudge:show-everything";
let asked = false;

export function showEverything(): void {
  asked = true;
  document.dispatchEvent(new Event(EVENT));
}

export function everythingShown(): boolean {
  return asked;
}

/** Calls back on each request; returns the unsubscribe (an effect's cleanup). */
export function onShowEverything(callback: () => void): () => void {
  document.addEventListener(EVENT, callback);
  return () => document.removeEventListener(EVENT, callback);
}
