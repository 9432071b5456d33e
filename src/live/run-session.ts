/**
 * A live session from start to end, for any frontend: pick the session (new, -c, -r), hold the
 * work tree, record with a claude process of its own, run the conversation, and on /rewind,
 * /fork, /compact or /undo finish one recording and go on in another.
 */
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import type { Manifest, Turn } from "../store/manifest-schema.js";
import { loadSession, newSessionId, readManifest, requireOwnRepository, type Store } from "../store/store.js";
import { turnOf } from "../store/turn-lookup.js";
import { lockWorkTree } from "../store/work-tree-lock.js";
import { registerRecording, type RecordingRegistration } from "../store/work-tree-recordings.js";
import type { ClaudeFlags } from "../claude/claude-process.js";
import type { Sandbox } from "../claude/sandbox.js";
import { UserError } from "../base/errors.js";
import { tokenChange } from "../base/format.js";
import { SessionRecorder, type RecorderContext, type TurnHandle } from "../recorder/session-recorder.js";
import * as git from "../snapshot/git.js";
import { ownPathExcludes } from "../snapshot/own-paths.js";
import { sessionRef } from "../snapshot/snapshotter.js";
import { untrackedCacheVerdict } from "../snapshot/untracked-cache.js";
import { forkBundle } from "../time-travel/fork.js";
import { forkInPlaceOperation, undoOperation } from "../time-travel/operations.js";
import {
  applyRewind,
  prepareRewind,
  refuseIfInterrupted,
  withUndo,
  withWorkTree,
  type PreparedRewind,
} from "../time-travel/rewind.js";
import { describePlan } from "../time-travel/rewind-plan.js";
import { ClaudeLink, withDiskHint } from "./claude-link.js";
import { ControlHandler, type ToolGuard } from "./control-handler.js";
import { recoverCrashedIn } from "./crash-recovery.js";
import { Conversation } from "./conversation.js";
import { confirmInSession } from "./confirm-operation.js";
import { withEditsGate } from "./edits-gate.js";
import type { Frontend } from "./frontend.js";
import {
  chooseSession,
  createSession,
  reopenSession,
  privateIndexFile,
  sweepAbandonedSessions,
  type OpenedSession,
  type SessionChoice,
} from "./open-session.js";

export interface RunSessionInput {
  store: Store;
  /** Where a new session's claude works. */
  cwd: string;
  bin: string;
  claudeConfigDir: string;
  env: NodeJS.ProcessEnv;
  choice: SessionChoice;
  flags: Omit<ClaudeFlags, "resume">;
  firstPrompt?: string;
  /** Record even though another recording holds this work tree. */
  force?: boolean;
  frontend: Frontend;
  guard: ToolGuard | null;
  /** Run claude under bubblewrap, writes confined (`claude loop --sandbox`). */
  sandbox?: Sandbox | null;
  /** The session's recording has begun, under this id: before anything is asked (the page must know whom its answers are for). */
  onRecording?: (sessionId: string) => void;
  /** The conversation, once it exists: the frontend routes Ctrl-C and signals to it. */
  onConversation?: (conversation: Conversation) => void;
  /** Each time a turn's record is written (the search index follows), never waited on. */
  onTurnSaved?: (sessionId: string) => void;
  /** After each saved turn (an agentic loop's check, kept on the turn through `recorder`); false ends the session. */
  afterTurn?: (turn: Turn, sessionId: string, recorder: SessionRecorder) => Promise<boolean>;
}

export interface RunOutcome {
  id: string;
  dir: string;
  turns: Turn[];
  /** Of those, the turns this run began (not an earlier run's, nor ones recovered from a crash). */
  turnsRun: Turn[];
  /** A new session in which no turn was recorded is not kept. */
  discarded: boolean;
  /** Prompts not sent because an image they named could not go (conversation.ts). */
  refusedPrompts: number;
}

