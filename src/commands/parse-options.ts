import * as z from "../base/zod.js";
import { UserError } from "../base/errors.js";
import { accepted } from "./option-words.js";

/** zod's own English messages ("Invalid input: expected number, received NaN"): said again in nudge's words. */
const ZOD_WORDS = /^(Invalid|Too (small|big)|Expected|Unrecognized)\b/;

/**
 * Check a command's options against its schema (zod or zod/mini: both are zod's core types); a
 * bad flag becomes one clear line naming the flag, what it takes and the value given, with an
 * example in the hint, not a stack trace.
 */
export function parseOptions<T extends z.core.$ZodType>(schema: T, raw: unknown): z.infer<T> {
  const parsed = z.safeParse(schema, raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const key = issue.path.length ? String(issue.path[0]) : null;
  const flag = key ? `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}` : "options";
  const given = key && raw && typeof raw === "object" ? (raw as Record<string, unknown>)[key] : undefined;
  const got = typeof given === "string" ? `, got ${JSON.stringify(given)}` : "";
  const field = key ? (schema._zod.def as { shape?: Record<string, z.core.$ZodType> }).shape?.[key] : undefined;
  const what = field && accepted(field);
  if (!what?.words.length || !ZOD_WORDS.test(issue.message)) {
    // A check with words of its own (a refine's, a regex's) already says what it takes.
    const words = ZOD_WORDS.test(issue.message) ? "not a value it takes" : issue.message;
    throw new UserError(
      `invalid ${flag}: ${words}${got}`,
      `see ${flag === "options" ? "" : `${flag} in `}--help for the values it takes`,
    );
  }
  const example = what.example === null ? "" : `for example ${flag} ${what.example}; `;
  throw new UserError(`invalid ${flag}: expected ${what.words.join(" or ")}${got}`, `${example}see --help for more`);
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
