/**
 * claude's own sessions (run without nudge) on the page, read-only: this repository's list, or a
 * project's among those claude keeps (named by its folder under `<config>/projects`, checked
 * against the folders there: never a path), one session's turns and one turn's entries. Ids are
 * checked before any file is looked for, and only claude's folder is read.
 */
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import * as z from "../../base/zod.js";
import { HttpError, parseInput, sendJson } from "./http-io.js";
import { get, post, type Ctx, type Route } from "./router.js";
import { actionRoute } from "./confirm-action.js";
import { sendPage } from "./static-assets.js";
import { servedAt } from "./served-at.js";
import { headOnly, openStream } from "./sse.js";
import { isDir } from "../../base/file-exists.js";

/** claude's session ids are UUIDs; a unique prefix of one names it too. */
const ClaudeId = z.string().check(z.regex(/^[A-Za-z0-9_-]{1,128}$/, "a claude session id (letters, digits, - and _)"));
/** A folder under `<config>/projects` (claude's encoding of a path: letters, digits, -). */
const Folder = z.string().check(z.regex(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$/, "a project folder"));
const ListQuery = z.object({
  project: z.optional(Folder),
  limit: z.optional(z.string().check(z.regex(/^([1-9]\d{0,2}|1000)$/, "a whole number from 1 to 1000"))),
});
const Turn = z.string().check(z.regex(/^\d{1,9}$/, "a turn number (digits)"));
/** The first screen's share: the rest are a click away (limit=1000). */
const LISTED = 100;

const modules = async () => ({
  own: await import("../../live/claude-own-sessions.js"),
  views: await import("../../view/claude-web-views.js"),
});

export const CLAUDE_ROUTES: Route[] = [
  post(
    "/api/claude-sessions/:id/adopt",
    actionRoute("adopt", async () => {
      const { adoptAction } = await import("./adopt-action.js");
      // The id names one of claude's sessions, not a nudge session: checked here, looked up among claude's.
      return { ...adoptAction, resolve: (_app, raw) => Promise.resolve(parseInput(ClaudeId, raw, "id")) };
    }),
  ),
  get("/c/:id", sendPage),
  get("/projects/:folder", sendPage),
  get("/api/claude-sessions", listRoute),
  get("/api/claude-sessions/:id", async (ctx) => {
    const { views } = await modules();
    const s = await findSession(ctx);
    sendJson(ctx.res, 200, await views.claudeSessionView(s, s.cwd ?? ctx.app.store.repoRoot));
  }),
  get("/api/claude-sessions/:id/events", claudeSessionEvents),
  get("/api/claude-sessions/:id/turns/:n", async (ctx) => {
    const { views } = await modules();
    const n = Number(parseInput(Turn, ctx.params.n, "turn"));
    const s = await findSession(ctx);
    const view = await views.claudeTurnView(s, n, {
      full: ctx.url.searchParams.get("full") === "1",
      repoRoot: s.cwd ?? ctx.app.store.repoRoot,
    });
    if (!view)
      throw new HttpError(404, `claude's session ${s.id} has no turn ${n}`, `its turns are 1 to ${s.turns ?? "?"}`);
    sendJson(ctx.res, 200, view);
  }),
];

/** One of claude's own sessions as it is written: `claude-session` says "ask again" (its page refetches). */
async function claudeSessionEvents(ctx: Ctx): Promise<void> {
  const s = await findSession(ctx);
  if (headOnly(ctx)) return;
  let stop = () => {};
  const { stream, resumed } = openStream(ctx.req, ctx.res, ctx.app.streams, () => stop());
  stop = ctx.app.watchers.claude.onFile(s.file, () => stream.send({ event: "claude-session", data: {} }));
  // A reconnect: what was written meanwhile is asked for.
  if (resumed) stream.send({ event: "claude-session", data: {} });
}

async function findSession(ctx: Ctx) {
  const { own } = await modules();
  const id = parseInput(ClaudeId, ctx.params.id, "id");
  const s = await own.findClaudeSession(ctx.app.store, id);
  if (s) return s;
  const { heldByNudge } = await import("./adopt-action.js");
  throw (
    (await heldByNudge(ctx.app.store, id, 404)) ??
    new HttpError(
      404,
      `no session of claude's own matches "${id}"`,
      "the sessions page lists them; one nudge recorded or adopted is at /s/<id>",
    )
  );
}

/** This repository's sessions, or (`project`) those of one folder claude keeps: the one used last first, at most `limit`. */
async function listRoute(ctx: Ctx): Promise<void> {
  const q = parseInput(ListQuery, Object.fromEntries(ctx.url.searchParams), "query");
  const limit = q.limit === undefined ? LISTED : Number(q.limit);
  const { own, views } = await modules();
  const { claudeConfigDir } = await import("../../claude/transcript.js");
  if (q.project === undefined) {
    const scan = await own.claudeOwnScan(ctx.app.store, { limit });
    return sendJson(ctx.res, 200, {
      project: null,
      total: scan.total,
      sessions: await views.claudeListItems(scan.sessions),
    });
  }
  const root = path.join(claudeConfigDir(), "projects");
  // Only a folder that is there, and a real folder (a link in claude's folder is not followed).
  const folders = await readdir(root, { withFileTypes: true }).catch(() => [] as Dirent[]);
  if (!folders.some((d) => d.isDirectory() && d.name === q.project))
    throw new HttpError(404, `claude keeps no project folder "${q.project}"`, "All projects lists them: /projects");
  const { projectNames, readClaudeProject } = await import("../../claude/claude-projects.js");
  const [all, folder] = await Promise.all([
    own.claudeOwnSessions(ctx.app.store, { allProjects: true }),
    // Where it ran, from any of its transcripts: those nudge adopted are left off the list, not off this.
    readClaudeProject(claudeConfigDir(), q.project),
  ]);
  const mine = all.filter((s) => path.basename(path.dirname(s.file)) === q.project);
  // As All projects names it: every directory the folder holds sessions of, a served one first.
  const cwds = projectNames(q.project, [...mine.map((s) => s.cwd), folder.cwd]);
  const cwd = cwds.find((c) => servedAt(ctx.app.repos, c) !== null) ?? cwds[0] ?? null;
  sendJson(ctx.res, 200, {
    project: {
      folder: q.project,
      cwd,
      cwds,
      exists: cwd !== null && isDir(cwd),
      served: servedAt(ctx.app.repos, cwd),
    },
    total: mine.length,
    sessions: await views.claudeListItems(mine.slice(0, limit)),
  });
}
