/**
 * `nudge session push`: publish a session to a git remote as exactly what `session export`
 * writes (masked, code secrets refused, --upto honoured), under refs of its own
 * (published-card.ts). Planned first from what the remote holds and what this clone published or
 * pulled before (planPublish, pure), then exported, committed in nudge's sync repository and
 * pushed in one atomic push whose leases refuse to replace anything this clone did not see.
 *
 * Whose session is it? The one who published it first. Pushing again after more turns updates
 * one's own publication (a fast-forward: its new commit builds on the last, so only the new
 * turn's objects travel). A session pulled from someone and continued here is published as a
 * fork under a fresh id, beside theirs. Anything else under the same id is refused with a hint.
 */
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { UserError } from "../base/errors.js";
import { beginWork } from "../store/cut-off-work.js";
import { syncLock } from "./fetch-published.js";
import type { Store, StoredSession } from "../store/store.js";
import * as remoteGit from "../snapshot/git-remote.js";
import { exportSession, type ExportResult } from "../sharing/export-session.js";
import { planExport } from "../sharing/export-plan.js";
import {
  CARD_FILE,
  EXPORT_FILE,
  PUBLISHED_PREFIX,
  baseRef,
  basePins,
  cardRef,
  dataRef,
  parsePublishedRef,
} from "./published-card.js";
import { cardOf, measureFile } from "./publish-export.js";
import {
  adoptKnown,
  fetchedRef,
  mineRef,
  minePrefix,
  pairs,
  pendingPrefix,
  pendingRef,
  pulledPrefix,
  syncRepo,
  type Remote,
} from "./sync-remote.js";
import { faultPoint } from "../base/fault-injection.js";
import { classifyRefusal } from "./push-refusal.js";

export interface PublishOptions {
  remote: Remote;
  upto: number | null;
  /** Publish under a fresh id even where the session's own would do. */
  fork: boolean;
  dryRun: boolean;
  allowSecretsInCode: boolean;
  progress?: (line: string) => void;
}

/** What this clone knows, for the plan: the remote's refs, and its own records of the session. */
export interface PublishFacts {
  sessionId: string;
  remoteData: Map<string, string>;
  /** What this clone last published of the session, under which id. */
  mine: { id: string; commit: string } | null;
  /** The publication this session was pulled from, and how many turns it had. */
  pulled: { id: string; commit: string; turns: number } | null;
  /** Turns the session has (up to --upto). */
  turns: number;
  fork: boolean;
  /** A session imported from a file: the session it was exported from, and how many turns it had then. */
  imported?: { id: string; turns: number } | null;
  /** A fork made here of a session this clone published or pulled: that publication, at the turn forked. */
  parent?: { id: string; turn: number } | null;
}

export type PublishPlan =
  | {
      kind: "new" | "update" | "fork";
      id: string;
      parent: string | null;
      forkOf: { id: string; turn: number } | null;
      replacing: string | null;
    }
  | { kind: "unchanged"; id: string };

