/**
 * Where the page's data comes from: the server's JSON API, or (a static export) the one
 * `<script type="application/json" id="nudge-data">` element the file carries, never the network.
 */
import type { DiffView, SessionListItem, SessionView, TurnView } from "../../../view/view-types.js";
import { inRepo } from "./repo-base.js";

/** What a static export embeds: the session, and every turn in full. */
export interface StaticData {
  session: SessionView;
  turns: TurnView[];
}

export interface Source {
  static: boolean;
  /** One of claude's own sessions: its conversation only (no code, no actions, no live updates). */
  codeless?: boolean;
  sessions(): Promise<SessionListItem[]>;
  session(id: string): Promise<SessionView>;
  turn(id: string, n: number, full: boolean): Promise<TurnView>;
  diff(id: string, from: number, to: number): Promise<DiffView>;
}

/** An error the server answered ({error, hint}), or a network failure, as one line. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly hint: string | null,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export async function getJson<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, { credentials: "same-origin", ...init }).catch(() => {
    throw new ApiError(
      `nudge web is not answering at ${location.host}`,
      0,
      "Is it still running? Start it again (nudge web) and open the address it prints.",
      null,
    );
  });
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const e = (body ?? {}) as { error?: unknown; hint?: unknown };
    throw new ApiError(
      typeof e.error === "string" ? e.error : `HTTP ${response.status}`,
      response.status,
      typeof e.hint === "string" ? e.hint : null,
      body,
    );
  }
  return body as T;
}

export function serverSource(): Source {
  const api = (path: string) => inRepo(`/api/sessions${path}`);
  const id = (s: string) => encodeURIComponent(s);
  return {
    static: false,
    sessions: () => getJson(api("")),
    session: (s) => getJson(api(`/${id(s)}`)),
    turn: (s, n, full) => getJson(api(`/${id(s)}/turns/${n}${full ? "?full=1" : ""}`)),
    diff: (s, from, to) => getJson(api(`/${id(s)}/diff?from=${from}&to=${to}`)),
  };
}

/** claude's own sessions, read-only: only their turns are fetched through a Source (the page fetches the rest itself). */
export function claudeSource(): Source {
  const none = () => Promise.reject(new ApiError("claude's own sessions have no code snapshots", 404, null, null));
  return {
    static: false,
    codeless: true,
    sessions: () => Promise.resolve([]),
    session: none,
    turn: (s, n, full) =>
      getJson(inRepo(`/api/claude-sessions/${encodeURIComponent(s)}/turns/${n}${full ? "?full=1" : ""}`)),
    diff: none,
  };
}

export function staticSource(data: StaticData): Source {
  const turns = new Map(data.turns.map((t) => [t.summary.n, t]));
  const none = () =>
    Promise.reject(new ApiError("not in this file: a static export holds one session", 404, null, null));
  return {
    static: true,
    sessions: () => Promise.resolve([data.session.session]),
    session: () => Promise.resolve(data.session),
    turn: (_s, n) => {
      const turn = turns.get(n);
      return turn ? Promise.resolve(turn) : none();
    },
    diff: none,
  };
}

/** The static export's data element, when this page is one. */
export function readStaticData(): StaticData | null {
  const element = document.getElementById("nudge-data");
  if (!element?.textContent) return null;
  return JSON.parse(element.textContent) as StaticData;
}

/** The CSRF token the server put in the page, sent with every action. */
export function csrfToken(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="nudge-csrf"]')?.content ?? "";
}

/** A POST from the page: JSON, with the CSRF token every action carries. */
export function postJson<T>(url: string, body: unknown): Promise<T> {
  return getJson<T>(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-nudge-csrf": csrfToken() },
    body: JSON.stringify(body),
  });
}
