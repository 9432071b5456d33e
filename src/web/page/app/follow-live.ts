/**
 * Keeps the live turn in view while claude works: whenever the turns grow, the page goes to their
 * end (just above the sticky prompt panel), until the user scrolls away, which is the user's
 * choice; back at the end (or through "Jump to live"), it follows again. Growth is watched with a
 * ResizeObserver, since a turn's words arrive after the event that announced them.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { isUserScroll, USER_SCROLLS } from "./settle-scroll.js";

/** How close to the end counts as "at the end" (a line or two). */
const AT_END_PX = 48;
/** A scroll this soon after the user's own input is the user's; any other is the page's. */
const USER_INPUT_MS = 800;

const atEnd = () => window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - AT_END_PX;
const toEnd = () => window.scrollTo({ top: document.documentElement.scrollHeight });

/** `active`: claude works (or the session is recorded elsewhere and may grow); `start`: follow from the start. */
export function useFollowLive(
  active: boolean,
  start: boolean,
): { following: boolean; jumpToLive: () => void; stopFollowing: () => void } {
  const [following, setFollowing] = useState(start);
  const followingNow = useRef(following);
  followingNow.current = following;
  useEffect(() => {
    if (!active) return;
    let userAt = -Infinity;
    // A click on Stop or Send is no scroll: only the wheel, a drag, a scrolling key or the scroll bar are.
    const onInput = (e: Event) => {
      if (isUserScroll(e)) userAt = performance.now();
    };
    const onScroll = () => {
      if (atEnd()) setFollowing(true);
      else if (performance.now() - userAt < USER_INPUT_MS) setFollowing(false);
    };
    for (const type of USER_SCROLLS) window.addEventListener(type, onInput, { passive: true });
    window.addEventListener("scroll", onScroll, { passive: true });
    const grown = new ResizeObserver(() => {
      if (followingNow.current) toEnd();
    });
    grown.observe(document.body);
    if (followingNow.current) toEnd();
    return () => {
      for (const type of USER_SCROLLS) window.removeEventListener(type, onInput);
      window.removeEventListener("scroll", onScroll);
      grown.disconnect();
    };
  }, [active]);
  const jumpToLive = useCallback(() => {
    setFollowing(true);
    toEnd();
  }, []);
  const stopFollowing = useCallback(() => {
    followingNow.current = false;
    setFollowing(false);
  }, []);
  return { following, jumpToLive, stopFollowing };
}
