/**
 * `nudge session adopt`: one of claude's own sessions made a nudge session. Its transcript's turns
 * (cut at its prompts) are recorded as claude's own UI's turns are, through the same recorder: a
 * turn's lines are its part of the transcript, kept as bytes, and the transcript is copied into
 * the bundle, so `claude run -r` resumes the conversation. The code was never recorded: turn 0 and
 * every adopted turn hold the work tree as it is now, and the header says so (`adopted`). Its times
 * are the conversation's, from the transcript (adopted-times.ts).
 * Claude's folder is only read.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { newSessionId, type Store } from "../store/store.js";
import { lockWorkTree } from "../store/work-tree-lock.js";
import { registerRecording } from "../store/work-tree-recordings.js";
import { eachTranscriptLine, MOST_READ_BYTES, readTranscriptRange } from "../claude/transcript-lines.js";
import { promptOf, timeOf } from "../claude/transcript-turns.js";
import { parseEventLine } from "../claude/ndjson.js";
import { UserError } from "../base/errors.js";
import { SessionRecorder } from "../recorder/session-recorder.js";
import type { ClaudeSession } from "./claude-own-sessions.js";
import { createSession } from "./open-session.js";
import { recorderContext } from "./run-session.js";
import { isDir } from "../base/file-exists.js";
import { conversationStart, dateAdoptedTurns, usableTime, type TurnTimes } from "./adopted-times.js";

/** A transcript written this recently may be claude's live session: what it does next is not adopted. */
const LIVE_MS = 120_000;

/** What to say of a transcript (by its mtime) claude wrote to moments ago (it may still be running it), or null. */
export function mayBeLive(mtimeMs: number, now = Date.now()): string | null {
  const ago = now - mtimeMs;
  if (ago > LIVE_MS) return null;
  return `claude wrote to this session ${Math.max(0, Math.round(ago / 1000))} s ago: if it is still running, what it does next stays in claude's transcript, not in nudge's session (adopt it once claude has exited, or go on in it with nudge claude run -r)`;
}

export interface Adopted {
  id: string;
  dir: string;
  turns: number;
  cwd: string;
}

export async function adoptClaudeSession(
  store: Store,
  session: ClaudeSession,
  o: { claudeConfigDir: string },
): Promise<Adopted> {
  const size = statSync(session.file).size;
  if (size > MOST_READ_BYTES) {
    throw new UserError(
      `claude's session ${session.id} is too large to adopt (${size.toLocaleString("en")} bytes; at most ${MOST_READ_BYTES.toLocaleString("en")})`,
      `read it where it is: nudge session show ${session.id.slice(0, 8)}`,
    );
  }
  const starts = await promptStarts(session.file);
  const cwd = session.cwd && isDir(session.cwd) && insideRepo(store, session.cwd) ? session.cwd : store.repoRoot;
  const id = newSessionId();
  const adoptedAt = new Date().toISOString();
  const start = conversationStart(starts.map((s) => s.times));
  const root = store.repoRoot;
  const workTree = await lockWorkTree(store, root, { what: `adopting claude's session ${session.id} as ${id}` });
  const registration = await registerRecording(store, root, id);
  try {
    const created = await createSession(store, cwd, id);
    // The session began when the conversation did (a session's start never changes once written).
    const opened = { ...created, manifest: { ...created.manifest, createdAt: start ? iso(start) : adoptedAt } };
    const recorder = await SessionRecorder.start(
      opened.dir,
      opened.manifest,
      await recorderContext({ store, claudeConfigDir: o.claudeConfigDir, registration }, opened.manifest, cwd),
    );
    try {
      for (const [i, start] of starts.entries()) {
        const end = starts[i + 1]?.at ?? size;
        const lines = await readTranscriptRange(session.file, start.at, end - start.at);
        recorder.beginTurn(start.prompt);
        await recorder.endTurnByHook(Promise.resolve({ lines, upTo: start.at + lines.length }), true)!.saved;
      }
    } finally {
      await recorder.close();
    }
    await dateAdoptedTurns(
      opened.dir,
      starts.map((s) => s.times),
      { adopted: { claudeSessionId: session.id, at: adoptedAt, turns: starts.length } },
    );
    return { id, dir: opened.dir, turns: starts.length, cwd };
  } finally {
    await registration.end();
    await workTree.release();
  }
}

interface TurnStart {
  at: number;
  prompt: string;
  times: TurnTimes;
}

/**
 * Where each turn's part of the transcript begins (the first from its first byte: claude's
 * bookkeeping before the prompt is the turn's), and the times its lines carry.
 */
async function promptStarts(file: string): Promise<TurnStart[]> {
  const starts: TurnStart[] = [];
  let before: TurnTimes["lines"] = [];
  await eachTranscriptLine(file, (line) => {
    const json = parseEventLine(line.bytes);
    const prompt = promptOf(json);
    const time = usableTime(timeOf(json));
    if (prompt !== null) {
      starts.push({ at: starts.length === 0 ? 0 : line.at, prompt, times: { prompt: time, lines: before } });
      before = [];
    }
    (starts.at(-1)?.times.lines ?? before).push(time);
  });
  if (starts.length === 0)
    throw new UserError(
      "claude's session has no prompt to adopt (its transcript holds none)",
      "look at it where it is: nudge session show <id>",
    );
  return starts;
}

const iso = (ms: number) => new Date(ms).toISOString();

function insideRepo(store: Store, dir: string): boolean {
  const rel = path.relative(store.repoRoot, dir);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}
