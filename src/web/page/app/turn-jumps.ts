/**
 * Going to a turn: the timeline, the outline, a permalink (the page's `scrollTo`, once the session
 * is loaded) or a typed #turn-N. It is leaving the live end: following it would pull the page back
 * there as the turns grow.
 */
import { useCallback, useEffect } from "preact/hooks";
import { turnInAddress } from "./turn-address.js";

export function useTurnJumps(
  loaded: boolean,
  scrollTo: number | null,
  goTo: (n: number) => void,
  stopFollowing: () => void,
): (n: number) => void {
  const jump = useCallback(
    (n: number) => {
      stopFollowing();
      goTo(n);
    },
    [stopFollowing, goTo],
  );
  useEffect(() => {
    if (loaded && scrollTo !== null) jump(scrollTo);
  }, [loaded]);
  // A link to another turn of this page (a heading's permalink, a typed #turn-N) goes there.
  useEffect(() => {
    const onHash = () => {
      const n = turnInAddress().turn;
      if (n !== null) jump(n);
    };
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, [jump]);
  return jump;
}
