/**
 * The shape every action shares (POST, JSON body): `{ confirm: false }` answers the plan — the
 * lines the CLI prints for --dry-run — with a question and a confirm token; `{ confirm: true,
 * confirmToken }` computes the plan again and applies it only if its token is the same, i.e. if
 * what the person saw is still what will happen (as the CLI re-plans after its y/N); otherwise 409
 * with the fresh plan. The token is an HMAC of the action, its input and the operation's
 * fingerprint (what the plan was computed from), under a key of this server's: an apply cannot
 * skip being shown the plan. The page's adapter of ../../operation.ts.
 */
import { createHmac } from "node:crypto";
import * as z from "../../base/zod.js";
import { UserError } from "../../base/errors.js";
import { fingerprintOf, type Operation } from "../../base/operation.js";
import { resolveId } from "../../store/store.js";
import { NoSuchTurn } from "../../store/turn-lookup.js";
import { HttpError, readJsonBody, sendJson } from "./http-io.js";
import type { App } from "./app-context.js";
import type { Handler } from "./router.js";
import { sameSecret } from "./security.js";

/** What the page says of an applied operation. */
interface Done {
  done: string[];
  download?: string;
  /** A session the action made (an adoption): the page offers to open it. */
  session?: string;
}

/** Prepare the operation's plan, then answer it, or apply it when confirmed with its token; `done` words the result. */
type Decide = <P, R>(op: Operation<P, R>, done: (result: R, plan: P) => Done | Promise<Done>) => Promise<void>;

export interface Action<T> {
  /** The action's own fields of the body. */
  fields: z.core.$ZodLooseShape;
  /** The id the action is about, from the URL's (default: the nudge session it names). */
  resolve?: (app: App, id: string) => Promise<string>;
  /** Hand the operation to `decide`, holding whatever lock its prepare and apply need meanwhile. */
  run(app: App, id: string, input: T, decide: Decide): Promise<void>;
}

const confirmFields = { confirm: z.boolean(), confirmToken: z.optional(z.string().check(z.maxLength(200))) };

/** `load`: the action's code (and the time-travel and sharing layers under it), loaded on its first use: start-up stays light. */
export function actionRoute<T>(name: string, load: () => Promise<Action<T>>): Handler {
  return async ({ req, res, params, app }) => {
    const action = await load();
    const Body = z.strictObject({ ...confirmFields, ...action.fields });
    const { confirm, confirmToken, ...input } = (await readJsonBody(req, Body)) as {
      confirm: boolean;
      confirmToken?: string;
    } & Record<string, unknown>;
    const id = await (action.resolve ?? ((a: App, raw: string) => resolveId(a.store, raw)))(app, params.id!);
    try {
      await action.run(app, id, input as T, async (op, done) => {
        const plan = await op.prepare();
        const token = createHmac("sha256", app.key)
          .update(JSON.stringify([name, id, input, fingerprintOf(op, plan)]))
          .digest("base64url");
        const shown = { plan: op.describe(plan), question: op.question(plan), confirmToken: token };
        if (!confirm) return sendJson(res, 200, shown);
        if (!sameSecret(confirmToken, token)) {
          throw new HttpError(
            409,
            confirmToken
              ? "the plan changed since it was shown; nothing was changed"
              : "not confirmed: an apply needs the confirmToken of the plan shown",
            "read the plan and confirm again",
            shown,
          );
        }
        sendJson(res, 200, await done(await op.apply(plan), plan));
      });
    } catch (error) {
      // A turn the session does not have: not there, as for a GET. A refusal (a recording in that
      // work tree, an interrupted rewind…): the state says no.
      if (error instanceof NoSuchTurn) throw new HttpError(404, error.message, error.hint ?? "");
      if (error instanceof UserError) throw new HttpError(409, error.message, error.hint ?? "");
      throw error;
    }
  };
}
