/**
 * Where the whole of a text cut when it was read (a 50 MB tool input) is downloaded: the session's
 * `/raw` route, a piece at a time. A static export has no server: null, and the page says where
 * the whole is instead of linking to it.
 */
import { createContext } from "preact";
import type { ClippedText } from "../../../view/view-types.js";
import { inRepo } from "./repo-base.js";

export type WholeHref = (whole: NonNullable<ClippedText["whole"]>) => string;

export const WholeLink = createContext<WholeHref | null>(null);

export function wholeHref(sessionId: string): WholeHref {
  return (w) => inRepo(`/api/sessions/${encodeURIComponent(sessionId)}/raw?at=${w.byte}&bytes=${w.bytes}`);
}

/** "50.6 MB", "812 KB". */
export function sizeText(bytes: number): string {
  return bytes >= 1 << 20 ? `${(bytes / (1 << 20)).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;
}