/** Where the session goes on the remote, built on what; or a refusal. Pure: the tests drive it without a remote. */
export function planPublish(f: PublishFacts, freshId: () => string): PublishPlan {
  // What this session continues on the remote: the publication it was pulled from, or the one a
  // file it was imported from was exported from (QA: a tarball's session pushed --fork named none).
  const origin = f.pulled
    ? { id: f.pulled.id, turn: f.pulled.turns }
    : f.imported && f.remoteData.has(f.imported.id)
      ? { id: f.imported.id, turn: f.imported.turns }
      : f.parent && f.parent.id !== f.sessionId
        ? f.parent
        : null;
  // --fork again on a session already published as a fork from here updates that fork (QA: each one published another copy).
  if (f.mine && (!f.fork || f.mine.id !== f.sessionId)) {
    const there = f.remoteData.get(f.mine.id);
    // Published from here and not touched since: a fast-forward. Gone from the remote: published again, building on it still.
    // A fork published from here stays one through its updates (QA: an update dropped its forkOf).
    const forkOf = origin && origin.id !== f.mine.id ? origin : null;
    if (there === undefined || there === f.mine.commit)
      return { kind: there ? "update" : "new", id: f.mine.id, parent: f.mine.commit, forkOf, replacing: there ?? null };
    throw new UserError(
      `the remote's published session ${f.mine.id} changed since you last pushed it from here (it is at ${there.slice(0, 10)}, you pushed ${f.mine.commit.slice(0, 10)}): pushing would replace someone's work`,
      `nothing was pushed; see what is there: nudge session fetch && nudge session list --remote · publish yours beside it under a fresh id: nudge session push ${f.sessionId} --fork`,
    );
  }
  if (f.pulled && !f.fork) {
    if (f.turns <= f.pulled.turns) return { kind: "unchanged", id: f.pulled.id };
    // Someone else's session continued here: theirs stays as it is, this goes beside it, and the new commit builds on theirs (only the new turns travel).
    return {
      kind: "fork",
      id: freshUnused(f, freshId),
      parent: f.pulled.commit,
      forkOf: { id: f.pulled.id, turn: f.pulled.turns },
      replacing: null,
    };
  }
  if (f.fork)
    return {
      kind: "fork",
      id: freshUnused(f, freshId),
      parent: f.mine?.commit ?? f.pulled?.commit ?? null,
      forkOf: origin && origin.id !== f.mine?.id ? origin : null,
      replacing: null,
    };
  if (f.remoteData.has(f.sessionId)) {
    // A copy imported from an export of it, with no turn since: publishing it beside would publish a duplicate.
    const nothingNew = f.imported?.id === f.sessionId && f.turns <= f.imported.turns;
    throw new UserError(
      `the remote already has a published session ${f.sessionId} that was not pushed from here: pushing would replace it`,
      nothingNew
        ? `nothing was pushed; yours is a copy of it with no turn it lacks, so there is nothing to publish: see it: nudge session fetch && nudge session list --remote`
        : `nothing was pushed; see it: nudge session fetch && nudge session list --remote · publish yours beside it under a fresh id: nudge session push ${f.sessionId} --fork`,
    );
  }
  return { kind: "new", id: f.sessionId, parent: null, forkOf: origin, replacing: null };
}

function freshUnused(f: PublishFacts, freshId: () => string): string {
  for (;;) {
    const id = freshId();
    if (!f.remoteData.has(id) && id !== f.sessionId) return id;
  }
}

export interface PublishResult {
  plan: PublishPlan;
  session: string;
  remote: string;
  turns: number;
  /** The export's size (uncompressed tar, as published) and what git sent for it. */
  exportBytes: number;
  sentBytes: number;
  masked: ExportResult["masked"];
  codeSecrets: ExportResult["codeSecrets"];
  dryRun: boolean;
  refs: string[];
  /** Commits of the code the export builds on, pinned on the remote (published-card.ts), and those not: the remote is not known to hold them. */
  pins: { pinned: string[]; unpinned: string[] };
}

export async function publishSession(store: Store, session: StoredSession, o: PublishOptions): Promise<PublishResult> {
  const repo = await syncRepo(store);
  // One sync at a time per store: two pushes of one session must not both build on the same commit.
  const lock = await syncLock(store, `publishing session ${session.manifest.id}`);
  try {
    return await publishLocked(store, session, o, repo);
  } finally {
    await lock.release();
  }
}

