/**
 * A line at the top of a served page when its live updates stopped, so an open page never goes
 * quietly stale: the server not answering (it says so after a moment, as EventSource's own retries
 * cover a short blip), or its login refused (the page must be opened anew from the printed address).
 */
import { useEffect, useState } from "preact/hooks";
import { onConnection, type Connection } from "../live.js";

/** A reconnect shorter than this (a server restart, a network blip) shows nothing. */
const QUIET_MS = 2500;

export function ConnectionBanner() {
  const [shown, setShown] = useState<Connection>("open");
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = onConnection((c) => {
      clearTimeout(timer);
      if (c === "reconnecting") timer = setTimeout(() => setShown(c), QUIET_MS);
      else setShown(c);
    });
    return () => {
      clearTimeout(timer);
      off();
    };
  }, []);
  if (shown === "open") return null;
  return (
    <div class={`banner banner-${shown}`} role="alert">
      {shown === "refused" ? (
        <>
          <strong>Disconnected:</strong> nudge web no longer accepts this page's login (it was restarted with a new
          token, or another server took its port). Open the address <code>nudge web</code> printed.
        </>
      ) : (
        <>
          <strong>Reconnecting…</strong> nudge web is not answering at {location.host}: live updates are paused, and
          resume by themselves once it is back. If it was restarted on another port, open the address it printed.
        </>
      )}
    </div>
  );
}
