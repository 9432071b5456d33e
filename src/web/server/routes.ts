/**
 * Every route of `nudge web`, one line each. Handlers parse their parameters and call the view
 * layer (src/view), the live watches or the actions; none reads a bundle's files itself.
 */
import { servedAt } from "./served-at.js";
import path from "node:path";
import * as z from "../../base/zod.js";
import { resolveId } from "../../store/store.js";
import { resolveSessionKept } from "../../view/manifest-cache.js";
import { actionRoute } from "./confirm-action.js";
import { sendDownload } from "./download-route.js";
import { sendWholeLine } from "./whole-line-route.js";
import { HttpError, parseInput, sendJson } from "./http-io.js";
import { get, post, type Ctx, type Route } from "./router.js";
import { LIVE_ROUTES } from "./live-routes.js";
import { CLAUDE_ROUTES } from "./claude-routes.js";
import { headOnly, openStream } from "./sse.js";
import { sendAsset, sendPage } from "./static-assets.js";

/** A turn number in the URL: digits only ("", "1e3", " 1" are not turns). */
const Turn = z.string().check(z.regex(/^\d{1,9}$/, "a turn number (digits)"));
const turnParam = (value: string | undefined, what: string) => Number(parseInput(Turn, value, what));
/** The view builders, loaded on the first request that needs them (not at start-up); what they show is masked as an export is. */
const views = () => import("../../view/masked-views.js");
const query = (ctx: Ctx, name: string) => ctx.url.searchParams.get(name) ?? undefined;
/** GET /api/search's parameters, as `session search` takes them; bounded so one request stays small. */
const SearchQuery = z.object({
  q: z.optional(z.string().check(z.maxLength(1000))),
  file: z.optional(z.string().check(z.minLength(1), z.maxLength(4096))),
  tool: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  since: z.optional(z.string().check(z.maxLength(40))),
  // nudge's (hex) or claude's own (a uuid): the id or a prefix of either.
  session: z.optional(z.string().check(z.regex(/^[A-Za-z0-9_-]{1,128}$/, "a session id or prefix"))),
  limit: z.optional(z.string().check(z.regex(/^([1-9]|[1-9]\d|100)$/, "a whole number from 1 to 100"))),
  newest: z.optional(z.enum(["0", "1"])),
});

export const ROUTES: Route[] = [
  get("/", sendPage),
  get("/s/:id", sendPage),
  get("/projects", sendPage),
  get("/api/projects", projectsRoute),
  get("/assets/:name", (ctx) => sendAsset(ctx, ctx.params.name!)),
  get("/api/repos", async ({ res, app }) =>
    sendJson(
      res,
      200,
      app.repos.map((r, i) => ({
        key: r.key,
        root: r.store.repoRoot,
        path: i === 0 ? "/" : `/r/${r.key}/`,
        current: r.store === app.store,
      })),
    ),
  ),
  get("/api/sessions", async ({ res, app }) => sendJson(res, 200, await (await views()).maskedSessionItems(app.store))),
  get("/api/sessions/:id", async ({ res, app, params }) =>
    sendJson(res, 200, await (await views()).maskedSessionView(app.store, await resolveId(app.store, params.id!))),
  ),
  get("/api/sessions/:id/turns/:n", async (ctx) => {
    const id = await resolveId(ctx.app.store, ctx.params.id!);
    const n = turnParam(ctx.params.n, "turn");
    sendJson(
      ctx.res,
      200,
      await (await views()).maskedTurnView(ctx.app.store, id, n, { full: query(ctx, "full") === "1" }),
    );
  }),
  get("/api/sessions/:id/diff", async (ctx) => {
    const id = await resolveId(ctx.app.store, ctx.params.id!);
    const from = turnParam(query(ctx, "from"), "from");
    const to = turnParam(query(ctx, "to"), "to");
    if (from >= to) throw new HttpError(400, `from (${from}) must be before to (${to})`, "e.g. ?from=1&to=3");
    sendJson(
      ctx.res,
      200,
      await (await import("../../view/session-views.js")).diffBetween(ctx.app.store, id, from, to),
    );
  }),
  get("/api/sessions/:id/raw", sendWholeLine),
  get("/api/sessions/:id/events", sessionEvents),
  get("/api/search", searchRoute),
  get("/api/events", listEvents),
  get("/api/downloads/:token", sendDownload),
  post(
    "/api/sessions/:id/rewind",
    actionRoute("rewind", async () => (await import("./actions.js")).rewindAction),
  ),
  post(
    "/api/sessions/:id/undo",
    actionRoute("undo", async () => (await import("./actions.js")).undoAction),
  ),
  post(
    "/api/sessions/:id/fork",
    actionRoute("fork", async () => (await import("./actions.js")).forkAction),
  ),
  post(
    "/api/sessions/:id/export",
    actionRoute("export", async () => (await import("./actions.js")).exportAction),
  ),
  post(
    "/api/sessions/:id/rm",
    actionRoute("rm", async () => (await import("./actions.js")).rmAction),
  ),
  ...LIVE_ROUTES,
  ...CLAUDE_ROUTES,
];

