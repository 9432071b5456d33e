/**
 * Random hex for unique temporary names. node:crypto is loaded at the first call, not on import:
 * loading it costs a start ~7 ms, and the hook claude waits on before every tool (hook-gate.ts)
 * writes nothing.
 */
import { createRequire } from "node:module";

let crypto: typeof import("node:crypto") | undefined;

export function randomHex(bytes: number): string {
  crypto ??= createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
  return crypto.randomBytes(bytes).toString("hex");
}
