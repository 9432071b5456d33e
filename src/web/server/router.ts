/**
 * A table of routes, one line each (`get("/api/sessions/:id", handler)`): the path's `:names`
 * become params, and a path that exists under another method answers 405, never its handler —
 * a GET can never reach an action.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { HttpError } from "./http-io.js";
import type { App } from "./app-context.js";

export interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
  app: App;
}

export type Handler = (ctx: Ctx) => Promise<void>;

export interface Route {
  method: "GET" | "POST";
  pattern: RegExp;
  handler: Handler;
}

function route(method: Route["method"], path: string, handler: Handler): Route {
  const source = path.replace(/[.]/g, "\\.").replace(/:(\w+)/g, "(?<$1>[^/]+)");
  return { method, pattern: new RegExp(`^${source}$`), handler };
}

export const get = (path: string, handler: Handler) => route("GET", path, handler);
export const post = (path: string, handler: Handler) => route("POST", path, handler);

/** The route for a request; HEAD is answered as GET (node leaves the body out). */
export function findRoute(
  routes: Route[],
  method: string,
  pathname: string,
): { handler: Handler; params: Record<string, string> } {
  const asked = method === "HEAD" ? "GET" : method;
  const allowed = new Set<string>();
  for (const r of routes) {
    const found = r.pattern.exec(pathname);
    if (!found) continue;
    if (r.method !== asked) {
      allowed.add(r.method);
      continue;
    }
    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries(found.groups ?? {})) {
      try {
        params[name] = decodeURIComponent(value);
      } catch {
        throw new HttpError(400, `the ${name} in the URL is not valid`, "check the URL");
      }
    }
    return { handler: r.handler, params };
  }
  if (allowed.size) {
    const allow = [...allowed, ...(allowed.has("GET") ? ["HEAD"] : [])].join(", ");
    throw new HttpError(
      405,
      `${method} is not allowed here (${allow} is)`,
      allowed.has("POST") ? "actions change things: they are POSTs from the page" : "use GET",
      { allow },
    );
  }
  throw new HttpError(404, `nothing at ${pathname}`, "the sessions page is at /");
}
