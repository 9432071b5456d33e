/**
 * The page's actions, each the CLI's own plan and apply (src/time-travel, src/sharing) under the
 * same locks and refusals: rewind, fork (in place, or into a new worktree), export (to a download
 * taken once), rm. Only the words of the outcome are the server's.
 */
import path from "node:path";
import * as z from "../../zod.js";
import { beginWork } from "../../bundle/cut-off-work.js";
import { loadSession } from "../../bundle/store.js";
import { describeCarried, describeExportPlan, describeExported } from "../../sharing/export-describe.js";
import { planExport } from "../../sharing/export-plan.js";
import { defaultExportName, exportSession } from "../../sharing/export-session.js";
import { describeForked, describeWorktreeFork } from "../../time-travel/fork-describe.js";
import { applyForkInPlace, forkIntoWorktree, forkTurn, planForkIntoWorktree, prepareForkInPlace } from "../../time-travel/fork-session.js";
import { applyHousekeeping } from "../../time-travel/housekeeping-apply.js";
import { describeHousekeeping, describeRemoved, planKey } from "../../time-travel/housekeeping-plan.js";
import { applyRewind, prepareRewind, prepareUndo, undoLastRewind, withUndo, withWorkTree } from "../../time-travel/rewind.js";
import { lastRewind } from "../../time-travel/rewind-log.js";
import { describePlan, describeRewound, describeUndo } from "../../time-travel/rewind-plan.js";
import { UserError } from "../../errors.js";
import { planRemoval } from "../../time-travel/session-removal.js";
import type { Action } from "./confirm-action.js";

const turnNumber = z.int().check(z.nonnegative());

export const rewindAction: Action<{ turn: number; scope?: "both" | "code" | "conversation"; resetHead?: boolean }> = {
  fields: { turn: turnNumber, scope: z.optional(z.enum(["both", "code", "conversation"])), resetHead: z.optional(z.boolean()) },
  async run({ store }, id, input, decide) {
    const session = await loadSession(store, id);
    await withWorkTree(store, session.manifest.repo.root, `rewinding session ${id} (nudge web)`, async () => {
      const prepared = await prepareRewind(store, session, input.turn, { scope: input.scope ?? "both", resetHead: input.resetHead ?? false });
      await decide({
        plan: describePlan(prepared.plan),
        question: `rewind ${id} to turn ${input.turn}?`,
        fingerprint: prepared.plan,
        apply: async () => ({ done: describeRewound(prepared.plan, await applyRewind(store, session, prepared)) }),
      });
    });
  },
};

/**
 * Undo the repository's last rewind (or in-place fork), as `session rewind --undo` does, from the
 * page of the session it rewound: offered there, refused for any other session's page.
 */
export const undoAction: Action<Record<string, never>> = {
  fields: {},
  async run({ store }, id, _input, decide) {
    await withUndo(store, async () => {
      // Whose rewind it is, before the work of planning its undo (a scan of the work tree).
      const last = await lastRewind(store);
      if (last && last.sessionId !== id) throw new UserError(`the last rewind in this repository is of session ${last.sessionId}, not ${id}`, `undo it from that session's page (or nudge session rewind --undo)`);
      const prepared = await prepareUndo(store);
      const record = prepared.plan.undo;
      await decide({
        plan: describeUndo(prepared.plan),
        question: `undo the ${record.fork ? "fork" : "rewind"} of ${id} to turn ${record.turn}?`,
        fingerprint: { record: record.stamp, tree: prepared.state.tree },
        apply: async () => {
          const { savedEdits, notRestored } = await undoLastRewind(store, prepared);
          return {
            done: [
              `undid the ${record.fork ? "fork" : "rewind"} of ${id} to turn ${record.turn}: the files are as they were before it`,
              ...(savedEdits ? [`edits made after that rewind are kept under ${savedEdits}`] : []),
              ...notRestored.map((file) => `could not write back ${file}`),
            ],
          };
        },
      });
    });
  },
};

export const forkAction: Action<{ turn?: number | null; worktree?: string | null }> = {
  fields: { turn: z.optional(z.nullable(turnNumber)), worktree: z.optional(z.nullable(z.string().check(z.minLength(1), z.maxLength(4096), z.regex(/^[^\0]*$/, "no NUL")))) },
  async run({ store }, id, input, decide) {
    const source = await loadSession(store, id);
    const turn = forkTurn(source, input.turn ?? undefined);
    if (input.worktree) {
      // Relative to the repository served, as the CLI's is to where it runs.
      const dir = path.resolve(store.repoRoot, input.worktree);
      const plan = await planForkIntoWorktree(source, turn, dir);
      return decide({
        plan: describeWorktreeFork(id, turn, plan),
        question: `fork ${id} at turn ${turn} into ${plan.root}?`,
        fingerprint: plan,
        apply: async () => ({ done: describeForked(id, await forkIntoWorktree(store, source, turn, dir), true) }),
      });
    }
    await withWorkTree(store, source.manifest.repo.root, `forking session ${id} (nudge web)`, async () => {
      const prepared = await prepareForkInPlace(store, source, turn);
      await decide({
        plan: describePlan(prepared.plan, "fork"),
        question: `fork ${id} at turn ${turn} and put its code in place?`,
        fingerprint: prepared.plan,
        apply: async () => ({ done: describeForked(id, await applyForkInPlace(store, source, prepared), false) }),
      });
    });
  },
};

export const exportAction: Action<{ upto?: number | null }> = {
  fields: { upto: z.optional(z.nullable(turnNumber)) },
  async run(app, id, input, decide) {
    const session = await loadSession(app.store, id);
    const plan = planExport(session.manifest, input.upto ?? null);
    await decide({
      plan: describeExportPlan(plan),
      question: `export ${id}?`,
      fingerprint: { turns: plan.turns.map((t) => [t.n, t.snapshot.commit]), lines: [plan.conversationLines, plan.inputLines], leftOut: plan.leftOut },
      apply: async () => {
        // Its own work folder, until the browser takes the file (downloads.ts).
        const work = await beginWork(app.store, "download", `an export of session ${id} for nudge web`);
        try {
          const name = defaultExportName(id);
          const result = await exportSession(app.store, session, { out: path.join(work.dir, name), upto: input.upto ?? null, redact: true, allowSecretsInCode: false });
          const download = app.downloads.add({ file: result.path, name, work });
          const done = describeExported(result, describeCarried(result, session.manifest), { to: "a download", excludedIn: null, importName: name });
          return { done, download };
        } catch (error) {
          await work.finish();
          throw error;
        }
      },
    });
  },
};

export const rmAction: Action<Record<string, never>> = {
  fields: {},
  async run({ store }, id, _input, decide) {
    const plan = await planRemoval(store, [id]);
    await decide({
      plan: describeHousekeeping(plan),
      question: `remove session ${id}?`,
      fingerprint: planKey(plan),
      apply: async () => ({ done: describeRemoved(await applyHousekeeping(store, plan, { strict: true })) }),
    });
  },
};
