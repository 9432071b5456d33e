/**
 * Why a remote refused a push, told apart from git's porcelain reasons, so the message says what
 * happened: someone moved the refs since they were read (a lease or a fast-forward failed: the
 * only case where publishing beside it under a fresh id makes sense), another push held them at
 * that very moment, or the remote itself could not take it (a full disk's `unpacker error`, a
 * size limit, a hook).
 */
type RefusalKind = "moved" | "busy" | "refused";

export interface Refusal {
  kind: RefusalKind;
  /** git's reasons, one per distinct cause, and what the remote said besides. */
  why: string;
}

/** Refs refused only because another ref of the same atomic push was: not a cause of their own. */
const FOLLOWER = /atomic push failed/;
const MOVED = /^\[rejected\].*\((stale info|fetch first|non-fast-forward|already exists)\)/;
const BUSY = /cannot lock ref|failed to lock|unable to lock|incorrect old value|failed to update ref/;

export function classifyRefusal(rejected: Array<{ ref: string; why: string }>, said: string): Refusal {
  const causes = rejected.filter((r) => !FOLLOWER.test(r.why));
  const shown = causes.length ? causes : rejected;
  const reasons = [...new Set(shown.map((r) => r.why))].join("; ");
  if (shown.some((r) => MOVED.test(r.why))) return { kind: "moved", why: reasons };
  const all = `${reasons} ${said}`;
  if (BUSY.test(all)) return { kind: "busy", why: reasons };
  // The remote's own words say more than "unpacker error" (a full disk, a size limit).
  const extra = said && said !== "no message" && !reasons.includes(said) ? `: ${said}` : "";
  return { kind: "refused", why: `${reasons}${extra}`.slice(0, 500) };
}
