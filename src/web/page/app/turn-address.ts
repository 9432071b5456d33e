/**
 * The turn an address names: `#turn-N` (a heading's permalink) or `?turn=N` (search hits, forks).
 * `bad` is what it gave when that is no turn number (`?turn=abc`), for the page to say so.
 */
export function turnInAddress(): { turn: number | null; bad: string | null } {
  const hash = /^#turn-(.*)$/.exec(location.hash)?.[1];
  // The query is decoded by URLSearchParams; a hash is not, and may not decode at all (`#turn-%zz`).
  const text = hash !== undefined ? decodedOrAsIs(hash) : new URLSearchParams(location.search).get("turn");
  if (text === null) return { turn: null, bad: null };
  const n = /^\d+$/.test(text.trim()) ? Number(text) : NaN;
  return Number.isSafeInteger(n) ? { turn: n, bad: null } : { turn: null, bad: text };
}

function decodedOrAsIs(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
