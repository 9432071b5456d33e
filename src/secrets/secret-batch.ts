/**
 * Secrets in many small texts (the files and names of a history), found with one detection call
 * per few MB instead of one per text: secretlint's setup is paid per call, and a history of
 * thousands of files would pay it thousands of times. Texts are joined by a line holding a NUL,
 * which no pattern reaches across (as the commit messages in export-commits.ts), and each finding
 * is handed back with its own text, clipped to it.
 */
import { detectSecrets, type SecretSpan } from "./secret-detect.js";
import { JoinedTexts, SEPARATOR } from "./joined-texts.js";

/** About this many characters per detection call: enough to amortize the setup, small enough to keep memory flat. */
const BATCH_CHARS = 4 * 1024 * 1024;

export class SecretBatch<T> {
  private items: Array<{ item: T; text: string }> = [];
  private size = 0;

  constructor(private readonly found: (item: T, spans: SecretSpan[], text: string) => void) {}

  async add(item: T, text: string): Promise<void> {
    this.items.push({ item, text });
    this.size += text.length + SEPARATOR.length;
    if (this.size >= BATCH_CHARS) await this.flush();
  }

  /** Detect in what was added since the last flush; call once more at the end. */
  async flush(): Promise<void> {
    const items = this.items;
    this.items = [];
    this.size = 0;
    if (items.length === 0) return;
    const joined = new JoinedTexts(items.map((i) => i.text));
    const byItem = new Map<number, SecretSpan[]>();
    for (const [at, span] of joined.split(await detectSecrets(joined.text)))
      byItem.set(at, [...(byItem.get(at) ?? []), span]);
    for (const [at, found] of byItem) this.found(items[at]!.item, found, items[at]!.text);
  }
}
