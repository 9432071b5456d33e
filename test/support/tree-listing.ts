/**
 * Compare a work tree with a recorded git tree file for file — mode, symlink target, content —
 * computed from the disk directly (not through git add), so the check is independent of nudge.
 */
import { execa } from "execa";
import { createHash } from "node:crypto";
import { lstatSync, readFileSync, readdirSync, readlinkSync } from "node:fs";
import path from "node:path";

export type Listing = Record<string, string>; // path → "mode blob-id"

function blobId(content: Buffer, format: string): string {
  return createHash(format).update(`blob ${content.length}\0`).update(content).digest("hex");
}

export async function treeListing(repo: string, tree: string): Promise<Listing> {
  const { stdout } = await execa("git", ["ls-tree", "-r", "-z", tree], { cwd: repo });
  const listing: Listing = {};
  for (const entry of stdout.split("\0").filter(Boolean)) {
    const [meta, file] = entry.split("\t") as [string, string];
    const [mode, , id] = meta.split(" ");
    listing[file] = `${mode} ${id}`;
  }
  return listing;
}

export async function workTreeListing(repo: string): Promise<Listing> {
  const ignored = new Set(
    (
      await execa("git", ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"], {
        cwd: repo,
      })
    ).stdout
      .split("\0")
      .filter(Boolean)
      .map((p) => p.replace(/\/$/, "")),
  );
  const format = (await execa("git", ["rev-parse", "--show-object-format"], { cwd: repo })).stdout.trim(); // sha1 or sha256
  const listing: Listing = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(path.join(repo, dir))) {
      const rel = dir ? `${dir}/${name}` : name;
      if (rel === ".git" || ignored.has(rel)) continue;
      const full = path.join(repo, rel);
      const stat = lstatSync(full);
      if (stat.isSymbolicLink()) listing[rel] = `120000 ${blobId(Buffer.from(readlinkSync(full)), format)}`;
      else if (stat.isDirectory()) walk(rel);
      else listing[rel] = `${stat.mode & 0o111 ? "100755" : "100644"} ${blobId(readFileSync(full), format)}`;
    }
  };
  walk("");
  return listing;
}
