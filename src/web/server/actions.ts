/**
 * The page's actions, each the CLI's own plan and apply (src/time-travel, src/sharing) under the
 * same locks and refusals: rewind, fork (in place, or into a new worktree), export (to a download
 * taken once), rm. Only the words of the outcome are the server's.
 */
import path from "node:path";
import * as z from "../../base/zod.js";
import { beginWork, type Work } from "../../store/cut-off-work.js";
import { loadSession } from "../../store/store.js";
import { describeCarried, describeExported } from "../../sharing/export-describe.js";
import { exportOperation } from "../../sharing/export-operation.js";
import { defaultExportName } from "../../sharing/export-session.js";
import { describeForked } from "../../time-travel/fork-describe.js";
import { forkTurn } from "../../time-travel/fork-session.js";
import { describeRemoved } from "../../maintenance/housekeeping-plan.js";
import { removalOperation } from "../../maintenance/housekeeping-operation.js";
import {
  forkInPlaceOperation,
  forkIntoWorktreeOperation,
  rewindOperation,
  undoOperation,
} from "../../time-travel/operations.js";
import { withUndo, withWorkTree } from "../../time-travel/rewind.js";
import { lastRewind } from "../../time-travel/rewind-log.js";
import { describeRewound } from "../../time-travel/rewind-plan.js";
import { UserError } from "../../base/errors.js";
import type { Action } from "./confirm-action.js";

const turnNumber = z.int().check(z.nonnegative());

export const rewindAction: Action<{ turn: number; scope?: "both" | "code" | "conversation"; resetHead?: boolean }> = {
  fields: {
    turn: turnNumber,
    scope: z.optional(z.enum(["both", "code", "conversation"])),
    resetHead: z.optional(z.boolean()),
  },
  async run({ store }, id, input, decide) {
    const session = await loadSession(store, id);
    const op = rewindOperation(store, session, input.turn, {
      scope: input.scope ?? "both",
      resetHead: input.resetHead ?? false,
    });
    await withWorkTree(store, session.manifest.repo.root, `rewinding session ${id} (nudge web)`, () =>
      decide(op, (record, prepared) => ({ done: describeRewound(prepared.plan, record) })),
    );
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
      if (last && last.sessionId !== id)
        throw new UserError(
          `the last rewind in this repository is of session ${last.sessionId}, not ${id}`,
          `undo it from that session's page (or nudge session rewind --undo)`,
        );
      await decide(undoOperation(store), ({ record, savedEdits, notRestored }) => ({
        done: [
          `undid the ${record.fork ? "fork" : "rewind"} of ${id} to turn ${record.turn}: the files are as they were before it`,
          ...(savedEdits ? [`edits made after that rewind are kept under ${savedEdits}`] : []),
          ...notRestored.map((file) => `could not write back ${file}`),
        ],
      }));
    });
  },
};

export const forkAction: Action<{ turn?: number | null; worktree?: string | null }> = {
  fields: {
    turn: z.optional(z.nullable(turnNumber)),
    worktree: z.optional(
      z.nullable(z.string().check(z.minLength(1), z.maxLength(4096), z.regex(/^[^\0]*$/, "no NUL"))),
    ),
  },
  async run({ store }, id, input, decide) {
    const source = await loadSession(store, id);
    const turn = forkTurn(source, input.turn ?? undefined);
    // Relative to the repository served, as the CLI's is to where it runs.
    if (input.worktree)
      return decide(
        forkIntoWorktreeOperation(store, source, turn, path.resolve(store.repoRoot, input.worktree)),
        (fork) => ({ done: describeForked(id, fork, true) }),
      );
    await withWorkTree(store, source.manifest.repo.root, `forking session ${id} (nudge web)`, () =>
      decide(forkInPlaceOperation(store, source, turn), (fork) => ({ done: describeForked(id, fork, false) })),
    );
  },
};

export const exportAction: Action<{ upto?: number | null }> = {
  fields: { upto: z.optional(z.nullable(turnNumber)) },
  async run(app, id, input, decide) {
    const session = await loadSession(app.store, id);
    const name = defaultExportName(id);
    // Its own work folder, made once confirmed, until the browser takes the file (downloads.ts).
    let work: Work | null = null;
    const out = async () => {
      work = await beginWork(app.store, "download", `an export of session ${id} for nudge web`);
      return path.join(work.dir, name);
    };
    try {
      await decide(
        exportOperation(app.store, session, { out, upto: input.upto ?? null, redact: true, allowSecretsInCode: false }),
        (result) => {
          const download = app.downloads.add({ file: result.path, name, work: work! });
          work = null;
          return {
            done: describeExported(result, describeCarried(result, session.manifest), {
              to: "a download",
              excludedIn: null,
              importName: name,
            }),
            download,
          };
        },
      );
    } finally {
      await (work as Work | null)?.finish();
    }
  },
};

export const rmAction: Action<Record<string, never>> = {
  fields: {},
  async run({ store }, id, _input, decide) {
    await decide(removalOperation(store, [id]), (result) => ({ done: describeRemoved(result) }));
  },
};
