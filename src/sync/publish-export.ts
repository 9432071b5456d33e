/**
 * What a publication is made of, from the export as `session export` wrote it: the card (every
 * field from the export, so masked as it is) and the export's size and sha256.
 */
import { createReadStream, promises as fs } from "node:fs";
import { createHash } from "node:crypto";
import { Header } from "tar";
import { ManifestHeaderSchema } from "../store/manifest-schema.js";
import type { ExportResult } from "../sharing/export-session.js";
import { CARD_FORMAT, CARD_KIND, type Card } from "./published-card.js";
import { nudgeVersion } from "../base/version.js";

/** The card: everything in it comes from the export as written (so it is masked as the export is). */
export async function cardOf(
  tar: string,
  exported: ExportResult,
  o: Pick<Card, "id" | "session" | "forkOf" | "data" | "bytes" | "sha256">,
): Promise<Card> {
  const manifestBytes = await tarEntry(tar, `nudge-${o.session}/session/manifest.json`);
  const header = manifestBytes ? ManifestHeaderSchema.parse(JSON.parse(manifestBytes.toString("utf8"))) : null;
  const by = exported.index.exported.by;
  const author = by.name || by.email ? `${by.name ?? "(no name)"}${by.email ? ` <${by.email}>` : ""}` : null;
  const cut = (s: string | null | undefined) => (s == null ? null : s.slice(0, 300));
  return {
    kind: CARD_KIND,
    format: CARD_FORMAT,
    ...o,
    author: author && author.slice(0, 600),
    branch: cut(header?.repo.branch),
    turns: exported.turns,
    lastTurnAt: exported.index.exported.at,
    firstPrompt: cut(header?.summary.firstPrompt),
    lastPrompt: cut(header?.summary.lastPrompt),
    publishedAt: exported.index.exported.writtenAt ?? new Date().toISOString(),
    nudgeVersion: nudgeVersion(),
  };
}

/**
 * The commits a published export builds on, as its index lists them (its git bundle's
 * prerequisites): the only pins a pull may fetch. Read from the index, the tar's first entry, at
 * most 1 MiB; anything unreadable lists none (the import then refuses the export itself).
 */
export async function exportPrerequisites(tar: string): Promise<string[]> {
  const index = await tarEntry(tar, (name) => /^[^/]+\/nudge-export\.json$/.test(name), {
    first: true,
    maxBytes: 1024 * 1024,
  });
  try {
    const git = (
      JSON.parse(index?.toString("utf8") ?? "null") as { git?: { prerequisites?: Array<{ commit?: unknown }> } } | null
    )?.git;
    const commits = Array.isArray(git?.prerequisites) ? git.prerequisites.map((p) => p?.commit) : [];
    return commits.filter((c): c is string => typeof c === "string" && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(c));
  } catch {
    return [];
  }
}

/**
 * What is wrong with the start of a published export (null: nothing): a tar's first header must be
 * one the tar library reads, before anything else reads the file. A gzip is left to the import,
 * which inflates it and checks every header as it does any export's.
 */
export async function tarStartProblem(tar: string): Promise<string | null> {
  const handle = await fs.open(tar, "r");
  try {
    const block = Buffer.alloc(512);
    const { bytesRead } = await handle.read(block, 0, 512, 0);
    if (block[0] === 0x1f && block[1] === 0x8b) return null;
    if (bytesRead < 512) return "it is shorter than one tar header";
    if (block.subarray(257, 262).toString("latin1") !== "ustar")
      return "it is not a tar archive (its first block has no ustar header)";
    try {
      if (!new Header(block).cksumValid) return "its first tar header is damaged (checksum mismatch)";
    } catch (error) {
      return `its first tar header is damaged (${(error as Error).message})`;
    }
    return null;
  } finally {
    await handle.close();
  }
}

/** A tar header as the tar library reads it, or null where it refuses the block (a field it cannot parse). */
function parsedHeader(block: Buffer): Header | null {
  try {
    return new Header(block);
  } catch {
    return null;
  }
}

/** One entry of an uncompressed tar, found by walking its headers (`first`: only the first entry is looked at). */
async function tarEntry(
  file: string,
  name: string | ((name: string) => boolean),
  o: { first?: boolean; maxBytes?: number } = {},
): Promise<Buffer | null> {
  const wanted = typeof name === "string" ? (n: string) => n === name : name;
  const handle = await fs.open(file, "r");
  try {
    const block = Buffer.alloc(512);
    for (let at = 0; ;) {
      if ((await handle.read(block, 0, 512, at)).bytesRead < 512 || block.every((b) => b === 0)) return null;
      const header = parsedHeader(block);
      if (!header) return null;
      const size = header.size ?? 0;
      if (header.path !== undefined && wanted(header.path)) {
        if (size > (o.maxBytes ?? Infinity)) return null;
        const content = Buffer.alloc(size);
        await handle.read(content, 0, size, at + 512);
        return content;
      }
      if (o.first) return null;
      at += 512 + Math.ceil(size / 512) * 512;
    }
  } finally {
    await handle.close();
  }
}

export async function measureFile(file: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest("hex") };
}
