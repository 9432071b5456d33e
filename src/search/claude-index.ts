/**
 * claude's own sessions in the search index, beside the recorded ones: each session's turns as
 * the view layer builds them (claude-session-view.ts), their pieces taken as a recorded turn's are
 * (turn-docs.ts). A session is indexed again whole when its transcript's size or time changed.
 * Never on a command's path: a background process (`nudge session index-claude`, started by a
 * search that finds some not indexed) takes them one at a time, each its own transaction, so a
 * search meanwhile answers from what is indexed.
 */
import type { ClaudeSession } from "../live/claude-own-sessions.js";
import { claudeStamp } from "./claude-stamp.js";
import { claudeTurnViews, readClaudeTranscript } from "../view/claude-session-view.js";
import { dropSession, insertPieces } from "./catch-up.js";
import type { SearchDb } from "./search-db.js";
import { entryDocs, MAX_DOC_CHARS, type Place, type TurnDoc } from "./turn-docs.js";

/** Index one session (all its turns again); returns how many turns. */
export async function indexClaudeSession(db: SearchDb, s: ClaudeSession): Promise<number> {
  const transcript = await readClaudeTranscript(s);
  const turns = claudeTurnViews(transcript, s, { full: true, repoRoot: s.cwd ?? "/" });
  const stamp = claudeStamp(s);
  db.transaction(() => {
    dropSession(db, s.id);
    for (const t of turns) {
      const docs: TurnDoc[] = [];
      const add = (place: Place, tool: string | null, text: string) => {
        if (text.trim() !== "") docs.push({ place, tool, text: text.slice(0, MAX_DOC_CHARS) });
      };
      if (t.prompt) add("prompt", null, t.prompt);
      entryDocs(t.entries, add);
      insertPieces(db, s.id, { n: t.n, key: stamp, at: t.endedAt ?? s.updatedAt, prompt: t.prompt }, docs, []);
    }
    db.prepare(
      "INSERT INTO sessions (id, stamp) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET stamp = excluded.stamp",
    ).run(s.id, stamp);
  }).immediate();
  return turns.length;
}
