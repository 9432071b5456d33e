/**
 * The routes that drive a session from the page (src/web/live/): start or continue one, send a
 * prompt, answer claude's question, stop the turn, end the session. POSTs like every action
 * (token, Host, Origin, CSRF checked before a route runs); bodies checked by zod and bounded.
 */
import * as z from "../../base/zod.js";
import { resolveId } from "../../store/store.js";
import { RecordingElsewhere } from "../../store/work-tree-lock.js";
import { UserError } from "../../base/errors.js";
import type { QuestionReply } from "../live/live-types.js";
import { HttpError, readJsonBody, sendJson } from "./http-io.js";
import { get, post, type Ctx, type Route } from "./router.js";

/** A prompt: as long as a paste a person makes into the box, in any script (the body limit fits 32,000 of any character). */
const Text = z.string().check(
  z.minLength(1, "is empty"),
  z.maxLength(32_000, "is longer than 32,000 characters"),
  z.refine((s) => s.trim() !== "", "is empty"),
);
const Name = z.optional(
  z.string().check(z.minLength(1), z.maxLength(200), z.regex(/^[^\s-][^\s]*$/, "one word, not starting with -")),
);
const Tools = z.optional(
  z.string().check(
    z.minLength(1),
    z.maxLength(2_000),
    z.refine((s) => !s.trim().startsWith("-"), "must not start with -"),
  ),
);

const StartBody = z.object({
  prompt: Text,
  /** Continue this session (the choice `claude run -r` makes, a rewound one forked). */
  resume: z.optional(z.string().check(z.regex(/^[0-9a-f]{1,40}$/, "a session id"))),
  model: Name,
  permissionMode: z.optional(z.enum(["default", "acceptEdits", "plan", "bypassPermissions"])),
  allowedTools: Tools,
  disallowedTools: Tools,
});
/** The start form's labels (start-session.tsx), for its fields' errors. */
const START_LABELS = {
  prompt: "the prompt",
  model: "Model",
  permissionMode: "Permission mode",
  allowedTools: "Allowed tools",
  disallowedTools: "Disallowed tools",
};
const PromptBody = z.object({ text: Text });
const PROMPT_LABELS = { text: "the prompt" };
const Reason = z.optional(z.string().check(z.maxLength(2_000)));
const AnswerBody = z.object({
  question: z.int().check(z.positive()),
  reply: z.discriminatedUnion("kind", [
    z.object({
      kind: z.literal("permission"),
      answer: z.discriminatedUnion("kind", [
        z.object({ kind: z.literal("yes") }),
        z.object({ kind: z.literal("no"), reason: Reason }),
        z.object({ kind: z.literal("always") }),
        z.object({ kind: z.literal("save") }),
      ]),
    }),
    z.object({
      kind: z.literal("questions"),
      answers: z.nullable(z.record(z.string().check(z.maxLength(2_000)), z.string().check(z.maxLength(2_000)))),
    }),
    z.object({
      kind: z.literal("plan"),
      answer: z.discriminatedUnion("approve", [
        z.object({ approve: z.literal(true) }),
        z.object({ approve: z.literal(false), feedback: z.string().check(z.maxLength(4_000)) }),
      ]),
    }),
    z.object({ kind: z.literal("confirm"), yes: z.boolean() }),
    z.object({ kind: z.literal("mismatch"), choice: z.enum(["rewind", "tell"]) }),
  ]),
});

/**
 * The session this server drives, by id (or prefix); 404 with what to do when it drives none. One
 * that went on in another (/rewind, /fork, /compact) is not driven under its old id any more: a
 * page still open on it must not send there what would land in the other unseen (QA).
 */
async function driven(ctx: Ctx) {
  const { id, d } = await lookUp(ctx);
  if (!d)
    throw new HttpError(
      404,
      `session ${id} is not driven from this page`,
      "continue it with the Continue button (or nudge claude run -r in a terminal)",
    );
  return { id, d };
}

