/**
 * A bundle's conversation stream as a user gets it back by hand: `zcat` of conversation.d's
 * pieces in the order their names give, then conversation.jsonl (see src/store/conversation-pieces.ts).
 * Read here without nudge's reader, so a test of that reader is not checked against itself.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";

const PIECE = /^(\d+)-(\d+)\.(\d+)-(\d+)\.jsonl(\.gz)?$/;

/** The pieces' names, in stream order (a plain piece with its .gz beside it counted once). */
export function pieceNames(bundle: string): string[] {
  const folder = path.join(bundle, "conversation.d");
  if (!existsSync(folder)) return [];
  const names = readdirSync(folder).filter(
    (n) => PIECE.test(n) && !(!n.endsWith(".gz") && existsSync(path.join(folder, `${n}.gz`))),
  );
  return names.sort((a, b) => Number(PIECE.exec(a)![3]) - Number(PIECE.exec(b)![3]));
}

export function readStreamOf(bundle: string): Buffer {
  const folder = path.join(bundle, "conversation.d");
  const parts = pieceNames(bundle).map((n) =>
    n.endsWith(".gz") ? gunzipSync(readFileSync(path.join(folder, n))) : readFileSync(path.join(folder, n)),
  );
  const live = path.join(bundle, "conversation.jsonl");
  if (existsSync(live)) parts.push(readFileSync(live));
  return Buffer.concat(parts);
}

/** Replace the stream (a test damaging it): kept whole in conversation.jsonl, as a bundle from before pieces. */
export function writeStreamOf(bundle: string, bytes: Buffer | string): void {
  rmSync(path.join(bundle, "conversation.d"), { recursive: true, force: true });
  writeFileSync(path.join(bundle, "conversation.jsonl"), bytes);
}
