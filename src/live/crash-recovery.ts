/**
 * A session whose nudge was killed while claude worked has a turn in flight, saved by the next run
 * of that session "with the code as it is found then". If another recording works in the same
 * files first, "then" would include that recording's changes, and the crashed session would claim
 * them as its claude's. So every recording first saves such turns of other sessions in its work
 * tree, before it touches anything (which also stops their orphaned claude).
 */
import { scanSessions, readManifest, type Store } from "../store/store.js";
import { errorMessage } from "../base/errors.js";
import type { SessionRecorder } from "../recorder/session-recorder.js";
import type { Manifest } from "../store/manifest-schema.js";

/** `open` starts a recorder on a session (it recovers the unsaved turns as it starts); `unreadable` hears of folders whose header could not be read. */
export async function recoverCrashedIn(
  store: Store,
  root: string,
  o: {
    except: string | null;
    open: (dir: string, manifest: Manifest) => Promise<SessionRecorder>;
    warn: (text: string) => void;
    unreadable?: (dir: string) => void;
  },
): Promise<void> {
  // Only sessions whose header is not complete can have an unsaved turn: the index finds them without reading every header.
  for (const listed of (await scanSessions(store, { unfinished: true, onSkip: o.unreadable })).sessions) {
    const { id } = listed.header;
    if (listed.state !== "crashed" || listed.header.repo.root !== root || id === o.except) continue;
    try {
      const manifest = await readManifest(listed.dir);
      if (manifest.unsaved.length === 0) continue;
      const recorder = await o.open(listed.dir, manifest);
      await recorder.close();
    } catch (error) {
      o.warn(
        `could not save the unsaved turn of crashed session ${id} (${errorMessage(error)}); its lines stay in its conversation.jsonl`,
      );
    }
  }
}
