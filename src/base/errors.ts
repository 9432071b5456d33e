/**
 * The two kinds of failure nudge reports. Commands throw these; exactly one catch, in `cli.ts`,
 * turns them into a message and an exit code (0 ok, 1 the user's problem, 2 a bug).
 */
export class UserError extends Error {
  readonly exitCode = 1;
  constructor(
    message: string,
    /** One line telling the user what to do about it. */
    readonly hint?: string,
  ) {
    super(message);
    this.name = "UserError";
  }
}

export class InternalError extends Error {
  readonly exitCode = 2;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "InternalError";
  }
}

/** The one hint for a full disk, whoever found it full (nudge, git, SQLite). */
export const DISK_FULL_HINT = "free some disk space, then run the command again";

/**
 * A full disk, from an error or another program's words: the OS's errno, git passing on
 * "No space left on device", SQLite's SQLITE_FULL ("database or disk is full").
 */
export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ENOSPC" || code === "EDQUOT" || code === "SQLITE_FULL") return true;
  const text = typeof error === "string" ? error : error instanceof Error ? error.message : "";
  return /No space left on device|Disk quota exceeded|database or disk is full/.test(text);
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The same failure with what was being done in front of it, keeping its kind: the user's problem
 * stays the user's (a UserError, or what the machine refused, by its errno code), anything else is
 * a bug.
 */
export function inContext(error: unknown, doing: string): Error {
  if (error instanceof UserError) return new UserError(`${doing}: ${error.message}`, error.hint);
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code === "string" && /^E[A-Z]+$/.test(code)) {
    return Object.assign(new Error(`${doing}: ${errorMessage(error)}`), {
      code,
      syscall: (error as NodeJS.ErrnoException).syscall,
    });
  }
  return new InternalError(`${doing}: ${errorMessage(error)}`, { cause: error });
}
