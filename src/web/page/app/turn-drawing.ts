/**
 * Which turn sections are drawn. Sections are drawn a chunk at a time, the first chunk at once and
 * one more whenever the browser is idle, so no task of the page's start blocks a click for long.
 * Going to a turn (or End, or printing) draws them all first; some turns are drawn whether or not
 * they are near the screen (a search hit, a jump).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { TurnSummaryView } from "../../../view/view-types.js";
import { settleScroll } from "./settle-scroll.js";
import { showEverything } from "./show-everything.js";

/** Turns per chunk: each chunk is its own memoized component (see TurnList). */
const CHUNK = 25;

export interface TurnDrawing {
  chunks: TurnSummaryView[][];
  /** Chunks of sections drawn so far. */
  drawn: number;
  /** Turns to draw now, whether or not they are near the screen. */
  forced: Set<number>;
  /** Draws every turn, then scrolls to turn `n` once they are. */
  goTo: (n: number) => void;
  /** Draws every turn with its entries (a search looks at all of them). */
  drawAll: () => void;
  /** Stops the scroll to a turn still settling (Jump to live ends it). */
  stopSettling: () => void;
}

export function useTurnDrawing(turns: TurnSummaryView[] | undefined): TurnDrawing {
  /** Turns to draw now, whether or not they are near the screen (a search hit, a jump). */
  const [forced, setForced] = useState<Set<number>>(new Set());
  /** Chunks of sections drawn so far: the first at once, the rest as the browser is idle. */
  const [drawn, setDrawn] = useState(1);
  const drawnNow = useRef(drawn);
  drawnNow.current = drawn;

  const chunks = useMemo(() => chunked(turns ?? [], CHUNK), [turns]);
  useEffect(() => {
    if (drawn >= chunks.length) return;
    return whenIdle(() => setDrawn((d) => d + 1));
  }, [drawn, chunks.length]);
  // End before every section is drawn: draw them all, then go to the last once they are (the
  // commit after setDrawn), staying there while the sections around it take their real height.
  const goingTo = useRef<number | "end" | null>(null);
  const settling = useRef<() => void>(() => {});
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (
        e.key !== "End" ||
        e.defaultPrevented ||
        (e.target instanceof HTMLElement && e.target.closest("input, textarea, select, [contenteditable]"))
      )
        return;
      if (drawnNow.current >= chunks.length) return;
      goingTo.current = "end";
      setDrawn(Infinity);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [chunks.length]);
  useEffect(() => {
    const target = goingTo.current;
    if (target === null || drawn < chunks.length) return;
    goingTo.current = null;
    const stop = settleScroll(() =>
      target === "end"
        ? window.scrollTo({ top: document.documentElement.scrollHeight })
        : document.getElementById(`turn-${target}`)?.scrollIntoView({ block: "start" }),
    );
    settling.current = stop;
    return stop;
  }, [drawn, chunks.length, forced]);

  const drawAll = useCallback(() => {
    setDrawn(Infinity);
    setForced(new Set(turns?.map((t) => t.n) ?? []));
  }, [turns]);
  // Printing (Ctrl-P) prints what is drawn: every turn is drawn first, with its entries, its
  // whole diff and long lines (a static export has them at hand; a served page draws those it
  // has fetched — the rest follow, and a second print has them).
  useEffect(() => {
    const onPrint = () => {
      drawAll();
      showEverything();
    };
    window.addEventListener("beforeprint", onPrint);
    return () => window.removeEventListener("beforeprint", onPrint);
  }, [drawAll]);

  const goTo = useCallback((n: number) => {
    goingTo.current = n;
    setDrawn(Infinity);
    setForced((f) => new Set([...f, n]));
  }, []);
  const stopSettling = useCallback(() => settling.current(), []);
  return { chunks, drawn, forced, goTo, drawAll, stopSettling };
}

function chunked<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Calls back when the browser is idle (at the latest after 200 ms); returns a cancel. */
function whenIdle(callback: () => void): () => void {
  if (typeof requestIdleCallback === "function") {
    const handle = requestIdleCallback(callback, { timeout: 200 });
    return () => cancelIdleCallback(handle);
  }
  const timer = setTimeout(callback, 0);
  return () => clearTimeout(timer);
}
