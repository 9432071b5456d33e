/** What every route handler shares: the store it serves, the secrets, the live watches and streams. */
import type { Store } from "../../bundle/store.js";
import type { LivePool } from "../live/live-pool.js";
import type { Downloads } from "./downloads.js";
import type { Guard } from "./security.js";
import type { Stream } from "./sse.js";
import type { Watchers } from "./watchers.js";

export interface App {
  store: Store;
  guard: Guard;
  /** Signs confirm tokens: an apply must carry the token of the plan this server showed. */
  key: Buffer;
  watchers: Watchers;
  streams: Set<Stream>;
  downloads: Downloads;
  /** The sessions this server drives for the page. */
  live: LivePool;
  /** dist/web: page.js and page.css. */
  /** dist/web (see page/assets.ts); null when the page was not built: its assets answer 404. */
  assetsDir: string | null;
}
