/**
 * The repository this page is for, as the server's URLs name it: "" for the one `nudge web` was
 * started in, `/r/<key>` for one named with --repo. Every URL the page builds (API calls, links
 * to sessions) goes through `inRepo`, so a page under `/r/<key>/` stays in its repository.
 */
const served = location.protocol === "http:" || location.protocol === "https:";

const repoBase = served ? (/^\/r\/[a-z0-9][a-z0-9._-]{0,63}(?=\/|$)/.exec(location.pathname)?.[0] ?? "") : "";

export const inRepo = (path: string): string => repoBase + path;

/** The path within the repository (what the page routes on). */
export const repoPath = (): string => location.pathname.slice(repoBase.length) || "/";
