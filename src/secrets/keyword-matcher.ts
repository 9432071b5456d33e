/**
 * Every occurrence of any of a set of ASCII keywords in a text, case-insensitively, in one pass:
 * an Aho–Corasick automaton turned into a table of next states (128 columns, one per ASCII code),
 * so each character of the text costs one lookup whatever the number of keywords, and the text is
 * lowered on the fly instead of copied.
 */
const WIDTH = 128;

export class KeywordMatcher {
  private readonly next: Int32Array;
  /** Per state (at its pre-multiplied index), the keywords that end there, its own and its suffixes'. */
  private readonly ends: number[][];
  /** 1 where a state has keywords ending there. */
  private readonly hit: Uint8Array;

  constructor(readonly keywords: readonly string[]) {
    const children: Array<Map<number, number>> = [new Map()];
    const own: number[][] = [[]];
    keywords.forEach((keyword, k) => {
      let state = 0;
      for (const ch of keyword.toLowerCase()) {
        const c = ch.charCodeAt(0);
        if (c >= WIDTH) throw new Error(`keyword ${JSON.stringify(keyword)} is not ASCII`);
        let child = children[state]!.get(c);
        if (child === undefined) {
          child = children.length;
          children.push(new Map());
          own.push([]);
          children[state]!.set(c, child);
        }
        state = child;
      }
      own[state]!.push(k);
    });
    this.next = new Int32Array(children.length * WIDTH);
    const ends = own.map((o) => [...o]);
    const fail = new Int32Array(children.length);
    // Breadth first: a state's failure link is known before its children's.
    const queue: number[] = [];
    for (const [c, child] of children[0]!) {
      this.next[c] = child;
      queue.push(child);
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      ends[state]!.push(...ends[fail[state]!]!);
      for (let c = 0; c < WIDTH; c++) {
        const child = children[state]!.get(c);
        if (child === undefined) this.next[state * WIDTH + c] = this.next[fail[state]! * WIDTH + c]!;
        else {
          fail[child] = this.next[fail[state]! * WIDTH + c]!;
          this.next[state * WIDTH + c] = child;
          queue.push(child);
        }
      }
    }
    for (let i = 0; i < this.next.length; i++) this.next[i] = this.next[i]! * WIDTH;
    this.hit = new Uint8Array(children.length * WIDTH);
    this.ends = [];
    own.forEach((_, state) => {
      this.ends[state * WIDTH] = ends[state]!;
      if (ends[state]!.length > 0) this.hit[state * WIDTH] = 1;
    });
  }

  /** Calls `found(start, keyword index)` for each occurrence, overlapping ones too, in order of their ends. */
  each(text: string, found: (start: number, keyword: number) => void): void {
    const next = this.next;
    const ends = this.ends;
    const hit = this.hit;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      let c = text.charCodeAt(i);
      if (c >= WIDTH) {
        state = 0;
        continue;
      }
      if (c >= 65 && c <= 90) c += 32;
      // States are stored pre-multiplied by WIDTH: one add per character.
      state = next[state + c]!;
      if (hit[state] === 1) for (const k of ends[state]!) found(i + 1 - this.keywords[k]!.length, k);
    }
  }
}
