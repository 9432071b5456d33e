/**
 * Answers and request bodies: JSON out, bounded JSON in, and the one place an error becomes a
 * status and `{ error, hint }` (a UserError's message and hint; anything else is nudge's bug, and
 * only its first line is shown).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import * as z from "../../base/zod.js";
import { UserError, errorMessage } from "../../base/errors.js";
import { NoSuchTurn } from "../../store/turn-lookup.js";
import { NoSuchSession } from "../../store/store.js";

/** An answer with its own status (404, 405, 409, 413…). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly hint: string,
    /** Extra fields of the answer (a 409's fresh plan). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** Action bodies are a few small fields; anything bigger is not from the page. */
/** Room for the longest prompt (32,000 characters) even when every one is sent as a 6-byte `\uXXXX` escape. */
const MAX_BODY = 256 * 1024;
const BODY_MS = 10_000;

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "no-store",
    "Content-Length": Buffer.byteLength(body),
  });
  res.end(body);
}

export function sendError(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const { status, body } = errorAnswer(error);
  sendJson(res, status, body);
}

function errorAnswer(error: unknown): { status: number; body: Record<string, unknown> } {
  if (error instanceof HttpError)
    return { status: error.status, body: { error: error.message, hint: error.hint, ...error.extra } };
  if (error instanceof UserError) {
    // The id matched no session (or several), or the session has no such turn: the thing asked for is not there.
    if (error instanceof NoSuchSession)
      return { status: 404, body: { error: error.message, hint: error.hint ?? "", matches: error.matches } };
    return { status: error instanceof NoSuchTurn ? 404 : 400, body: { error: error.message, hint: error.hint ?? "" } };
  }
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const line = errorMessage(error).split("\n")[0]!;
  if (typeof code === "string" && /^E[A-Z]+$/.test(code))
    return {
      status: 500,
      body: { error: line, hint: "check the permissions and free space of the repository's .git folder" },
    };
  return {
    status: 500,
    body: { error: `nudge bug: ${line}`, hint: "run the same with the CLI to see more, and report it" },
  };
}

/** The request's JSON body, at most MAX_BODY bytes and BODY_MS long, checked by `schema`. */
/** `labels`: what the page calls a field (its form's label), so a bad value reads as the form's words, not the API's. */
export async function readJsonBody<T extends z.core.$ZodType>(
  req: IncomingMessage,
  schema: T,
  labels: Record<string, string> = {},
): Promise<z.infer<T>> {
  const type = req.headers["content-type"] ?? "";
  if (!/^application\/json\b/i.test(type))
    throw new HttpError(415, "the body must be JSON (content-type: application/json)", "send the action's JSON body");
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > MAX_BODY) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  const text = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new HttpError(408, "the request body took too long", "send it again")),
      BODY_MS,
    );
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        clearTimeout(timer);
        reject(tooLarge());
        req.pause();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
    req.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new HttpError(400, "the body is not valid JSON", "send the action's JSON body");
  }
  return parseInput(schema, json, "body", labels);
}

/** Parameters from the URL or the body, checked: a bad one is a 400 naming it. */
export function parseInput<T extends z.core.$ZodType>(
  schema: T,
  value: unknown,
  what: string,
  labels: Record<string, string> = {},
): z.infer<T> {
  const parsed = z.safeParse(schema, value);
  if (parsed.success) return parsed.data;
  if (value === undefined) throw new HttpError(400, `${what} is missing`, "see the API in docs/reference/http-api.md");
  const issue = parsed.error.issues[0]!;
  const label = labels[String(issue.path[0])];
  if (label) throw new HttpError(400, `${label}: ${issue.message}`, "correct it and try again");
  const where = issue.path.length ? `${what}.${issue.path.map(String).join(".")}` : what;
  throw new HttpError(400, `invalid ${where}: ${issue.message}`, "see the API in docs/reference/http-api.md");
}

function tooLarge(): HttpError {
  return new HttpError(
    413,
    `the request body is larger than ${MAX_BODY / 1024} KB`,
    "action bodies are a few fields and a prompt of up to 32,000 characters",
  );
}