export async function runSession(input: RunSessionInput): Promise<RunOutcome> {
  const { store, frontend } = input;
  const existing = await chooseSession(store, input.choice);
  if (existing) await requireOwnRepository(store, existing.manifest);
  const root = existing?.manifest.repo.root ?? store.repoRoot;
  const newId = newSessionId();
  const workTree = input.force
    ? null
    : await lockWorkTree(store, root, { what: `recording session ${existing?.manifest.id ?? newId}` });
  const registration = await registerRecording(store, root, existing?.manifest.id ?? newId);
  try {
    // Two recordings in one work tree (--force): say at once what that does to both.
    for (const other of await registration.live()) {
      frontend.warn(
        `session ${other.session} is also being recorded in this work tree (pid ${other.pid}): a turn of either may capture the other's changes; such turns are marked "shared work tree", and a rewind keeps their files unless --include-shared`,
      );
    }
    // A rewind cut off halfway left the files half switched: never record that as anyone's work.
    await refuseIfInterrupted(store, root);
    const live = new LiveRecording(input, registration);
    // One look at the store: crashed sessions to save first, and folders a kill left without a header to sweep.
    const unreadable: string[] = [];
    await recoverCrashedIn(store, root, {
      except: existing?.manifest.id ?? null,
      open: async (dir, manifest) =>
        SessionRecorder.start(dir, manifest, await live.context(manifest, manifest.repo.cwd), {
          warning: (w) => frontend.warn(`session ${manifest.id}: ${w}`),
        }),
      warn: (w) => frontend.warn(w),
      unreadable: (dir) => unreadable.push(dir),
    });
    await sweepAbandonedSessions(unreadable);
    // Before anything runs, an existing session's last snapshot must still exist.
    const opened = existing ? await reopenSession(store, existing) : await createSession(store, input.cwd, newId);
    const holder = { link: await live.start(opened) };
    input.onRecording?.(holder.link.recorder.manifest.id);
    const note = opened.isNew ? null : await live.checkResumePoint(holder.link);
    const conversation = new Conversation({
      holder,
      frontend,
      firstPrompt: input.firstPrompt,
      note,
      cwd: input.cwd,
      slash: live.slashCommands(holder),
      afterTurn: input.afterTurn
        ? (turn) => input.afterTurn!(turn, holder.link.recorder.manifest.id, holder.link.recorder)
        : undefined,
    });
    live.show = (event) => conversation.show(event);
    live.claudeTurn = (turn) => conversation.claudeTurn(turn);
    input.onConversation?.(conversation);
    let discarded = false;
    try {
      await conversation.run();
    } finally {
      await live.finish(holder.link);
      // Nothing asked, or claude never answered (it rejected its arguments): -c must not land in it.
      const recorder = holder.link.recorder;
      // A recording that failed (a full disk) stopped claude itself: its prompt is kept for -c.
      discarded =
        opened.isNew &&
        recorder.manifest.id === opened.manifest.id &&
        (!recorder.anyTurnBegun || (!recorder.claudeEverSpoke && !holder.link.recordingFailed));
      // Best effort: a failure here must not hide the error the session may be ending with.
      if (discarded) await discardSession(store, recorder.files.dir, recorder.manifest.id).catch(() => undefined);
    }
    const final = holder.link.recorder.manifest;
    const begun = new Set(conversation.begun.filter((b) => b.session === final.id).map((b) => b.n));
    const turnsRun = final.turns.filter((t) => begun.has(t.n));
    return {
      id: final.id,
      dir: holder.link.recorder.files.dir,
      turns: final.turns,
      turnsRun,
      discarded,
      refusedPrompts: conversation.refusedPrompts,
    };
  } finally {
    await registration.end();
    await workTree?.release();
  }
}

/** Where a session's recorder keeps its index, what it leaves out, where claude's files are. */
export async function recorderContext(
  o: {
    store: Store;
    claudeConfigDir: string;
    registration: RecordingRegistration;
    onTurnSaved?: (sessionId: string) => void;
  },
  manifest: Manifest,
  cwd: string,
): Promise<RecorderContext> {
  const root = manifest.repo.root;
  return {
    claudeConfigDir: o.claudeConfigDir,
    cwd,
    exclude: ownPathExcludes(root, o.store.ownDirs),
    indexFile: privateIndexFile(o.store, manifest.id),
    untrackedCache: await untrackedCacheVerdict(path.join(o.store.dir, "index"), root),
    sharedWith: (from, to) => o.registration.during(from, to),
    turnSaved: o.onTurnSaved,
  };
}

/** A session in which nothing happened (an aborted run, /exit at once, a claude that would not start) is not kept. */
export async function discardSession(store: Store, dir: string, id: string): Promise<void> {
  await fs.rm(dir, { recursive: true, force: true });
  await git.deleteRefs(store.repoRoot, [sessionRef(id)]).catch(() => undefined);
}

/** Starting and switching recordings; the slash commands that switch them. */
class LiveRecording {
  /** Where the events of every recording go (the conversation, once it exists). */
  show: (event: Parameters<Frontend["render"]>[0]) => void;
  /** Where a turn claude began by itself goes (the conversation, which shows it as a turn). */
  claudeTurn: (turn: TurnHandle) => void = () => undefined;

