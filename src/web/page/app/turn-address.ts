/** The turn an address points at: `#turn-N` (a heading's permalink) or `?turn=N` (search hits, forks); null for none. */
export function turnInAddress(): number | null {
  const hash = /^#turn-(\d+)$/.exec(location.hash)?.[1];
  const query = new URLSearchParams(location.search).get("turn");
  const text = hash ?? query;
  if (text === null || !/^\d+$/.test(text.trim())) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

/** What the address gives for a turn when it is no turn number (`?turn=abc`, `#turn-x`), to say so; null otherwise. */
export function badTurnInAddress(): string | null {
  const hash = /^#turn-(.*)$/.exec(location.hash)?.[1];
  const text = hash ?? new URLSearchParams(location.search).get("turn");
  return text !== null && turnInAddress() === null ? decodeURIComponent(text) : null;
}
