/**
 * An imported fork keeps its FORK OF. Session ids are random and travel with exports, so the
 * parent is named by the id it had where it was recorded; when that parent was imported here
 * under a fresh id, the fork points at that one instead.
 */
import { listSessions, type Store } from "../store/store.js";
import type { Manifest } from "../store/manifest-schema.js";

export async function parentHere(store: Store, parent: Manifest["parent"]): Promise<Manifest["parent"]> {
  if (!parent) return null;
  const sessions = await listSessions(store);
  if (sessions.some((s) => s.header.id === parent.id)) return parent;
  const imported = sessions.find((s) => s.header.origin?.sourceId === parent.id);
  return imported ? { ...parent, id: imported.header.id } : parent;
}
