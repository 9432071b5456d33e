/**
 * Many texts scanned as one detection call: joined by a line holding a NUL, which no pattern
 * reaches across, and each finding handed back to its own text, clipped to it.
 */
import type { SecretSpan } from "./secret-detect.js";

export const SEPARATOR = "\n\u0000\n";

export class JoinedTexts {
  readonly text: string;
  private readonly pieces: Array<{ from: number; length: number }> = [];

  constructor(texts: string[]) {
    let from = 0;
    for (const text of texts) {
      this.pieces.push({ from, length: text.length });
      from += text.length + SEPARATOR.length;
    }
    this.text = texts.join(SEPARATOR);
  }

  /** Each span of the joined text as [its text's index, the span in that text]; one that starts in a separator is dropped. */
  *split(spans: SecretSpan[]): Generator<[number, SecretSpan]> {
    for (const span of spans) {
      const at = itemAt(this.pieces, span.start);
      const { from, length } = this.pieces[at]!;
      if (span.start >= from + length) continue;
      yield [at, { kind: span.kind, start: span.start - from, end: Math.min(span.end - from, length) }];
    }
  }
}

/** In pieces of one joined text, sorted by start: the last piece that starts at or before `offset`. */
export function itemAt(items: Array<{ from: number }>, offset: number): number {
  let lo = 0;
  let hi = items.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (items[mid]!.from <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
