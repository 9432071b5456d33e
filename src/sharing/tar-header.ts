/**
 * Which tar headers an import accepts: a regular file or a folder, with an intact checksum, a
 * size, and a name inside the archive's top folder that nudge would write (archive-path.ts).
 * Everything else is refused, saying what it is.
 */
import { Header } from "tar";
import { isEntryPath } from "./archive-path.js";
import { Refusal } from "./limits.js";

/** The tar library throws on a numeric field it cannot read (a bad base-256 lead byte): a damaged header. */
function parse(block: Buffer): Header {
  try {
    return new Header(block);
  } catch (error) {
    throw new Refusal(`it has a damaged tar header (${(error as Error).message})`);
  }
}

/** Decode a header; only a regular file or a folder, with an intact checksum and a size, passes. */
export function decode(block: Buffer): Header {
  const header = parse(block);
  if (!header.cksumValid) throw new Refusal("it has a damaged tar header (checksum mismatch)");
  const name = quote(header.path);
  switch (header.typeKey) {
    case "0":
    case "":
      break;
    case "5":
      return header;
    case "1":
      throw new Refusal(`entry ${name} is a hard link`);
    case "2":
      throw new Refusal(`entry ${name} is a symbolic link`);
    case "3":
    case "4":
      throw new Refusal(`entry ${name} is a device`);
    case "6":
      throw new Refusal(`entry ${name} is a FIFO`);
    case "x":
    case "g":
    case "L":
    case "K":
      throw new Refusal(`it has an extended (pax or GNU) header, which nudge never writes`);
    default:
      throw new Refusal(`entry ${name} is of tar type ${JSON.stringify(header.typeKey)}, not a regular file`);
  }
  if (header.size === undefined || !Number.isSafeInteger(header.size))
    throw new Refusal(`entry ${name} has a damaged size`);
  return header;
}

/** The entry's path inside the top folder, or a refusal saying what is wrong with it. */
export function checkedPath(header: Header, top: string): string {
  const name = header.path ?? "";
  const full = header.type === "Directory" ? name.replace(/\/$/, "") : name;
  if (full.startsWith("/") || /^[A-Za-z]:/.test(full)) throw new Refusal(`entry ${quote(name)} has an absolute path`);
  if (full.split(/[/\\]/).includes("..")) throw new Refusal(`entry ${quote(name)} climbs out of the archive (..)`);
  if (!full.startsWith(`${top}/`) && full !== top)
    throw new Refusal(`entry ${quote(name)} is outside the archive's top folder ${top || "(none)"}`);
  const relative = full === top ? "" : full.slice(top.length + 1);
  if (!top || (relative !== "" && !isEntryPath(relative)) || (relative === "" && header.type !== "Directory")) {
    throw new Refusal(`entry ${quote(name)} has a name nudge never writes`);
  }
  return relative;
}

export function isZero(block: Buffer): boolean {
  return block.every((b) => b === 0);
}

/** A name from the archive as it can be shown on one line: quoted, control bytes escaped. */
export function quote(name: string | undefined): string {
  return JSON.stringify(name ?? "");
}
