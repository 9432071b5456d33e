/**
 * One IntersectionObserver for every turn section: a 1,000-turn page made 1,000 observers, a good
 * part of its start. `whenNear` calls back once, when the element comes within 600px of the screen.
 */
const waiting = new Map<Element, () => void>();
let observer: IntersectionObserver | null = null;

export function whenNear(element: Element, callback: () => void): () => void {
  if (typeof IntersectionObserver === "undefined") {
    callback();
    return () => {};
  }
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        if (!e.isIntersecting) continue;
        const done = waiting.get(e.target);
        waiting.delete(e.target);
        observer?.unobserve(e.target);
        done?.();
      }
    },
    { rootMargin: "600px 0px" },
  );
  waiting.set(element, callback);
  observer.observe(element);
  return () => {
    waiting.delete(element);
    observer?.unobserve(element);
  };
}
