/**
 * A word as a POSIX shell reads it back unchanged: for command lines nudge prints for the user to
 * paste, where a path with a space or `$(…)` in it would otherwise split or run something.
 */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_/.,:@%+=-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