  constructor(
    private readonly input: RunSessionInput,
    private readonly registration: RecordingRegistration,
  ) {
    this.show = (event) => input.frontend.render(event);
  }

  context(manifest: Manifest, cwd: string): Promise<RecorderContext> {
    return recorderContext({ ...this.input, registration: this.registration }, manifest, cwd);
  }

  /** Record into a bundle with a claude process of its own. */
  async start(session: OpenedSession): Promise<ClaudeLink> {
    const { frontend } = this.input;
    const runCwd = session.isNew ? this.input.cwd : session.manifest.repo.cwd;
    if (!existsSync(runCwd)) {
      throw new UserError(
        `the session's directory is gone: ${runCwd}`,
        "fork the session into a worktree: nudge session fork <id> --worktree <path>",
      );
    }
    const recorder = await SessionRecorder.start(
      session.dir,
      session.manifest,
      await this.context(session.manifest, runCwd),
      {
        event: (e) => this.show(e),
        warning: (w) => frontend.warn(w),
        claudeTurn: (t) => this.claudeTurn(t),
      },
    ).catch(async (error: unknown) => {
      // A new session that could not even record its starting state leaves no empty folder behind.
      if (session.isNew) await fs.rm(session.dir, { recursive: true, force: true });
      throw error;
    });
    const m = recorder.manifest;
    await this.registration.setSession(m.id);
    frontend.say(
      `● nudge ${session.isNew ? "recording" : "continuing"} session ${m.id}${m.parent ? ` (fork of ${m.parent.id} at turn ${m.parent.turn})` : ""} · ${session.dir}`,
    );
    if (runCwd !== this.input.cwd) frontend.say(`  claude runs in ${runCwd}, where this session's code is`);
    const link: ClaudeLink = new ClaudeLink({
      bin: this.input.bin,
      flags: this.input.flags,
      cwd: runCwd,
      env: this.input.env,
      claudeConfigDir: this.input.claudeConfigDir,
      sandbox: this.input.sandbox ?? null,
      recorder,
      control: new ControlHandler({
        asker: frontend.asker,
        guard: withEditsGate(this.input.guard, () => recorder.capturesSettled()),
        cwd: runCwd,
        notice: (t) => frontend.warn(t),
        toolUse: (id) => link.toolUse(id),
      }),
      onUnexpectedExit: (exit, stderr) => {
        const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.exitCode}`;
        frontend.error(
          `claude exited (${how})${stderr ? `: ${stderr.split("\n").at(-1)}` : ""}`,
          "everything so far is recorded; the next prompt resumes the conversation in a new claude process",
        );
      },
    });
    return link;
  }

  /** End a recording: claude's input closed, the last turn saved, the bundle complete. */
  async finish(link: ClaudeLink): Promise<void> {
    try {
      try {
        await link.end();
      } finally {
        await link.recorder.close();
      }
    } catch (error) {
      // A full disk here (the last header) leaves the session to -c, as during a turn.
      throw withDiskHint(error);
    }
  }

  /**
   * Continuing a session whose files no longer match where the conversation resumes (edited
   * between runs, rewound without the conversation): rewind the code to match, or go on and let
   * claude know. Returns the note for claude, if any.
   */
  async checkResumePoint(link: ClaudeLink): Promise<string | null> {
    const recorder = link.recorder;
    const edits = await recorder.captureEdits();
    if (!edits) return null;
    const root = recorder.manifest.repo.root;
    const changed = (await git.diffEntries(root, await recorder.currentTree(), edits)).map((e) =>
      git.printablePath(e.path),
    );
    const choice = await this.input.frontend.resumeMismatch(changed);
    if (choice === "rewind") {
      const last = recorder.manifest.turns.at(-1)!;
      const session = { dir: recorder.files.dir, manifest: recorder.manifest, state: "recording" as const };
      const { store } = this.input;
      const record = await withWorkTree(store, root, `rewinding session ${session.manifest.id}`, async () =>
        applyRewind(
          store,
          session,
          await prepareRewind(store, session, last.n, { scope: "code", resetHead: false, from: session.manifest.id }),
        ),
      );
      this.input.frontend.say(
        `the files are back at turn ${last.n}; your changes are saved as ${record.backup.ref} (undo: /undo)`,
      );
      return null;
    }
    const shown = changed.slice(0, 20).join(", ") + (changed.length > 20 ? ` and ${changed.length - 20} more` : "");
    return `[nudge] Since this conversation last ran, these files were changed outside it: ${shown}. Read them again before relying on what you remember of them.`;
  }

  slashCommands(holder: { link: ClaudeLink }) {
    const { store, frontend } = this.input;
    /** Finish this recording, do `change`, and record on in the session it returns (the old one if it fails). */
    const switchTo = async (change: () => Promise<OpenedSession>): Promise<void> => {
      const dir = holder.link.recorder.files.dir;
      await this.finish(holder.link);
      try {
        holder.link = await this.start(await change());
      } catch (error) {
        holder.link = await this.start({ dir, manifest: await readManifest(dir), isNew: false });
        throw error;
      }
    };
    const branchAt = async (turn: number, verb: string): Promise<string | null> => {
      const recorder = holder.link.recorder;
      turnOf(recorder.manifest, turn); // a turn that is not there: say so, and keep recording as before
      await recorder.settled();
      const source = { dir: recorder.files.dir, manifest: recorder.manifest, state: "recording" as const };
      return withWorkTree(
        store,
        source.manifest.repo.root,
        `${verb === "rewind" ? "rewinding" : "forking"} session ${source.manifest.id}`,
        async () => {
          // The session's own words: here a /rewind is a fork put in place, going on in the fork.
          const op = {
            ...forkInPlaceOperation(store, source, turn, { from: source.manifest.id }),
            describe: (p: PreparedRewind) => describePlan(p.plan, verb),
            question: () => `${verb} to turn ${turn}?`,
          };
          const plan = await confirmInSession(frontend, op, `/${verb}`);
          if (!plan) return "cancelled; nothing was changed";
          let backup = "";
          await switchTo(async () => {
            const fork = await op.apply(plan);
            backup = fork.rewind ? ` · previous state saved as ${fork.rewind.backup.ref} (undo: /undo)` : "";
            return { dir: fork.dir, manifest: fork.manifest, isNew: false };
          });
          return `${verb === "rewind" ? "rewound" : "forked"} to turn ${turn}: code and conversation as they were then; turns after it stay in ${source.manifest.id}${backup}`;
        },
      );
    };
    return {
      rewind: (turn: number) => branchAt(turn, "rewind"),
      fork: (turn: number | undefined) => branchAt(turn ?? holder.link.recorder.manifest.turns.length - 1, "fork"),
      compact: async (instructions: string): Promise<string | null> => {
        const recorder = holder.link.recorder;
        await recorder.settled();
        // Nothing claude could compact: no fork, no empty session left behind.
        if (!recorder.claudeSessionId)
          throw new UserError("nothing to compact yet: claude has not answered in this session", "type a prompt first");
        const last = recorder.manifest.turns.at(-1)!;
        const source = { dir: recorder.files.dir, manifest: recorder.manifest, state: "recording" as const };
        await switchTo(async () => ({ ...(await forkBundle(store, source, last.n)), isNew: false }));
        const compacting = await holder.link.startTurn(`/compact${instructions ? ` ${instructions}` : ""}`, false);
        frontend.turnFinished(await compacting.finished);
        const turn = await compacting.saved;
        frontend.turnSaved(turn);
        const fork = holder.link.recorder.manifest.id;
        if (!turn.compaction)
          return `claude did not compact (its answer is above); going on in fork ${fork}; session ${source.manifest.id} keeps the whole conversation`;
        return `compacted in fork ${fork} (${tokenChange(turn.compaction)}); session ${source.manifest.id} keeps the whole conversation`;
      },
      undo: async (): Promise<string | null> =>
        withUndo(store, async () => {
          const op = undoOperation(store, { from: holder.link.recorder.manifest.id });
          const prepared = await confirmInSession(frontend, op, "/undo");
          if (!prepared) return "cancelled; nothing was changed";
          const recordedIn = prepared.plan.undo.sessionId;
          let result = "";
          await holder.link.recorder.settled();
          await switchTo(async () => {
            const { record, notRestored } = await op.apply(prepared);
            for (const file of notRestored) frontend.warn(`could not write back ${file}`);
            result = `undid the rewind of ${record.sessionId} to turn ${record.turn}: the files are as they were before it`;
            const session = await loadSession(store, recordedIn);
            return { dir: session.dir, manifest: session.manifest, isNew: false };
          });
          return `${result}; continuing session ${recordedIn}`;
        }),
    };
  }
}
