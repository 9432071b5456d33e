/**
 * In-page search for the static export (no server to ask): the turns whose text holds the words
 * are drawn, every match is marked with the CSS Custom Highlight API (ranges, the DOM untouched,
 * so Preact's tree stays as it drew it), and Previous/Next scroll from one to the next, opening
 * the collapsed tool call or thinking that holds it.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { showEverything } from "../show-everything.js";

type HighlightRegistry = Map<string, unknown>;
declare const Highlight: (new (...ranges: Range[]) => unknown) | undefined;

function registry(): HighlightRegistry | null {
  const css = (globalThis as { CSS?: { highlights?: HighlightRegistry } }).CSS;
  return css?.highlights ?? null;
}

export function SearchBox({ onSearch }: { onSearch: () => void }) {
  const [query, setQuery] = useState("");
  const [hits, setHits] = useState<Range[]>([]);
  const [at, setAt] = useState(0);
  const timer = useRef<number | undefined>(undefined);
  /** The pending looks of the query being searched. */
  const looks = useRef<number[]>([]);

  const find = (q: string) => {
    for (const t of looks.current) window.clearTimeout(t);
    looks.current = [];
    const words = q.trim().toLowerCase();
    if (!words) return setHits([]);
    const container = document.getElementById("turns");
    if (!container) return;
    // Draw every turn, and all that is kept behind buttons, then look in what was drawn.
    onSearch();
    showEverything();
    const look = () => {
      const found: Range[] = [];
      const walker = document.createTreeWalker(container, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = (node.nodeValue ?? "").toLowerCase();
        for (let i = text.indexOf(words); i !== -1; i = text.indexOf(words, i + words.length)) {
          const range = document.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + words.length);
          found.push(range);
        }
      }
      setHits(found);
      setAt((a) => (a < found.length ? a : 0));
    };
    // The turns draw over the next frames (each reads its view first): look again as they do.
    // Only for this query: the looks of one typed before are called off (they would set its hits).
    looks.current = [30, 250, 1000, 2500].map((ms) => window.setTimeout(look, ms));
  };

  useEffect(() => {
    const r = registry();
    if (r && typeof Highlight !== "undefined") {
      r.set("search", new Highlight(...hits));
      const current = hits[at];
      if (current) r.set("search-current", new Highlight(current));
      else r.delete("search-current");
    }
    const current = hits[at];
    if (!current) return;
    // Open what hides the match (a collapsed tool call, thinking), then bring it into view.
    for (let el = current.startContainer.parentElement; el; el = el.parentElement)
      if (el instanceof HTMLDetailsElement) el.open = true;
    current.startContainer.parentElement?.scrollIntoView({ block: "center" });
  }, [hits, at]);

  const move = (step: number) => hits.length && setAt((at + step + hits.length) % hits.length);
  return (
    <form
      class="search"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        move(1);
      }}
    >
      <label>
        Search{" "}
        <input
          type="search"
          value={query}
          onInput={(e) => {
            const q = e.currentTarget.value;
            setQuery(q);
            // What was found for the text before is not for this one.
            for (const t of looks.current) window.clearTimeout(t);
            looks.current = [];
            setHits([]);
            window.clearTimeout(timer.current);
            timer.current = window.setTimeout(() => find(q), 150);
          }}
        />
      </label>
      <button type="button" onClick={() => move(-1)} disabled={!hits.length}>
        Previous
      </button>
      <button type="submit" disabled={!hits.length}>
        Next
      </button>
      <span class="muted" aria-live="polite">
        {query.trim() ? (hits.length ? `${at + 1} of ${hits.length}` : "no match") : ""}
      </span>
    </form>
  );
}
