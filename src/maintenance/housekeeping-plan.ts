/**
 * What `nudge session rm` and `nudge session gc` will remove, as data: computed first (what
 * --dry-run and --json print, what the user confirms), then applied by housekeeping-apply.ts.
 */
import { printablePath } from "../snapshot/git.js";
import type { HousekeepingResult } from "./housekeeping-apply.js";

export interface RefAt {
  ref: string;
  commit: string;
}

export interface SessionRemoval {
  id: string;
  dir: string;
  /** What the bundle folder holds on disk, in bytes. */
  bytes: number;
  /** From the header; null when it cannot be read (a damaged bundle is removed all the same). */
  turns: number | null;
  updatedAt: string | null;
  firstPrompt: string | null;
  unreadable: string | null;
  /** Its snapshot refs: refs/nudge/sessions/<id>, and refs/nudge/<id>/<n> from bundles made before. */
  refs: RefAt[];
  /** Its private index (and a lock git left beside it). */
  indexFiles: string[];
  /** Sessions forked from it: they keep working, each with a ref of its own to the snapshots they share. */
  forks: Array<{ id: string; turn: number }>;
}

export interface RecordRemoval {
  stamp: string;
  /** rewind, or the undo of one. */
  kind: string;
  at: string;
  sessionId: string;
  turn: number;
  status: string;
  /** The record's file and its companions (an index copy). */
  files: string[];
  /** Its backup ref, when it exists and no record that stays names it. */
  backup: RefAt | null;
}

/** A backup ref that no rewind record names (a failed switch's find, or one whose record is gone). */
export interface BackupRefRemoval extends RefAt {
  at: string;
}

type LeftoverKind =
  | "private-index"
  | "shared-index"
  | "session-folder"
  | "scratch"
  | "stale-lock"
  | "temp-file"
  | "import-backup"
  | "cut-off-work"
  | "sync-repository"
  | "remote-view";

export interface Leftover {
  kind: LeftoverKind;
  path: string;
  /** Why it is a leftover, as the plan says it. */
  what: string;
  bytes: number;
  /** A lock that must be free (and is held while removing): the session's or the work tree's. */
  lock?: string;
  /** Snapshot refs that go with it (a session folder that never got a manifest, a cut-off removal). */
  refs?: RefAt[];
}

export interface HousekeepingPlan {
  sessions: SessionRemoval[];
  records: RecordRemoval[];
  backupRefs: BackupRefRemoval[];
  leftovers: Leftover[];
  /** What stays although it matched, and why (the backup `--undo` restores, a live session). */
  kept: string[];
}

export function isEmpty(plan: HousekeepingPlan): boolean {
  return plan.sessions.length + plan.records.length + plan.backupRefs.length + plan.leftovers.length === 0;
}

/** Bytes the plan frees in nudge's store (the snapshots' git objects are git gc's). */
function storeBytes(plan: HousekeepingPlan): number {
  return plan.sessions.reduce((n, s) => n + s.bytes, 0) + plan.leftovers.reduce((n, l) => n + l.bytes, 0);
}

/** What a plan removes, as one string: two plans with the same key remove the same things. */
export function planKey(p: HousekeepingPlan): string {
  return JSON.stringify([
    p.sessions.map((s) => [s.id, s.updatedAt, s.refs, s.indexFiles]),
    p.records.map((r) => [r.stamp, r.status, r.backup]),
    p.backupRefs,
    p.leftovers.map((l) => [l.kind, l.path, l.refs]),
  ]);
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

function when(iso: string | null): string {
  return iso ? iso.slice(0, 16).replace("T", " ") : "unknown";
}

/** The plan as lines for a person: what goes, what stays and why, and what git gc would reclaim. */
export function describeHousekeeping(plan: HousekeepingPlan): string[] {
  const lines: string[] = [];
  for (const s of plan.sessions) {
    const about = s.unreadable
      ? `unreadable: ${s.unreadable}`
      : `${s.turns} turn${s.turns === 1 ? "" : "s"} · last used ${when(s.updatedAt)}${s.firstPrompt ? ` · ${JSON.stringify(s.firstPrompt.slice(0, 50))}` : ""}`;
    lines.push(`remove session ${s.id} · ${about}`);
    lines.push(`  bundle  ${printablePath(s.dir)} (${formatBytes(s.bytes)})`);
    for (const r of s.refs) lines.push(`  ref     ${r.ref}`);
    for (const f of s.indexFiles) lines.push(`  index   ${printablePath(f)}`);
    if (s.forks.length > 0) {
      const forks = s.forks.map((f) => `${f.id} (at turn ${f.turn})`).join(", ");
      lines.push(`  forks made from it keep working, each has its own ref to the snapshots they share: ${forks}`);
    }
  }
  for (const r of plan.records) {
    const what =
      r.kind === "undo"
        ? `undo record ${r.stamp} · the undo of the rewind of session ${r.sessionId} to turn ${r.turn}`
        : `rewind record ${r.stamp} · session ${r.sessionId} to turn ${r.turn}`;
    lines.push(`remove ${what} · ${r.status} · ${when(r.at)}`);
    if (r.backup) lines.push(`  ref     ${r.backup.ref}`);
  }
  for (const b of plan.backupRefs) lines.push(`remove backup ${b.ref} · ${when(b.at)} · no rewind record names it`);
  if (plan.leftovers.length > 0) lines.push("remove leftovers nudge left behind:");
  for (const l of plan.leftovers) {
    lines.push(`  ${l.what}: ${printablePath(l.path)}${l.bytes > 0 ? ` (${formatBytes(l.bytes)})` : ""}`);
    for (const r of l.refs ?? []) lines.push(`    and its ref ${r.ref}`);
  }
  for (const k of plan.kept) lines.push(`keep ${k}`);
  if (isEmpty(plan)) return [...lines, "nothing to remove"];
  lines.push(`frees ${formatBytes(storeBytes(plan))} in nudge's store${gitGcNote(plan)}`);
  return lines;
}

function gitGcNote(plan: HousekeepingPlan): string {
  const refs =
    plan.sessions.some((s) => s.refs.length > 0) ||
    plan.records.some((r) => r.backup) ||
    plan.backupRefs.length > 0 ||
    plan.leftovers.some((l) => l.kind !== "sync-repository" && l.refs?.length);
  return refs ? "; the snapshots' git objects stay in the repository until git gc removes them" : "";
}

/** After removing refs: how to reclaim the objects (nudge never runs git gc in the user's repository; only in its own sync repository). */
const GIT_GC_HINT =
  "to reclaim the disk the snapshots used: git gc (objects younger than two weeks stay until a later one; git gc --prune=now takes them at once, when no other git command is running here)";

/** What an applied plan removed, and what it skipped, as the CLI and the web page say it. */
export function describeRemoved(result: HousekeepingResult): string[] {
  const count = (n: number, word: string) => (n ? `${n} ${word}${n === 1 ? "" : "s"}` : "");
  const parts = [
    count(result.sessions.length, "session"),
    count(result.records.length, "record"),
    count(result.refs.length, "ref"),
    count(result.leftovers.length, "leftover"),
  ].filter(Boolean);
  const lines = [parts.length ? `removed ${parts.join(", ")}` : "nothing was removed"];
  for (const s of result.skipped) lines.push(`skipped ${s}`);
  if (result.refs.length) lines.push(GIT_GC_HINT);
  return lines;
}