/** The session's whole id, and what drives it here if anything does (one gone on in another is a 409). */
async function lookUp(ctx: Ctx) {
  const id = await resolveId(ctx.app.store, ctx.params.id!);
  const d = ctx.app.live.get(id);
  const now = d?.conversation?.sessionId;
  if (now && now !== id)
    throw new HttpError(409, `session ${id} went on in session ${now}`, `send it there: open /s/${now}`, {
      sessionId: now,
    });
  return { id, d };
}

export const LIVE_ROUTES: Route[] = [
  post("/api/live", async (ctx) => {
    const body = await readJsonBody(ctx.req, StartBody, START_LABELS);
    const choice = body.resume ? { kind: "resume" as const, id: body.resume } : { kind: "new" as const };
    const flags = {
      model: body.model,
      permissionMode: body.permissionMode,
      allowedTools: body.allowedTools,
      disallowedTools: body.disallowedTools,
    };
    try {
      const id = await ctx.app.live.start(ctx.app.store, { choice, prompt: body.prompt, flags });
      sendJson(ctx.res, 200, { id });
    } catch (error) {
      // A work tree another nudge records, a damaged session: the CLI's refusal, as a conflict.
      if (error instanceof RecordingElsewhere)
        throw new HttpError(
          409,
          error.message,
          `follow it live from the sessions page${error.session ? ` (session ${error.session})` : ""}; once that nudge ends, it can be continued here`,
        );
      if (error instanceof UserError) throw new HttpError(409, error.message, error.hint ?? "see the message");
      throw error;
    }
  }),
  get("/api/live/:id", async (ctx) => {
    // A session that ended here a moment ago (or could not start) answers with its last state: ended, and why.
    const id = /^[0-9a-f]{1,40}$/.test(ctx.params.id!) ? ctx.app.live.stateOf(ctx.params.id!)?.sessionId : undefined;
    const state = id ? ctx.app.live.stateOf(id) : null;
    if (state) return sendJson(ctx.res, 200, state);
    // A session of the store this server does not drive is the usual case for a page that shows
    // one: "none" is an answer, not an error (a 404 put a red line in the browser's console, QA).
    const { id: full, d } = await lookUp(ctx);
    sendJson(ctx.res, 200, d ? ctx.app.live.stateOf(full) : null);
  }),
  post("/api/live/:id/prompt", async (ctx) => {
    const { d } = await driven(ctx);
    const { text } = await readJsonBody(ctx.req, PromptBody, PROMPT_LABELS);
    const sent = d.frontend.send(text);
    if (sent === "busy")
      throw new HttpError(409, "claude is still working on the last prompt", "wait for the turn to end, or press Stop");
    if (sent === "asking")
      throw new HttpError(409, "claude is waiting for an answer to its question", "answer it first");
    if (sent === "ended") throw new HttpError(409, "this session has ended", "continue it with the Continue button");
    sendJson(ctx.res, 202, d.frontend.state());
  }),
  post("/api/live/:id/answer", async (ctx) => {
    const { d } = await driven(ctx);
    const body = await readJsonBody(ctx.req, AnswerBody);
    const answered = d.frontend.answer(body.question, body.reply as QuestionReply);
    if (answered === "not asked")
      throw new HttpError(409, "that question is no longer asked", "the page shows the question open now, if any");
    if (answered === "wrong kind")
      throw new HttpError(
        400,
        `question ${body.question} is not a ${body.reply.kind} question`,
        "answer it with the reply of its own kind",
      );
    sendJson(ctx.res, 200, d.frontend.state());
  }),
  post("/api/live/:id/stop", async (ctx) => {
    const { d } = await driven(ctx);
    await readJsonBody(ctx.req, z.object({}));
    // A prompt of the page's still waiting for the last turn's save is taken back: it never went.
    if (d.frontend.withdraw() !== null) return sendJson(ctx.res, 200, { state: "withdrawn" });
    // As Ctrl-C: the first interrupts the turn, a second stops claude (the turn is kept as interrupted).
    sendJson(ctx.res, 200, { state: d.conversation?.interrupt() ?? "idle" });
  }),
  post("/api/live/:id/end", async (ctx) => {
    const { d } = await driven(ctx);
    await readJsonBody(ctx.req, z.object({}));
    d.frontend.prompts.close();
    sendJson(ctx.res, 200, d.frontend.state());
  }),
];
