/**
 * Scroll to a place on a page whose sections change height as they are drawn and fetched: a
 * section under `content-visibility: auto` is laid out at a guessed height until it comes near the
 * screen, and the turns around the target fetch their entries after the jump, so one scroll lands
 * short (or the target is pushed off the screen). The scroll is applied again whenever the page
 * changes size, until it has kept its size for a while, and given up as soon as the user scrolls.
 */
const QUIET_MS = 2000;
const MOST_MS = 15_000;

/** Keep `scroll` applied until the layout settles; returns a function that stops it. */
export function settleScroll(scroll: () => void): () => void {
  let quiet: ReturnType<typeof setTimeout> | undefined;
  const resized = new ResizeObserver(() => {
    scroll();
    clearTimeout(quiet);
    quiet = setTimeout(stop, QUIET_MS);
  });
  const most = setTimeout(() => stop(), MOST_MS);
  const onInput = (e: Event) => {
    if (isUserScroll(e)) stop();
  };
  function stop(): void {
    resized.disconnect();
    clearTimeout(quiet);
    clearTimeout(most);
    for (const type of USER_SCROLLS) window.removeEventListener(type, onInput);
  }
  for (const type of USER_SCROLLS) window.addEventListener(type, onInput, { passive: true });
  requestAnimationFrame(() => {
    scroll();
    resized.observe(document.body);
    quiet = setTimeout(stop, QUIET_MS);
  });
  return stop;
}

export const USER_SCROLLS = ["wheel", "touchmove", "mousedown", "keydown"] as const;
const SCROLL_KEYS = new Set(["PageUp", "PageDown", "ArrowUp", "ArrowDown", "Home", "End", " ", "Spacebar"]);

/**
 * Whether an input event is the user scrolling the page: the wheel, a touch drag, a key that
 * scrolls (not typed into a field), or a press on the scroll bar. A click on a button is not.
 */
export function isUserScroll(e: Event): boolean {
  if (e.type === "wheel" || e.type === "touchmove") return true;
  if (e.type === "mousedown") return e.target === document.documentElement;
  if (e.type === "keydown") {
    const target = e.target as HTMLElement | null;
    if (target?.closest?.("input, textarea, select, [contenteditable]")) return false;
    return SCROLL_KEYS.has((e as KeyboardEvent).key);
  }
  return false;
}
