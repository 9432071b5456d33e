/**
 * Secrets in the history an export carries. When the session's base commit (or a commit Claude
 * made) is on no remote-tracking branch, the git bundle carries it with the history it needs,
 * since the teammate may not have it: every file of it travels, not only what the session
 * changed. Like the session's own code, none of it can be masked (the teammate's clone must get
 * the very commits), so a secret in it refuses the export the same way.
 *
 * What is read is exactly what the bundle packs: the objects `<carried commits> --not --remotes`
 * reaches (git-objects.ts), streamed, less the blobs the scan of the session's changes already
 * read. Every commit's text (author, committer, message), every name in every packed tree, and
 * the content of every packed blob (a symbolic link's target included) is scanned; binaries and
 * files over 8 MiB are left unread, as in the session's code.
 */
import { eachObject, packedObjects, treeEntries } from "../snapshot/git-objects.js";
import { EXPORT_IN_CODE, MAX_SCANNED, isBinary, isExport, type CodeSecret } from "./code-secrets.js";
import { SecretBatch } from "../secrets/secret-batch.js";

type Item = { in: CodeSecret["in"]; path: string };

export async function scanCarried(root: string, commits: string[], alreadyScanned: Set<string>): Promise<CodeSecret[]> {
  const objects = await packedObjects(root, commits);
  if (objects.length === 0) return [];
  const idBytes = objects[0]!.id.length / 2;
  const wanted = objects.filter((o) => o.type !== "blob" || (o.size <= MAX_SCANNED && !alreadyScanned.has(o.id)));
  // Where each tree and blob sits, learnt from the trees above it: git's walk lists a tree before what it holds.
  const treePath = new Map<string, string>();
  const blobAt = new Map<string, Item>();
  const found: CodeSecret[] = [];
  const seen = new Set<string>();
  const report = (kind: string, item: Item) => {
    const key = `${item.path}\0${item.in}\0${kind}`;
    if (!seen.has(key)) found.push({ kind, path: item.path, in: item.in, turn: null, patch: null });
    seen.add(key);
  };
  const batch = new SecretBatch<Item>((item, spans) => spans.forEach((s) => report(s.kind, item)));
  await eachObject(
    root,
    wanted.map((o) => o.id),
    async (id, type, content) => {
      if (type === "commit") {
        const text = content.toString("utf8");
        const root = /^tree ([0-9a-f]+)$/m.exec(text)?.[1];
        if (root && !treePath.has(root)) treePath.set(root, "");
        // The tree and parent lines are ids; the rest (who, when, the message) is text a person wrote.
        await batch.add({ in: "message", path: id }, text.replace(/^(tree|parent) [0-9a-f]+\n/gm, ""));
      } else if (type === "tree") {
        const base = treePath.get(id) ?? "";
        for (const entry of treeEntries(content, idBytes)) {
          const path = base ? `${base}/${entry.name}` : entry.name;
          if (entry.mode === "40000") {
            if (!treePath.has(entry.id)) treePath.set(entry.id, path);
          } else if (!blobAt.has(entry.id))
            blobAt.set(entry.id, { in: entry.mode === "120000" ? "link target" : "content", path });
          await batch.add({ in: "name", path }, entry.name);
        }
      } else if (type === "blob") {
        const item = blobAt.get(id) ?? { in: "content", path: id };
        if (isExport(content)) report(EXPORT_IN_CODE, item);
        else if (!isBinary(content)) await batch.add(item, content.toString("utf8"));
      }
    },
  );
  await batch.flush();
  return found.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
}
