/**
 * Scroll to a place on a page whose sections change height as they are drawn: a section under
 * `content-visibility: auto` is laid out at a guessed height until it comes near the screen, so
 * one scroll lands short once the sections around the target take their real height (End on a
 * long session stopped above the last turn on a loaded machine). The scroll is repeated each frame
 * until the page's height has held for a few frames, and given up as soon as the user scrolls.
 */
const STEADY_FRAMES = 3;
const MOST_FRAMES = 120;

/** Keep `scroll` applied until the layout settles; returns a function that stops it. */
export function settleScroll(scroll: () => void): () => void {
  let frame = 0;
  let steady = 0;
  let height = -1;
  let handle = 0;
  const stop = () => {
    cancelAnimationFrame(handle);
    for (const type of USER_SCROLLS) window.removeEventListener(type, stop);
  };
  const step = () => {
    scroll();
    const now = document.documentElement.scrollHeight;
    steady = now === height ? steady + 1 : 0;
    height = now;
    if (steady >= STEADY_FRAMES || ++frame >= MOST_FRAMES) return stop();
    handle = requestAnimationFrame(step);
  };
  for (const type of USER_SCROLLS) window.addEventListener(type, stop, { passive: true });
  handle = requestAnimationFrame(step);
  return stop;
}

const USER_SCROLLS = ["wheel", "touchstart", "mousedown", "keydown"] as const;
