/**
 * The refusal of an export whose code holds a secret, worded for what the user can do: a secret
 * a turn brought is left out by exporting the turns before it; one in history the export carries
 * (a base commit on no remote) is left out by pushing that history, so the bundle builds on it.
 */
import { UserError } from "../base/errors.js";
import { unreachedFromRemotes } from "../snapshot/git-objects.js";
import { EXPORT_IN_CODE, type CodeSecret } from "./code-secrets.js";
import type { ExportPlan } from "./export-plan.js";

export function codeSecretError(
  secrets: CodeSecret[],
  carried: string[],
  verb: "export" | "publish" = "export",
): UserError {
  const exported = secrets.find((s) => s.kind === EXPORT_IN_CODE && s.turn !== null);
  if (exported) {
    return new UserError(
      `an export of a session is in the code changes: ${exported.path} in turn ${exported.turn}; it would travel inside this one, with whatever it holds`,
      `${exported.turn! > 0 ? `${verb} the turns before it (--upto ${exported.turn! - 1}), or ` : ""}pass --allow-secrets-in-code to ${verb} the code as it is`,
    );
  }
  const inTurns = secrets.filter((s) => s.turn !== null);
  const listed = inTurns.length ? inTurns : secrets;
  const [first] = listed as [CodeSecret, ...CodeSecret[]];
  const more =
    listed.length > 1
      ? ` (and ${listed.length - 1} more: ${listed.slice(1, 4).map(describeCodeSecret).join(", ")}${listed.length > 4 ? ", …" : ""})`
      : "";
  const what = first.kind === EXPORT_IN_CODE ? "an export of a session" : `a secret (${first.kind})`;
  if (inTurns.length) {
    const earlier = Math.min(...inTurns.map((s) => s.turn!)) - 1;
    return new UserError(
      `${what} is in the code changes: ${describeCodeSecret(first)}${more}; code cannot be masked`,
      `${earlier >= 0 ? `${verb} the turns before it (--upto ${earlier}), or ` : ""}pass --allow-secrets-in-code to ${verb} the code as it is`,
    );
  }
  // Only the carried history holds one: the teammate lacks those commits, so they would travel whole.
  return new UserError(
    `${what} is in the history this ${verb === "export" ? "export" : "publication"} carries: ${describeCodeSecret(first)}${more}; it travels because ${carried.join(" and ") || "a commit it needs"} ${carried.length > 1 ? "are" : "is"} on no remote-tracking branch here, and code cannot be masked`,
    `push that history first (git push), so the ${verb === "export" ? "export" : "publication"} builds on it instead of carrying it; or remove the secret from it; or pass --allow-secrets-in-code to ${verb} the code as it is`,
  );
}

/** The base and HEADs the bundle carries, as the user knows them: the base commit 1a2b3c4d5e, the HEAD of turn 2 (…). */
export async function carriedOf(root: string, reach: ExportPlan["reach"]): Promise<string[]> {
  const carried = await unreachedFromRemotes(
    root,
    reach.map((r) => r.commit),
  );
  return reach
    .filter((r) => carried.has(r.commit))
    .map((r) =>
      r.turn === null
        ? `the base commit ${r.commit.slice(0, 10)}`
        : `the HEAD of turn ${r.turn} (${r.commit.slice(0, 10)})`,
    );
}

/** Where a secret in the code is: `app/.env in turn 2`, `the name of keys/AKIA… in turn 1`, `the message of commit 1a2b3c4d5e`. */
export function describeCodeSecret(s: CodeSecret): string {
  const where =
    s.in === "message"
      ? `the message of commit ${s.path.slice(0, 10)}`
      : s.in === "name"
        ? `the name ${s.path}`
        : s.in === "link target"
          ? `the target of the link ${s.path}`
          : s.path;
  return s.turn === null ? where : `${where} in turn ${s.turn}`;
}
