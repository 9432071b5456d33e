/** The turn an address points at: `#turn-N` (a heading's permalink) or `?turn=N` (search hits, forks); null for none. */
export function turnInAddress(): number | null {
  const hash = /^#turn-(\d+)$/.exec(location.hash)?.[1];
  const query = new URLSearchParams(location.search).get("turn");
  const text = hash ?? query;
  if (text === null || !/^\d+$/.test(text.trim())) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}