async function publishLocked(
  store: Store,
  session: StoredSession,
  o: PublishOptions,
  repo: string,
): Promise<PublishResult> {
  const remote = o.remote;
  const id = session.manifest.id;
  const remoteRefs = await remoteGit.lsRemote(repo, remote.pushUrl, PUBLISHED_PREFIX);
  const remoteData = new Map<string, string>();
  for (const [ref, commit] of remoteRefs) {
    const published = parsePublishedRef(ref);
    if (published?.kind === "data") remoteData.set(published.id, commit);
  }
  await settlePending(repo, remote, id, remoteData);
  await adoptKnown(repo, remote, remoteData);
  // A session may be published here under its own id and as a fork too (push --fork): a push
  // updates its own publication, a push --fork the fork (QA: --fork made nudge forget the first).
  const published = (await pairs(repo, minePrefix(remote))).filter((p) => p.a === id);
  const mine = (o.fork ? published.find((p) => p.b !== id) : published.find((p) => p.b === id)) ?? published[0] ?? null;
  const pulledAll = await pairs(repo, pulledPrefix(remote));
  const pulled = pulledAll.find((p) => p.b === id) ?? null;
  const savedTurns = session.manifest.turns.filter((t) => t.n > 0).length;
  const turns = o.upto === null ? savedTurns : Math.min(o.upto, savedTurns);
  const plan = planPublish(
    {
      sessionId: id,
      remoteData,
      mine: mine && { id: mine.b, commit: mine.commit },
      pulled: pulled && { id: pulled.a, commit: pulled.commit, turns: await publishedTurns(repo, pulled.commit) },
      turns,
      fork: o.fork,
      imported: importedFrom(session),
      parent: await parentPublished(repo, session.manifest.parent, pulledAll, await pairs(repo, minePrefix(remote))),
    },
    await forkIds(repo, remote, id),
  );
  const base = { session: id, remote: remote.label, dryRun: o.dryRun };
  const noPins = { pinned: [], unpinned: [] };
  if (plan.kind === "unchanged")
    return { ...base, plan, turns, exportBytes: 0, sentBytes: 0, masked: [], codeSecrets: [], refs: [], pins: noPins };
  // The last publication is of the same turns as of the same time: nothing new, and no export made to find out (a pre-push hook asks this at every push).
  const exportPlan = planExport(session.manifest, o.upto);
  // Only while the remote still holds that publication: one removed there is published again.
  const facts = plan.parent && plan.kind === "update" ? await publishedFacts(repo, plan.parent) : null;
  if (facts && facts.at === exportPlan.exportedAt && facts.turns === exportPlan.turns.filter((t) => t.n > 0).length) {
    return {
      ...base,
      plan: { kind: "unchanged", id: plan.id },
      turns,
      exportBytes: 0,
      sentBytes: 0,
      masked: [],
      codeSecrets: [],
      refs: [],
      pins: noPins,
    };
  }

  const work = await beginWork(store, "publish", `publishing session ${id} to ${remote.label}`);
  try {
    const gz = path.join(work.dir, `nudge-${id}.tar.gz`);
    const exported = await exportSession(store, session, {
      out: gz,
      upto: o.upto,
      redact: true,
      allowSecretsInCode: o.allowSecretsInCode,
      progress: o.progress,
      verb: "publish",
    });
    // Published uncompressed: git compresses it itself and deltas it against the last publication, which a gzip stream would defeat.
    const tar = path.join(work.dir, EXPORT_FILE);
    await pipeline(createReadStream(gz), createGunzip(), createWriteStream(tar, { flags: "wx", mode: 0o600 }));
    const { bytes, sha256 } = await measureFile(tar);
    const blob = await remoteGit.writeBlobFile(repo, tar);
    const message = `nudge publish ${plan.id}\n\nsession ${id}\nturns ${exported.turns}\nat ${exported.index.exported.at}\n`;
    const data = await remoteGit.commitTree(
      repo,
      await remoteGit.writeTree(repo, [{ name: EXPORT_FILE, blob }]),
      plan.parent ? [plan.parent] : [],
      message,
    );
    const card = await cardOf(tar, exported, { id: plan.id, session: id, forkOf: plan.forkOf, data, bytes, sha256 });
    const cardBlob = await remoteGit.writeBlob(repo, Buffer.from(JSON.stringify(card, null, 2) + "\n"));
    const cardCommit = await remoteGit.commitTree(
      repo,
      await remoteGit.writeTree(repo, [{ name: CARD_FILE, blob: cardBlob }]),
      [],
      `nudge card ${plan.id}\n`,
    );
    const refs = [dataRef(plan.id), cardRef(plan.id)];
    const needed = commitsBuiltOn(exported, session.manifest.repo.baseCommit);
    const held = remote.name ? await remoteGit.heldByRemote(store.repoRoot, remote.name, needed) : [];
    const pins = { pinned: held, unpinned: needed.filter((c) => !held.includes(c)) };
    if (o.dryRun)
      return {
        ...base,
        plan,
        turns: exported.turns,
        exportBytes: bytes,
        sentBytes: 0,
        masked: exported.masked,
        codeSecrets: exported.codeSecrets,
        refs,
        pins,
      };

    await remoteGit.setRefs(repo, [{ ref: pendingRef(remote, id, plan.id), commit: data }]);
    // The data ref moves by fast-forward only (its commit builds on the last one); the card, which
    // has no history, is replaced only if it is still the one seen above (a lease).
    const pushed = await remoteGit.pushRefs(repo, remote.pushUrl, [
      { commit: data, ref: dataRef(plan.id), expect: null },
      { commit: cardCommit, ref: cardRef(plan.id), expect: remoteRefs.get(cardRef(plan.id)) ?? "" },
    ]);
    faultPoint("publish-pushed");
    if (!pushed.ok) {
      await remoteGit.setRefs(repo, [{ ref: pendingRef(remote, id, plan.id), commit: null }]);
      const refusal = classifyRefusal(pushed.rejected, pushed.said);
      if (refusal.kind === "busy") {
        throw new UserError(
          `the remote refused the push (${refusal.why}): another push to session ${plan.id}'s refs was under way at that moment`,
          `nothing was pushed; once it is done, push again: nudge session push ${id}`,
        );
      }
      if (refusal.kind === "refused") {
        throw new UserError(
          `the remote refused the push (${refusal.why}): nothing was published`,
          `the remote could not take it (a full disk there, a size limit or a hook of the server's): ask whoever runs it, then push again: nudge session push ${id}`,
        );
      }
      throw new UserError(
        `the remote refused the push (${refusal.why}): someone published session ${plan.id} there meanwhile, and pushing would replace it`,
        `nothing was pushed; look at it: nudge session fetch && nudge session list --remote · publish yours beside it: nudge session push ${id} --fork`,
      );
    }
    await remoteGit.setRefs(repo, [
      { ref: mineRef(remote, id, plan.id), commit: data },
      { ref: pendingRef(remote, id, plan.id), commit: null },
      { ref: fetchedRef(remote, plan.id, "data"), commit: data },
      { ref: fetchedRef(remote, plan.id, "card"), commit: cardCommit },
    ]);
    // The code it builds on, pinned beside it (pushed from the user's repository, the one that has
    // it; the remote holds it already, so no object travels): a later force-push of the branch
    // cannot orphan the publication. Already pinned: nothing to push.
    const there = new Set(basePins(plan.id, remoteRefs));
    const toPin = held.filter((c) => !there.has(c));
    if (toPin.length) {
      const pinned = await remoteGit.pushPins(
        store.repoRoot,
        remote.pushUrl,
        toPin.map((commit) => ({ commit, ref: baseRef(plan.id, commit) })),
      );
      if (!pinned.ok)
        throw new UserError(
          `session ${plan.id} was published, but the remote refused to pin the commits it builds on (${pinned.rejected.map((r) => r.why).join("; ")})`,
          `push it again to retry: nudge session push ${id}`,
        );
    }
    return {
      ...base,
      plan,
      turns: exported.turns,
      exportBytes: bytes,
      sentBytes: pushed.bytes,
      masked: exported.masked,
      codeSecrets: exported.codeSecrets,
      refs: [...refs, ...held.map((c) => baseRef(plan.id, c))],
      pins,
    };
  } finally {
    await work.finish();
  }
}

