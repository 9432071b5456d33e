/**
 * Each detection added beside secretlint's preset, with a value generated for the test: key-like
 * names by whole parts, the providers' formats, PuTTY keys, base64-wrapped keys and secrets,
 * passwords in prose, Discord bot tokens. The corpus (fixtures/secrets/) measures them together;
 * these say which detection finds what, and what each leaves alone.
 */
import { randomBytes, randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import { detectSecrets } from "../../src/secrets/secret-detect.js";
import { isSecretName } from "../../src/secrets/secret-names.js";
import { GITLEAKS_RULES } from "../../src/secrets/gitleaks-rules.js";
import { PortedRules } from "../../src/secrets/ported-rules.js";
import { PROVIDER_RULES } from "../../src/secrets/provider-rules.js";
import { RULE_PREFILTERS } from "../../src/secrets/rule-prefilters.js";
import { loadCorpus } from "../support/secret-corpus.js";

const pick = (chars: string, n: number) => Array.from({ length: n }, () => chars[randomInt(chars.length)]).join("");
const HEX = "0123456789abcdef";
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** The secret texts detectSecrets finds in `text`. */
async function found(text: string): Promise<string[]> {
  return (await detectSecrets(text)).map((s) => text.slice(s.start, s.end));
}

describe("key-like names, by whole parts", () => {
  it.each([
    "api_key",
    "SECRET_KEY_BASE",
    "dbPassword",
    "app_key",
    "client-key-data",
    "AWS_SECRET_ACCESS_KEY",
    "PGPASSWORD",
    "githubToken",
    "key",
    "x-api-key",
    "STRIPE_KEY",
  ])("%s names a secret", (name) => {
    expect(isSecretName(name)).toBe(true);
  });
  it.each([
    "author",
    "sort_key",
    "monkey_name",
    "keyboardLayout",
    "cache_key",
    "primaryKey",
    "max_tokens",
    "token_type",
    "private_key_id",
    "tokenizer",
    "passwordHint",
  ])("%s does not", (name) => {
    expect(isSecretName(name)).toBe(false);
  });

  it("masks a random value after a secret's name, and leaves the same value after a name that only contains a keyword", async () => {
    const value = pick(ALNUM, 20) + "7Qz";
    for (const line of [`api_key: ${value}`, `dbPassword = "${value}"`]) expect(await found(line)).toEqual([value]);
    for (const line of [
      `author: ${value}`,
      `sort_key = "${value}"`,
      `monkey_name: ${value}`,
      `keyboardLayout: "${value}"`,
      `cache_key: ${value}`,
    ])
      expect(await found(line)).toEqual([]);
  });

  it("masks a hex value after a secret's name (SECRET_KEY_BASE=, YAML app_key:), not after a hash's", async () => {
    const hex = pick(HEX, 128);
    expect(await found(`SECRET_KEY_BASE=${hex}`)).toEqual([hex]);
    expect(await found(`  app_key: ${hex.slice(0, 32)}`)).toEqual([hex.slice(0, 32)]);
    expect(await found(`commit: ${hex.slice(0, 40)}\ncache_key: ${hex.slice(0, 64)}`)).toEqual([]);
  });
});

describe("formats", () => {
  it("every ported and provider rule compiles in re2js", () => {
    expect(() => new PortedRules([...GITLEAKS_RULES, ...PROVIDER_RULES]).compileAll()).not.toThrow();
    expect(GITLEAKS_RULES.length).toBeGreaterThan(200);
  });

  it("the rules' prefilters skip only windows their rule finds nothing in (the corpus, with and without them)", () => {
    const ids = new Set([...GITLEAKS_RULES, ...PROVIDER_RULES].map((r) => r.id));
    expect(Object.keys(RULE_PREFILTERS).filter((id) => !ids.has(id))).toEqual([]);
    const { secrets, lookalikes } = loadCorpus();
    const texts = [...secrets, ...lookalikes].map((s) => s.text);
    const withThem = new PortedRules([...GITLEAKS_RULES, ...PROVIDER_RULES]);
    const without = new PortedRules([...GITLEAKS_RULES, ...PROVIDER_RULES], {});
    for (const text of texts) expect(withThem.findings(text)).toEqual(without.findings(text));
    const hit = new Set(texts.flatMap((t) => without.findings(t).map((f) => f.kind)));
    expect(Object.keys(RULE_PREFILTERS).filter((id) => hit.has(id)).length).toBeGreaterThanOrEqual(8);
  });

  it("a Kubernetes Secret's data is found with its prefilter as without, `kind` before `data` or after", () => {
    const rules = GITLEAKS_RULES.filter((r) => r.id === "kubernetes-secret-yaml");
    const value = Buffer.from(pick(ALNUM, 24)).toString("base64");
    // The last spells `kind` with a Kelvin sign, which RE2's (?i) reads as k.
    for (const yaml of [
      `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: ${value}\n`,
      `data:\n  password: ${value}\nkind: 'secret'\n`,
      `a\u212Aind: Secret\ndata:\n  password: ${value}\n`,
    ]) {
      const spans = new PortedRules(rules).findings(yaml);
      expect(spans.map((s) => yaml.slice(s.start, s.end))).toEqual([`password: ${value}`]);
      expect(spans).toEqual(new PortedRules(rules, {}).findings(yaml));
    }
  });

  it("a Slack app token is masked whole, its 64-hex tail included", async () => {
    const token = `xapp-1-A${pick("ABCDEFGHIJ0123456789", 10)}-${pick("0123456789", 13)}-${pick(HEX, 64)}`;
    expect(await found(`connect with ${token} in socket mode`)).toEqual([token]);
  });

  it("an Azure SAS URL's sig=", async () => {
    const sig = `${pick(ALNUM, 30)}%2B${pick(ALNUM, 12)}%3D`;
    expect((await found(`https://acme.blob.core.windows.net/b/db.bak?sv=2022-11-02&sp=r&sig=${sig}`)).join()).toContain(
      sig,
    );
  });

  it("a Sentry DSN's key, not its host", async () => {
    const key = pick(HEX, 32);
    expect(
      await found(`dsn: "https://${key}@o${pick("0123456789", 6)}.ingest.us.sentry.io/${pick("0123456789", 7)}"`),
    ).toEqual([key]);
  });

  it("every provider rule finds a generated value of the corpus", async () => {
    const rules = new PortedRules(PROVIDER_RULES);
    const { secrets } = loadCorpus(7);
    const ids = new Set(secrets.flatMap((s) => rules.findings(s.text).map((f) => f.kind)));
    // Rules whose format the corpus writes another way (found there by another detection) are named here.
    const notInCorpus = [
      "google-oauth-refresh-token",
      "firebase-cloud-messaging-key",
      "new-relic-insert-key",
      "atlassian-connect-token",
      "azure-connection-string-key",
      "connection-string-password",
      "render-api-key",
      "buildkite-token",
      "circleci-token",
      "vercel-token",
      "deno-deploy-token",
      "twilio-auth-token",
      "xai-api-key",
    ];
    expect(PROVIDER_RULES.map((r) => r.id).filter((id) => !ids.has(id) && !notInCorpus.includes(id))).toEqual([]);
  });

  it("a long one-line text (minified code, a base64 blob): every hit found, as in the same text in lines", () => {
    // Its speed against the same text in lines is a row of bench/secret-scan-bench.ts.
    const rules = new PortedRules([...GITLEAKS_RULES, ...PROVIDER_RULES]);
    const oneLine = "id AKIAQYLPMN5HHHFPZAM2, the secret api_key=getKey() ".repeat(2000);
    expect(rules.findings(oneLine)).toHaveLength(2000);
    expect(rules.findings(oneLine.replaceAll(", ", ",\n"))).toHaveLength(2000);
  });
});

describe("blocks", () => {
  it("a PuTTY key file, from its first line to its MAC", async () => {
    const priv = pick(ALNUM, 64);
    const ppk = `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: key\nPublic-Lines: 1\nAAAAC3NzaC1lZDI1NTE5AAAAI${pick(ALNUM, 43)}\nPrivate-Lines: 1\n${priv}\nPrivate-MAC: ${pick(HEX, 64)}`;
    const spans = await found(`before\n${ppk}\nafter`);
    expect(spans).toEqual([ppk]);
  });

  it("a kubeconfig's client-key-data: base64 of a private key, decoded and masked whole; the certificate left", async () => {
    const key = Buffer.from(
      `-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA${randomBytes(600).toString("base64")}\n-----END RSA PRIVATE KEY-----\n`,
    ).toString("base64");
    const cert = Buffer.from(
      `-----BEGIN CERTIFICATE-----\nMIIC${randomBytes(300).toString("base64")}\n-----END CERTIFICATE-----\n`,
    ).toString("base64");
    expect(await found(`    client-certificate-data: ${cert}\n    client-key-data: ${key}`)).toEqual([key]);
  });

  it("a secret inside base64'd text (a .env in a CI variable); other base64 left", async () => {
    const env = Buffer.from(`STRIPE_SECRET=sk_live_${pick(ALNUM, 24)}\nDB_HOST=db\n`).toString("base64");
    expect(await found(`ENV_FILE=${env}`)).toEqual([env]);
    expect(await found(`data: ${randomBytes(300).toString("base64")}`)).toEqual([]);
  });

  it("a 10 MB run of base64 characters (an image, a hostile tool output) is passed over, not a crash", async () => {
    expect(await found("A".repeat(10 * 1024 * 1024) + " done")).toEqual([]);
  });

  it.each([
    ["the password is {p}", "hunter2x!"],
    ["ok so the password for the staging db: {p}.", "Tr0ub4dor&3"],
    ["pw was {p}, rotate it", "s3cr3t-Pa55"],
  ])("a password stated in prose: %s", async (template, password) => {
    expect(await found(template.replace("{p}", password))).toEqual([password]);
  });

  it.each([
    "the password is stored in the vault",
    "the password is required and must be at least 12 characters",
    "password: ${{ secrets.DB_PASSWORD }}",
    "reset the password at https://acme.example/reset",
    "the password is hash(pw1)",
  ])("prose about a password is not one: %s", async (text) => {
    expect(await found(text)).toEqual([]);
  });

  it("a Discord bot token: its first part must be a user id in base64", async () => {
    const tail = `${pick(ALNUM, 6)}.${pick(ALNUM + "_-", 38)}`;
    const token = `${Buffer.from("1" + pick("0123456789", 17)).toString("base64url")}.${tail}`;
    expect(await found(`client.login("${token}");`)).toEqual([token]);
    const notAnId = `${Buffer.from("Hello there, world!").toString("base64url")}.${tail}`;
    expect((await detectSecrets(`v = "${notAnId}"`)).map((s) => s.kind)).not.toContain("discord-bot-token");
  });

  it("a Discord bot token with no name before it, its first part shaped as a user id's", async () => {
    const B64URL = ALNUM + "_-";
    const token = `MT${pick(B64URL, 21 + randomInt(3))}A1b.${pick(B64URL, 6)}.${pick(B64URL, 27 + randomInt(12))}`;
    expect(await found(`the bot runs as ${token} now`)).toEqual([token]);
  });

  it.each([
    "the new root password is now {p}",
    "the password is still {p}",
    "the db password was changed to {p}",
    "admin password set to: {p}",
  ])("a password in prose with filler words: %s", async (template) => {
    const password = `${pick(ALNUM, 10)}!${pick("0123456789", 3)}`;
    expect(await found(template.replace("{p}", password))).toEqual([password]);
  });

  it.each([
    "the password is now stored in the vault",
    "the password is still required",
    "the password was changed to something stronger",
  ])("filler words before prose are not a password: %s", async (text) => {
    expect(await found(text)).toEqual([]);
  });

  it("a Docker config's auth (base64 of user:password), not another base64 value named auth", async () => {
    const auth = Buffer.from(`deploy:${pick(ALNUM, 16)}`).toString("base64");
    expect(await found(`{"auths":{"ghcr.io":{"auth":"${auth}"}}}`)).toEqual([auth]);
    expect((await detectSecrets(`{"auth":"${randomBytes(24).toString("base64")}"}`)).map((s) => s.kind)).not.toContain(
      "docker-registry-auth",
    );
  });
});

describe("named formats", () => {
  it("a Mapbox secret (sk.) or temporary (tk.) token; a public pk. token is left", async () => {
    const body = `${Buffer.from(JSON.stringify({ u: pick(ALNUM, 8).toLowerCase(), a: pick(ALNUM, 25) })).toString("base64url")}.${pick(ALNUM, 22)}`;
    for (const prefix of ["sk", "tk"]) expect(await found(`MAPBOX=${prefix}.${body}`)).toContain(`${prefix}.${body}`);
    expect(await found(`const style = "pk.${body}";`)).toEqual([]);
  });

  it("a GCP service account's private_key_id", async () => {
    const id = pick(HEX, 40);
    expect(await found(`{"type": "service_account", "private_key_id": "${id}"}`)).toEqual([id]);
  });
});

describe("strings still JSON-escaped (a tool input as JSON)", () => {
  it("a PuTTY key, a Docker auth and a key id inside a Write input's JSON text, masked with the JSON kept valid", async () => {
    const ppk =
      `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: key\nPublic-Lines: 2\n${randomBytes(48).toString("base64")}\n${randomBytes(20).toString("base64")}\nPrivate-Lines: 1\n${randomBytes(36).toString("base64")}\nPrivate-MAC: ${pick(HEX, 64)}\n`.replaceAll(
        "\\n",
        "\n",
      );
    const auth = Buffer.from(`alice:${pick(ALNUM, 14)}`).toString("base64");
    const id = pick(HEX, 40);
    for (const content of [
      ppk,
      JSON.stringify({ auths: { "https://index.docker.io/v1/": { auth } } }, null, 2),
      JSON.stringify({ type: "service_account", private_key_id: id }, null, 2),
    ]) {
      const input = JSON.stringify({ file_path: "/tmp/x", content });
      const spans = await detectSecrets(input);
      expect(spans.length).toBe(1);
      let masked = input;
      for (const s of [...spans].reverse())
        masked = masked.slice(0, s.start) + `[REDACTED:${s.kind}]` + masked.slice(s.end);
      const back = (JSON.parse(masked) as { content: string }).content;
      expect(back).toContain("[REDACTED:");
      for (const secret of [ppk.split("\n")[7]!, auth, id]) expect(back).not.toContain(secret);
    }
  });
});
