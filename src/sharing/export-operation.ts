/**
 * An export as an operation (see ../operation.ts), as the page asks for one: the plan (which
 * turns, lines and files go, what is left out), and the archive written once confirmed.
 */
import type { Store, StoredSession } from "../store/store.js";
import type { Operation } from "../base/operation.js";
import { describeExportPlan } from "./export-describe.js";
import { planExport, type ExportPlan } from "./export-plan.js";
import { exportSession, type ExportOptions, type ExportResult } from "./export-session.js";

export interface ExportOperationOptions extends Omit<ExportOptions, "out"> {
  /** Where the archive goes, decided at apply (a download's work folder exists only once confirmed). */
  out: () => Promise<string>;
}

export function exportOperation(
  store: Store,
  session: StoredSession,
  o: ExportOperationOptions,
): Operation<ExportPlan, ExportResult> {
  return {
    prepare: async () => planExport(session.manifest, o.upto),
    describe: describeExportPlan,
    question: () => `export ${session.manifest.id}?`,
    fingerprint: (plan) => ({
      turns: plan.turns.map((t) => [t.n, t.snapshot.commit]),
      lines: [plan.conversationLines, plan.inputLines],
      leftOut: plan.leftOut,
    }),
    apply: async () => exportSession(store, session, { ...o, out: await o.out() }),
    watches: "the session",
  };
}
