/**
 * `nudge session repair`, the doing: under the session's own lock (so no recording of it can
 * start meanwhile), the plan is made again and must be the one shown; then the missing patch
 * files, the journal (what it held, then the rebuilt records: one atomic write) and the header
 * (its summary from the whole journal) are written, in that order, each atomically. A crash
 * between leaves the journal whole and the old header, which reads as before.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "../store/atomic-write.js";
import { acquireLock, holderText, lockActivity } from "../store/locks.js";
import { journalSchemas } from "../store/manifest-schema.js";
import { bundleFiles, writeHeader, type Store } from "../store/store.js";
import { summaryOf } from "../store/summary.js";
import { UserError } from "../base/errors.js";
import { formatStat, oneLine, plural } from "../base/format.js";
import { stillHolds, type Operation } from "../base/operation.js";
import { planRepair, repairFingerprint, type RepairPlan } from "./repair-plan.js";
import { noteSessionChanged } from "../store/change-log.js";

async function applyRepair(store: Store, plan: RepairPlan): Promise<void> {
  const files = bundleFiles(plan.dir);
  const activity = await lockActivity(files.lock);
  if (activity && activity !== "recording") {
    throw new UserError(
      `session ${plan.id}'s claude (pid ${activity.orphanPid}) still runs after its nudge stopped`,
      `let it finish or stop it (kill ${activity.orphanPid}), then repair again; nothing was changed`,
    );
  }
  const lock = await acquireLock(files.lock, {
    what: `repairing session ${plan.id}`,
    busy: (holder) =>
      new UserError(
        `session ${plan.id} is in use by another nudge process (${holderText(holder)})`,
        "repair it once that nudge has finished; nothing was changed",
      ),
  });
  try {
    // The plan's own staleness check (../operation.ts), made here under the session's lock, even with --yes.
    await stillHolds(repairOperation(store, plan.id), plan, "repair");
    for (const patch of plan.patches) {
      // Made again only where still missing: a patch that is there is never overwritten.
      const target = path.join(plan.dir, patch.file);
      if (
        !(await fs.lstat(target).then(
          () => true,
          () => false,
        ))
      )
        await writeFileAtomic(target, patch.bytes);
    }
    const records = plan.rebuilt.map(
      (t) => JSON.stringify(journalSchemas().TurnRecordSchema.parse({ type: "turn", ...t })) + "\n",
    );
    await writeFileAtomic(files.journal, plan.keptText + records.join(""));
    noteSessionChanged(plan.dir);
    const turns = [...plan.kept, ...plan.rebuilt];
    await writeHeader(plan.dir, {
      ...plan.header,
      summary: summaryOf(turns),
      repairedAt: plan.rebuilt[0]!.repaired!.at,
    });
  } finally {
    await lock.release();
  }
}

/** The plan as a person reads it. */
function describeRepair(plan: RepairPlan): string[] {
  const counted = plural(plan.headerTurns, "turn");
  const past = plan.rebuilt.at(-1)!.n;
  // The header may have been cut back with the journal: then only the ref knows the later turns.
  const why = plan.headerTurns >= past ? `its manifest counts ${counted}` : `its snapshots go on to turn ${past}`;
  const lines = [`repair session ${plan.id}: its turn journal ${plan.damage}, ${why}`];
  if (plan.kept.length) lines.push(`  keep     turns 0 to ${plan.kept.at(-1)!.n}, as turns.jsonl holds them`);
  lines.push(`  rebuild  from ${plan.ref}, changes/, conversation.jsonl and input.jsonl:`);
  for (const t of plan.rebuilt) {
    const what = t.n === 0 ? "(starting state)" : `${oneLine(t.prompt ?? "", 40)} · ${t.status}`;
    const unknown = t.repaired!.unknown.length ? ` · not recovered: ${t.repaired!.unknown.join(", ")}` : "";
    lines.push(
      `    turn ${t.n}  ${what} · ${formatStat(t.patch)}${t.edits ? ` (your edits before it: ${formatStat(t.edits.patch)})` : ""}${unknown}`,
    );
  }
  for (const p of plan.patches) lines.push(`  write    ${p.file} (it is missing; made again from the snapshots)`);
  lines.push(`  write    turns.jsonl: ${plural(plan.rebuilt.length, "turn record")}, each marked "repaired"`);
  const last = plan.rebuilt.at(-1)!.n;
  if (last < plan.headerTurns)
    lines.push(`  lost     turns ${last + 1} to ${plan.headerTurns}: their snapshots are not on ${plan.ref}`);
  return lines;
}

/** The plan for --json: the turns it would write, the patches it would make again. */
export function repairJson(plan: RepairPlan) {
  return {
    id: plan.id,
    journal: bundleFiles(plan.dir).journal,
    damage: plan.damage,
    headerTurns: plan.headerTurns,
    ref: plan.ref,
    kept: plan.kept.map((t) => t.n),
    rebuilt: plan.rebuilt,
    patches: plan.patches.map((p) => p.file),
  };
}

/** `session repair` as an operation: the apply takes the session's lock and checks the plan still holds under it. */
export function repairOperation(store: Store, id: string): Operation<RepairPlan, void> {
  return {
    prepare: () => planRepair(store, id),
    describe: describeRepair,
    question: (plan) => `write the rebuilt turns.jsonl of session ${plan.id}?`,
    fingerprint: repairFingerprint,
    apply: (plan) => applyRepair(store, plan),
    watches: `session ${id}`,
  };
}