/**
 * The fresh ids a fork of `session` may take on `remote`, in order: derived from a random salt kept
 * in the sync repository, so a `--dry-run` names the very id the push then takes (planned under the
 * sync lock, so the salt is made once).
 */
async function forkIds(repo: string, remote: Remote, session: string): Promise<() => string> {
  let salt = await remoteGit.configValue(repo, "nudge.forkSalt");
  if (!salt || !/^[0-9a-f]{32}$/.test(salt)) {
    salt = randomBytes(16).toString("hex");
    await remoteGit.setConfigValue(repo, "nudge.forkSalt", salt);
  }
  let n = 0;
  return () => createHash("sha256").update(`${salt}\0${remote.key}\0${session}\0${n++}`).digest("hex").slice(0, 10);
}

/**
 * A fork made here (`session fork`) of a session pulled here or published from here: the
 * publication it continues, at the turn forked (no later than what that publication holds).
 */
async function parentPublished(
  repo: string,
  parent: StoredSession["manifest"]["parent"],
  pulled: Array<{ a: string; b: string; commit: string }>,
  mine: Array<{ a: string; b: string; commit: string }>,
): Promise<PublishFacts["parent"]> {
  if (!parent) return null;
  const from = pulled.find((p) => p.b === parent.id);
  const own = mine.find((p) => p.a === parent.id && p.b === parent.id) ?? mine.find((p) => p.a === parent.id);
  const at = from ? { id: from.a, commit: from.commit } : own ? { id: own.b, commit: own.commit } : null;
  return at && { id: at.id, turn: Math.min(parent.turn, await publishedTurns(repo, at.commit)) };
}

