/**
 * The web server reads one session many times a second (its page, then every turn near the screen,
 * then again at each live event), and a 1,000-turn journal costs ~45 ms to parse and check each
 * time. Kept here: the last sessions read, each with the identity of its two files (inode, size,
 * mtime of manifest.json and turns.jsonl). Any write to either changes that identity (appends grow
 * the journal; the header is replaced by rename), so a kept manifest is never older than the
 * bundle; concurrent readers of the same version share one read. The state (recording, crashed)
 * is read afresh every time: a lock changes without the bundle changing.
 */
import { promises as fs } from "node:fs";
import {
  bundleDir,
  bundleFiles,
  readManifest,
  resolveId,
  sessionState,
  type Store,
  type StoredSession,
} from "../store/store.js";
import type { Manifest } from "../store/manifest-schema.js";

const KEPT = 16;
const kept = new Map<string, { identity: string; manifest: Promise<Manifest> }>();

async function identity(dir: string): Promise<string> {
  const files = bundleFiles(dir);
  const stats = await Promise.all(
    [files.manifest, files.journal].map((f) => fs.stat(f, { bigint: true }).catch(() => null)),
  );
  return stats.map((s) => (s ? `${s.ino}:${s.size}:${s.mtimeNs}` : "-")).join("/");
}

/** `resolveSession`, with the manifest kept between calls while its files are unchanged. */
export async function resolveSessionKept(store: Store, idOrPrefix: string): Promise<StoredSession> {
  const dir = bundleDir(store, await resolveId(store, idOrPrefix));
  const now = await identity(dir);
  let entry = kept.get(dir);
  if (!entry || entry.identity !== now) {
    entry = { identity: now, manifest: readManifest(dir) };
    // A failed read is not kept: the next request reads again (and reports it again).
    entry.manifest.catch(() => kept.get(dir) === entry && kept.delete(dir));
  }
  kept.delete(dir); // re-inserted last: the map's order is the order of use
  kept.set(dir, entry);
  for (const old of kept.keys()) {
    if (kept.size <= KEPT) break;
    kept.delete(old);
  }
  const manifest = await entry.manifest;
  return { dir, manifest, state: await sessionState(dir, manifest) };
}
