/**
 * A very long answer cut into pieces at blank lines outside code fences, each rendered on its own
 * as it nears the screen: a megabyte of markdown rendered at once held the page up, and past a
 * limit it was shown without markdown at all. A piece may still be long where there is no blank
 * line to cut at (one huge code block): it is cut at a line then.
 */
const PIECE = 40_000;

export function markdownPieces(source: string, size = PIECE): string[] {
  const lines = source.split("\n");
  const pieces: string[] = [];
  let piece: string[] = [];
  let length = 0;
  let fence: string | null = null;
  for (const line of lines) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || (marker[0] === fence[0] && marker.length >= fence.length)))
      fence = fence === null ? marker : null;
    piece.push(line);
    length += line.length + 1;
    const atBreak = fence === null && line.trim() === "";
    if (length >= size && (atBreak || length >= size * 4)) {
      pieces.push(piece.join("\n"));
      piece = [];
      length = 0;
      // A fence cut through: the next piece reopens it, so its lines stay code.
      if (fence !== null) piece.push(fence);
    }
  }
  if (piece.length) pieces.push(piece.join("\n"));
  return pieces;
}