async function sessionEvents(ctx: Ctx): Promise<void> {
  const { app } = ctx;
  const id = await resolveId(app.store, ctx.params.id!);
  if (headOnly(ctx)) return;
  let stop = () => {};
  const { stream, resumed } = openStream(ctx.req, ctx.res, app.streams, () => stop());
  const unwatch = app.watchers.onSession(id, (e) => stream.send(e));
  // A session this server drives: its prompt box, question and notices as they change.
  const live = () =>
    stream.send({
      event: "live",
      data: app.live.stateOf(id) ?? {
        busy: false,
        ended: true,
        question: null,
        activity: null,
        since: null,
        notices: [],
        sessionId: id,
      },
    });
  const unlive = app.live.on(id, live);
  stop = () => (unwatch(), unlive());
  if (!resumed) return;
  // A reconnect (the server restarted, the laptop slept): say where the session is now, so the page refetches what it lacks.
  const { manifest } = await resolveSessionKept(app.store, id).catch(() => ({ manifest: null }));
  stream.send({
    event: "session",
    data: { turns: manifest?.turns.filter((t) => t.n > 0).length ?? 0, pending: manifest?.unsaved.at(-1)?.n ?? null },
  });
}

async function listEvents(ctx: Ctx): Promise<void> {
  if (headOnly(ctx)) return;
  let stop = () => {};
  const { stream, resumed } = openStream(ctx.req, ctx.res, ctx.app.streams, () => stop());
  const unlist = ctx.app.watchers.onList((e) => stream.send(e));
  const unclaude = ctx.app.watchers.claude.onList(() => stream.send({ event: "claude-sessions", data: {} }));
  stop = () => (unlist(), unclaude());
  if (resumed) stream.send({ event: "sessions", data: {} });
}

/** The same search as `session search --json`: the index brought up to date, secrets masked in what is sent. */
async function searchRoute(ctx: Ctx): Promise<void> {
  const p = parseInput(SearchQuery, Object.fromEntries(ctx.url.searchParams), "query");
  const { parseSince, searchSessions } = await import("../../search/search-sessions.js");
  const { hitViews } = await import("../../search/hit-view.js");
  const { sessionFilter } = await import("../../live/session-id.js");
  const only = p.session === undefined ? null : await sessionFilter(ctx.app.store, p.session);
  const limit = p.limit === undefined ? 20 : Number(p.limit);
  const found = await searchSessions(ctx.app.store, {
    // claude's own sessions of this repository too, as `session search` has them (indexed in the background).
    claude: only?.elsewhere ? "all" : "repository",
    query: p.q ?? "",
    file: p.file ?? null,
    tool: p.tool ?? null,
    since: p.since === undefined ? null : parseSince(p.since),
    session: only ? (only.nudge ?? only.claude) : null,
    newest: p.newest === "1",
    limit,
  });
  sendJson(ctx.res, 200, { hits: await hitViews(found.hits), claudeLeft: found.claudeLeft });
}

/**
 * Every project claude kept sessions for on this machine (`$CLAUDE_CONFIG_DIR/projects`), newest
 * first, each marked with the address of its sessions page when this server serves its repository.
 */
async function projectsRoute({ res, app }: Ctx): Promise<void> {
  const { claudeConfigDir } = await import("../../claude/transcript.js");
  const { directoryState, listClaudeProjects, projectNames } = await import("../../claude/claude-projects.js");
  const configDir = claudeConfigDir();
  const { scanClaudeSessions } = await import("../../live/claude-session-scan.js");
  const [{ projects, more }, scan] = await Promise.all([
    listClaudeProjects(configDir),
    scanClaudeSessions(configDir, app.store.dir, () => true),
  ]);
  // What each folder's sessions cost, as `session list --all-projects` sums it (from the cached cards).
  const costs = new Map<string, number>();
  const cwdsOf = new Map<string, Array<string | null>>();
  for (const s of scan.sessions) {
    const folder = path.basename(path.dirname(s.file));
    costs.set(folder, (costs.get(folder) ?? 0) + (s.costUsd ?? 0));
    cwdsOf.set(folder, [...(cwdsOf.get(folder) ?? []), s.cwd]);
  }
  // Named as the CLI names it: every directory whose sessions the folder holds, not one stray transcript's.
  const named = (p: (typeof projects)[number]) => {
    const cwds = projectNames(p.folder, [...(cwdsOf.get(p.folder) ?? []), p.cwd]);
    const cwd = cwds.find((c) => servedAt(app.repos, c) !== null) ?? cwds[0] ?? null;
    return { ...p, cwd, cwds, ...directoryState(cwd), served: servedAt(app.repos, cwd) };
  };
  sendJson(res, 200, {
    configDir,
    more,
    projects: projects.map((p) => ({ ...named(p), costUsd: costs.get(p.folder) ?? 0 })),
  });
}
