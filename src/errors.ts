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

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
