/**
 * What a route handler gets: the repository the request is for (its store and live watches) and
 * what the whole server shares (the secrets, the streams, the sessions it drives).
 */
import type { Store } from "../../store/store.js";
import type { LivePool } from "../live/live-pool.js";
import type { Downloads } from "./downloads.js";
import type { Guard } from "./security.js";
import type { Stream } from "./sse.js";
import type { Watchers } from "./watchers.js";

/** One repository the server serves: the one it was started in, and each named with --repo. */
export interface RepoSite {
  /** Its URL prefix's name (`/r/<key>/`); the first repository's pages are also at `/`. */
  key: string;
  store: Store;
  watchers: Watchers;
}

export interface App {
  /** The request's repository. */
  store: Store;
  watchers: Watchers;
  /** Every repository served, the one it was started in first. */
  repos: RepoSite[];
  guard: Guard;
  /** Signs confirm tokens: an apply must carry the token of the plan this server showed. */
  key: Buffer;
  streams: Set<Stream>;
  downloads: Downloads;
  /** The sessions this server drives for the page, in every repository it serves. */
  live: LivePool;
  /** dist/web (see page/assets.ts); null when the page was not built: its assets answer 404. */
  assetsDir: string | null;
}
