/**
 * Whether a name (a variable, a YAML or JSON key, an env name) names a secret, by its whole parts:
 * `dbPassword`, `SECRET_KEY_BASE`, `api-key`, `client_secret` do; `author`, `sort_key`,
 * `monkey_name`, `keyboardLayout`, `cache_key`, `max_tokens`, `token_type` do not.
 *
 * The name is split at `_`, `-`, `.`, spaces and camelCase humps. It names a secret when its last
 * noun of a secret kind is followed only by parts that say how the secret is stored (`base`,
 * `data`, `value`, …). `key` is a secret (`api_key`, `app_key`, `STRIPE_KEY`) unless the part
 * before it makes it a name: a sort key, a cache key, a primary key.
 */

/** Parts that are a secret by themselves. */
const SECRET_PARTS = new Set([
  "password",
  "passwd",
  "pwd",
  "passphrase",
  "passcode",
  "secret",
  "secrets",
  "token",
  "credential",
  "credentials",
  "creds",
  "apikey",
  "auth",
  "pass",
  "pw",
  "privatekey",
  "secretkey",
  "accesskey",
  "authtoken",
  "accesstoken",
  "sas",
]);
/** What makes `key` a name, not a secret, when it comes just before: a sort key, a cache key, a primary key. */
const NAME_KEYS = new Set([
  "sort",
  "cache",
  "primary",
  "foreign",
  "partition",
  "public",
  "pub",
  "object",
  "idempotency",
  "lookup",
  "map",
  "hash",
  "group",
  "routing",
  "shard",
  "row",
  "column",
  "composite",
  "unique",
  "natural",
  "sequence",
  "schema",
  "bucket",
  "dedupe",
  "dedup",
  "translation",
  "i18n",
  "locale",
  "message",
  "dict",
  "react",
  "list",
  "item",
  "state",
  "query",
  "short",
  "shortcut",
  "hot",
  "music",
  "musical",
  "index",
  "table",
  "sorting",
  "order",
  "cursor",
  "page",
  "next",
  "range",
  "join",
  "parent",
  "child",
  "entity",
  "record",
  "field",
  "meta",
  "metadata",
  "config",
  "setting",
  "settings",
  "option",
  "s3",
  "file",
  "path",
  "event",
  "redis",
  "kv",
  "registry",
  "dns",
  "idem",
  "dictionary",
  "enum",
  "property",
  "prop",
  "attr",
  "attribute",
  "json",
  "yaml",
  "variable",
  "var",
  "tree",
  "node",
  "nav",
  "menu",
  "tab",
  "route",
  "router",
  "context",
  "store",
  "memo",
  "track",
  "mode",
  "layout",
]);
/** A name written as one word (`PGPASSWORD`, `githubtoken`): the long nouns no other word ends with. */
const JOINED_NOUN = /(?:password|passwd|passphrase|secret|token|apikey|accesskey|secretkey|privatekey)$/;
/** What may follow the secret's noun: how it is stored, not another thing. */
const STORAGE_PARTS = new Set([
  "base",
  "data",
  "value",
  "val",
  "b64",
  "base64",
  "hex",
  "str",
  "string",
  "raw",
  "enc",
  "encoded",
  "text",
  "plain",
  "plaintext",
  "pem",
  "env",
  "file",
  "contents",
  "content",
  "old",
  "new",
  "current",
  "prev",
  "previous",
  "next",
  "1",
  "2",
  "v1",
  "v2",
  "hash",
  "salt",
]);

/** `dbPassword` → [db, password]; `SECRET_KEY_BASE` → [secret, key, base]; `client-key-data` → [client, key, data]. */
function nameParts(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((p) => p !== "");
}

export function isSecretName(name: string): boolean {
  const parts = nameParts(name);
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i]!;
    const noun =
      SECRET_PARTS.has(part) ||
      JOINED_NOUN.test(part) ||
      ((part === "key" || part === "keys") && (i === 0 || !NAME_KEYS.has(parts[i - 1]!)));
    if (!noun) {
      if (!STORAGE_PARTS.has(part)) return false;
      continue;
    }
    return true;
  }
  return false;
}

/** The whole name around a keyword found at [start, end): back and forward over name characters (bounded). */
export function nameAround(text: string, start: number, end: number): string {
  let from = start;
  while (from > 0 && start - from < 64 && /[\w.-]/.test(text[from - 1]!)) from--;
  let to = end;
  while (to < text.length && to - end < 64 && /[\w.-]/.test(text[to]!)) to++;
  return text.slice(from, to);
}
