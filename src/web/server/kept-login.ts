/**
 * What a restart of `nudge web` keeps, so a page left open reconnects and catches up on its own:
 * the token (the page's cookie stays valid), the CSRF token (its actions still work) and the port
 * (its event stream finds the server again). Kept in the store, readable by the user alone; a
 * missing or unreadable file means fresh ones. Delete it for a new token.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import * as z from "../../base/zod.js";
import type { Store } from "../../store/store.js";
import { ensureDir, writeFileAtomic } from "../../store/atomic-write.js";

const secret = z.string().check(z.regex(/^[A-Za-z0-9_-]{43}$/));
const KeptSchema = z.object({ token: secret, csrf: secret, port: z.int().check(z.gte(1), z.lte(65535)) });
export type KeptLogin = z.infer<typeof KeptSchema>;

const keptLoginFile = (store: Store) => path.join(store.dir, "web-login.json");

export async function readKeptLogin(store: Store): Promise<KeptLogin | null> {
  const text = await fs.readFile(keptLoginFile(store), "utf8").catch(() => null);
  if (text === null) return null;
  try {
    const parsed = KeptSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export async function keepLogin(store: Store, login: KeptLogin): Promise<void> {
  await ensureDir(store.dir);
  await writeFileAtomic(keptLoginFile(store), JSON.stringify(login) + "\n", 0o600);
}
