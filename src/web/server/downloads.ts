/**
 * Exports waiting to be downloaded: each is a file in its own work folder of the store
 * (cut-off-work.ts: a killed server leaves nothing gc does not clear), reachable once through a
 * random token; taken, or unclaimed for ten minutes, it is removed.
 */
import { randomBytes } from "node:crypto";
import type { Work } from "../../store/cut-off-work.js";

const KEEP_MS = 10 * 60_000;

export interface Download {
  file: string;
  name: string;
  work: Work;
}

export class Downloads {
  private readonly waiting = new Map<string, Download & { timer: NodeJS.Timeout }>();

  /** The URL path that downloads it once. */
  add(d: Download): string {
    const token = randomBytes(24).toString("base64url");
    const timer = setTimeout(() => void this.take(token)?.work.finish(), KEEP_MS);
    timer.unref();
    this.waiting.set(token, { ...d, timer });
    return `/api/downloads/${token}`;
  }

  /** The download, now no longer reachable; the caller finishes its work folder once it is sent. */
  take(token: string): Download | null {
    const d = this.waiting.get(token);
    if (!d) return null;
    this.waiting.delete(token);
    clearTimeout(d.timer);
    return d;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.waiting.keys()].map((token) => this.take(token)?.work.finish()));
  }
}
