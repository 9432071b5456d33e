import * as z from "../zod.js";
import { UserError } from "../errors.js";

/**
 * Check a command's options against its schema (zod or zod/mini: both are zod's core types); a
 * bad flag becomes one clear line, not a stack trace.
 */
export function parseOptions<T extends z.core.$ZodType>(schema: T, raw: unknown): z.infer<T> {
  const parsed = z.safeParse(schema, raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const flag = issue.path.length ? `--${String(issue.path[0]).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}` : "options";
  throw new UserError(`invalid ${flag}: ${issue.message}`, "see --help for the accepted values");
}

/** A turn number argument: a whole number, checked here so every command says the same thing. */
export function parseTurnArg(value: string, name = "turn"): number {
  const hint = "nudge session show <id> lists the turns";
  if (!/^\d+$/.test(value)) throw new UserError(`${name} must be a whole number, got "${value}"`, hint);
  const n = Number(value);
  // Past 2^53 Number() rounds, so the error would name a turn the user never typed.
  if (!Number.isSafeInteger(n)) throw new UserError(`${name} is too large to be a turn number, got "${value}"`, hint);
  return n;
}
