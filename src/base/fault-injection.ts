/**
 * Named points where the crash-safety tests make nudge fail on purpose, through the environment:
 * `NUDGE_FAULT=<point>:<action>[@<n>]`, several separated by commas. Actions: `kill` (SIGKILL
 * this process, as the OOM killer would), `kill-group` (SIGKILL this process's whole group, as a
 * container stop would), `enospc` (the write fails as on a full disk), and at an asynchronous
 * point (`faultPause`) `delay-<ms>` (wait that long: a slow disk, a huge work tree) or `hold`
 * (wait, the event loop free, until the file named by `NUDGE_FAULT_RELEASE` exists: a save as
 * slow as a test needs it, with no clock in the test; at most a minute). `@n` fires on the n-th
 * time the point is reached (default: the first). Unset, a point costs one Map lookup.
 */
import { existsSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

interface Fault {
  action: "kill" | "kill-group" | "enospc" | "delay" | "hold";
  ms: number;
  at: number;
  hits: number;
}

const faults = parse(process.env.NUDGE_FAULT);

function parse(spec: string | undefined): Map<string, Fault> {
  const map = new Map<string, Fault>();
  for (const part of (spec ?? "").split(",").filter(Boolean)) {
    const match = /^([a-z0-9-]+):(kill|kill-group|enospc|hold|delay-(\d+))(?:@(\d+))?$/.exec(part.trim());
    if (!match) continue;
    const action = (match[3] !== undefined ? "delay" : match[2]) as Fault["action"];
    map.set(match[1]!, { action, ms: Number(match[3] ?? 0), at: Number(match[4] ?? 1), hits: 0 });
  }
  return map;
}

export function faultPoint(name: string): void {
  const fault = faults.get(name);
  if (!fault || fault.action === "delay" || fault.action === "hold" || ++fault.hits !== fault.at) return;
  if (fault.action === "enospc") {
    throw Object.assign(new Error(`ENOSPC: no space left on device (injected at ${name})`), {
      code: "ENOSPC",
      syscall: "write",
    });
  }
  process.kill(fault.action === "kill-group" ? 0 : process.pid, "SIGKILL");
}

/** An asynchronous point: a `delay-<ms>` fault waits that long there, a `hold` until released; any other fires as in `faultPoint`. */
export async function faultPause(name: string): Promise<void> {
  const fault = faults.get(name);
  if (fault?.action !== "delay" && fault?.action !== "hold") return faultPoint(name);
  if (++fault.hits !== fault.at) return;
  if (fault.action === "delay") return void (await sleep(fault.ms));
  const release = process.env.NUDGE_FAULT_RELEASE;
  for (let waited = 0; release && waited < 60_000 && !existsSync(release); waited += 20) await sleep(20);
}
