/**
 * Named points where the crash-safety tests make nudge fail on purpose, through the environment:
 * `NUDGE_FAULT=<point>:<action>[@<n>]`, several separated by commas. Actions: `kill` (SIGKILL
 * this process, as the OOM killer would), `kill-group` (SIGKILL this process's whole group, as a
 * container stop would), `enospc` (the write fails as on a full disk). `@n` fires on the n-th
 * time the point is reached (default: the first). Unset, a point costs one Map lookup.
 */
interface Fault {
  action: "kill" | "kill-group" | "enospc";
  at: number;
  hits: number;
}

const faults = parse(process.env.NUDGE_FAULT);

function parse(spec: string | undefined): Map<string, Fault> {
  const map = new Map<string, Fault>();
  for (const part of (spec ?? "").split(",").filter(Boolean)) {
    const match = /^([a-z0-9-]+):(kill|kill-group|enospc)(?:@(\d+))?$/.exec(part.trim());
    if (match) map.set(match[1]!, { action: match[2] as Fault["action"], at: Number(match[3] ?? 1), hits: 0 });
  }
  return map;
}

export function faultPoint(name: string): void {
  const fault = faults.get(name);
  if (!fault || ++fault.hits !== fault.at) return;
  if (fault.action === "enospc") {
    throw Object.assign(new Error(`ENOSPC: no space left on device (injected at ${name})`), { code: "ENOSPC", syscall: "write" });
  }
  process.kill(fault.action === "kill-group" ? 0 : process.pid, "SIGKILL");
}
