/** Exact-length reads from a stream of chunks: a 512-byte tar header, then an entry's body, piece by piece. */
export class ByteReader {
  private chunks: Buffer[] = [];
  private length = 0;
  private ended = false;
  private readonly source: AsyncIterator<Buffer>;

  constructor(source: AsyncIterable<Buffer>) {
    this.source = source[Symbol.asyncIterator]();
  }

  /** Exactly `n` bytes, or null when the stream ends first (what it had is left unread). */
  async read(n: number): Promise<Buffer | null> {
    while (this.length < n && !this.ended) await this.pull();
    if (this.length < n) return null;
    return this.take(n);
  }

  /**
   * The next `n` bytes in the pieces they arrive in, without holding them all. Ends early (the
   * caller counts) when the stream does.
   */
  async *stream(n: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.length === 0) {
        if (this.ended) return;
        await this.pull();
        continue;
      }
      const piece = this.take(Math.min(left, this.chunks[0]!.length));
      left -= piece.length;
      yield piece;
    }
  }

  /** Whether everything left is zero bytes (a tar's end-of-archive padding); reads to the end. */
  async restIsZero(): Promise<boolean> {
    for (;;) {
      for (const chunk of this.chunks.splice(0)) if (chunk.some((b) => b !== 0)) return false;
      this.length = 0;
      if (this.ended) return true;
      await this.pull();
    }
  }

  /** Let go of the source (its `finally` closes the file) when reading stops early. */
  async close(): Promise<void> {
    await this.source.return?.();
  }

  private async pull(): Promise<void> {
    const next = await this.source.next();
    if (next.done) this.ended = true;
    else if (next.value.length > 0) {
      this.chunks.push(next.value);
      this.length += next.value.length;
    }
  }

  private take(n: number): Buffer {
    // An empty entry may come when nothing is buffered.
    if (n === 0) return Buffer.alloc(0);
    const first = this.chunks[0]!;
    if (first.length >= n) {
      const piece = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      this.length -= n;
      return piece;
    }
    const parts: Buffer[] = [];
    let left = n;
    while (left > 0) {
      const chunk = this.chunks[0]!;
      const piece = chunk.subarray(0, left);
      parts.push(piece);
      if (piece.length === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(left);
      left -= piece.length;
    }
    this.length -= n;
    return Buffer.concat(parts);
  }
}
