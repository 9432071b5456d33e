/** The sessions page: every session of the repository, sortable and filtered by what is typed. */
import { useEffect, useMemo, useState } from "preact/hooks";
import type { SessionListItem } from "../../../../view/view-types.js";
import { cost, title, when } from "../format.js";
import { listen } from "../live.js";
import type { Source } from "../source.js";
import { ErrorLine } from "./error-line.js";
import { RepoSwitch } from "./repo-switch.js";
import { SearchSessions } from "./search-sessions.js";
import { StartSession } from "./start-session.js";
import { ClaudeOwnSection } from "./claude-sessions.js";
import { inRepo } from "../repo-base.js";

type Key = "title" | "startedAt" | "updatedAt" | "turns" | "costUsd" | "state" | "parent" | "origin";
const COLUMNS: Array<{ key: Key; label: string }> = [
  { key: "title", label: "Session" },
  { key: "startedAt", label: "Started" },
  { key: "updatedAt", label: "Last used" },
  { key: "turns", label: "Turns" },
  { key: "costUsd", label: "Cost" },
  { key: "state", label: "State" },
  { key: "parent", label: "Fork of" },
  { key: "origin", label: "Imported from" },
];

export function SessionsPage({ source }: { source: Source }) {
  const [items, setItems] = useState<SessionListItem[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [filter, setFilter] = useState("");
  const [sort, setSort] = useState<{ key: Key; up: boolean }>({ key: "updatedAt", up: false });
  const [claudeChanges, setClaudeChanges] = useState(0);

  useEffect(() => {
    const load = () =>
      source.sessions().then((list) => {
        setItems(list);
        setError(null);
      }, setError);
    void load();
    document.title = "nudge sessions";
    return source.static
      ? undefined
      : listen(inRepo("/api/events"), {
          sessions: () => void load(),
          // claude's own, run without nudge (`claude -p` in a terminal): their section asks again.
          "claude-sessions": () => setClaudeChanges((n) => n + 1),
          reopen: () => {
            void load();
            setClaudeChanges((n) => n + 1);
          },
        });
  }, [source]);

  const shown = useMemo(() => {
    const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
    // A fork is found by its parent's id too, as the "Fork of" column shows it.
    const text = (s: SessionListItem) =>
      [s.id, s.firstPrompt, s.lastPrompt, s.branch, s.state, s.parent?.id, s.origin?.exportedBy, s.origin?.sourceId]
        .join(" ")
        .toLowerCase();
    const value = (s: SessionListItem): string | number =>
      sort.key === "title"
        ? title(s.firstPrompt).toLowerCase()
        : sort.key === "parent"
          ? s.parent
            ? `${s.parent.id}@${s.parent.turn}`
            : ""
          : sort.key === "origin"
            ? s.origin
              ? `${s.origin.exportedBy ?? ""} ${s.origin.sourceId}`.toLowerCase()
              : ""
            : (s[sort.key] ?? -1); // no cost or time known (claude's own UI reports none): below every known one
    return (items ?? [])
      .filter((s) => words.every((w) => text(s).includes(w)))
      .sort((a, b) => {
        const [x, y] = [value(a), value(b)];
        return (x < y ? -1 : x > y ? 1 : 0) * (sort.up ? 1 : -1);
      });
  }, [items, filter, sort]);

  return (
    <main class="sessions">
      <h1>Sessions</h1>
      {source.static ? null : (
        <nav class="crumbs">
          <a href={inRepo("/projects")}>All projects</a> (every folder claude kept sessions for on this machine)
        </nav>
      )}
      {source.static ? null : <RepoSwitch />}
      {source.static ? null : (
        <StartSession onStarted={(id) => (location.href = inRepo(`/s/${encodeURIComponent(id)}`))} />
      )}
      {source.static ? null : <SearchSessions />}
      <label class="filter">
        Filter{" "}
        <input
          type="search"
          value={filter}
          onInput={(e) => setFilter(e.currentTarget.value)}
          placeholder="prompt, id, branch, state, fork of"
        />
      </label>
      <ErrorLine error={error} />
      {items === null && !error ? <p class="muted">Loading…</p> : null}
      <table>
        <thead>
          <tr>
            {COLUMNS.map((c) => (
              <th key={c.key} aria-sort={sort.key === c.key ? (sort.up ? "ascending" : "descending") : "none"}>
                <button
                  type="button"
                  onClick={() => setSort({ key: c.key, up: sort.key === c.key ? !sort.up : c.key === "title" })}
                >
                  {c.label}
                  {/* The th's aria-sort says the order to a screen reader; the arrow is for the eye. */}
                  {sort.key === c.key ? <span aria-hidden="true">{sort.up ? " ▲" : " ▼"}</span> : null}
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.map((s) => (
            <tr key={s.id}>
              <td>
                <a href={inRepo(`/s/${encodeURIComponent(s.id)}`)}>{title(s.firstPrompt)}</a>
                <div class="muted small">
                  {s.id}
                  {s.branch ? ` · ${s.branch}` : ""}
                  {s.children.length ? ` · ${s.children.length} fork${s.children.length === 1 ? "" : "s"}` : ""}
                  <span class="narrow-only"> · last used {when(s.updatedAt)}</span>
                </div>
              </td>
              <td>{when(s.startedAt)}</td>
              <td>{when(s.updatedAt)}</td>
              <td class="num">{s.turns}</td>
              <td class="num">{cost(s.costUsd)}</td>
              <td>
                <span class={`state state-${s.state}`}>
                  {s.rewoundTo !== null ? `${s.state}, rewound to ${s.rewoundTo}` : s.state}
                </span>
              </td>
              <td>
                {s.parent ? (
                  <a
                    href={inRepo(`/s/${encodeURIComponent(s.parent.id)}?turn=${s.parent.turn}`)}
                  >{`${s.parent.id}@${s.parent.turn}`}</a>
                ) : (
                  ""
                )}
              </td>
              <td>{s.origin ? `${s.origin.exportedBy ?? "(unknown)"} · ${s.origin.sourceId}` : ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {items !== null && shown.length === 0 ? (
        <p class="muted">
          {items.length === 0 ? "No sessions recorded in this repository yet." : "No session matches the filter."}
        </p>
      ) : null}
      {/* Asked for once the recorded ones are drawn: claude's thousands of sessions never hold up the first screen. */}
      {source.static || items === null ? null : <ClaudeOwnSection changes={claudeChanges} />}
    </main>
  );
}