/** A session imported from a file: its source session, with the turns it had as of the export. */
function importedFrom(session: StoredSession): PublishFacts["imported"] {
  const origin = session.manifest.origin;
  if (!origin) return null;
  const asOf = Date.parse(origin.exportedAt);
  return {
    id: origin.sourceId,
    turns: session.manifest.turns.filter((t) => t.n > 0 && Date.parse(t.endedAt) <= asOf).length,
  };
}

/** The commits of the code an export needs from the importing clone: its bundle's prerequisites and the base commit, unless carried. */
function commitsBuiltOn(exported: ExportResult, baseCommit: string | null): string[] {
  const git = exported.index.git;
  if (!git) return [];
  const needed = git.prerequisites.map((p) => p.commit);
  if (baseCommit && !git.carried.includes(baseCommit)) needed.push(baseCommit);
  return [...new Set(needed)];
}

/**
 * A push of this session cut off after it was sent and before this clone recorded it: if the
 * remote holds it, it is this clone's (as if recorded); if not, it never happened.
 */
async function settlePending(
  repo: string,
  remote: Remote,
  session: string,
  remoteData: Map<string, string>,
): Promise<void> {
  for (const p of (await pairs(repo, pendingPrefix(remote))).filter((p) => p.a === session)) {
    const landed = remoteData.get(p.b) === p.commit;
    const older = landed ? (await pairs(repo, minePrefix(remote))).filter((m) => m.a === session && m.b !== p.b) : [];
    await remoteGit.setRefs(repo, [
      ...older.map((m) => ({ ref: m.ref, commit: null })),
      ...(landed ? [{ ref: mineRef(remote, session, p.b), commit: p.commit }] : []),
      { ref: p.ref, commit: null },
    ]);
  }
}

/** A publication's turn count, from its data commit's message (nudge wrote it; a stranger's counts as 0, so any continuation is new). */
async function publishedTurns(repo: string, commit: string): Promise<number> {
  return (await publishedFacts(repo, commit))?.turns ?? 0;
}

async function publishedFacts(repo: string, commit: string): Promise<{ turns: number; at: string } | null> {
  const message = await remoteGit.commitMessage(repo, commit);
  const turns = /^turns (\d{1,9})$/m.exec(message)?.[1];
  const at = /^at (\S{1,40})$/m.exec(message)?.[1];
  return turns && at ? { turns: Number(turns), at } : null;
}
