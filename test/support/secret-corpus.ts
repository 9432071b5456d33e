/**
 * The secret corpus (fixtures/secrets/corpus.json) expanded into values: its templates filled by a
 * seeded generator, so every run sees the same made-up secrets and no credential, real or made
 * up, is stored in the repository as it is.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface CorpusSecret {
  /** e.g. `aws-access-key-id`, `private-key-openssh`. */
  kind: string;
  /** The secret as a user or a program would write it, in its line (a PEM block, a JSON file, …). */
  text: string;
  /** Multi-line (a private key, a service-account file): only code and tool outputs can carry it whole. */
  multiline: boolean;
  /** What must never travel: any of these in an export is a leak. */
  needles: string[];
}

export interface CorpusLookalike {
  kind: string;
  text: string;
}

interface Spec {
  secrets: Array<{
    kind: string;
    value?: string;
    line?: string;
    pem?: { label: string; prefix: string; chars: number };
    gcp?: boolean;
    kubeconfig?: boolean;
    ppk?: boolean;
    base64env?: boolean;
  }>;
  lookalikes: Array<{ kind: string; line: string }>;
}

const FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/secrets/corpus.json");

const CLASSES: Record<string, string> = {
  A: "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
  a: "abcdefghijklmnopqrstuvwxyz",
  "0": "0123456789",
  x: "0123456789abcdef",
  X: "0123456789ABCDEF",
  n: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
  l: "abcdefghijklmnopqrstuvwxyz0123456789",
  u: "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
  b: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
  w: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
  "2": "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
  age: "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
};

/** mulberry32: small, seeded, the same sequence everywhere. */
function generator(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function loadCorpus(seed = 22): { secrets: CorpusSecret[]; lookalikes: CorpusLookalike[] } {
  const spec = JSON.parse(readFileSync(FILE, "utf8")) as Spec;
  const random = generator(seed);
  const pick = (chars: string, n: number) =>
    Array.from({ length: n }, () => chars[Math.floor(random() * chars.length)]).join("");
  const fill = (template: string) =>
    template.replace(/\{(\w+):(\d+)\}/g, (_, cls: string, n: string) => pick(CLASSES[cls]!, Number(n)));
  const jwt = () => {
    const b64url = (s: string) => Buffer.from(s).toString("base64url");
    const payload = b64url(
      JSON.stringify({
        sub: fill("{0:9}"),
        name: "Ana Lima",
        iat: 1732493000 + Math.floor(random() * 1e6),
        scope: "orders:write",
      }),
    );
    return `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.${payload}.${fill("{w:43}")}`;
  };
  // A Discord bot token: the bot's user id in base64, a timestamp part, an HMAC part.
  const discord = () => `${Buffer.from(fill("1{0:17}")).toString("base64url")}.${fill("{w:6}")}.${fill("{w:38}")}`;
  const pem = (p: { label: string; prefix: string; chars: number }) => {
    const body = p.prefix + pick(CLASSES.b!, p.chars - p.prefix.length);
    const lines = body.match(/.{1,64}/g)!;
    const pad = lines.at(-1)!.length % 4 === 0 ? "" : "=".repeat(4 - (lines.at(-1)!.length % 4));
    lines[lines.length - 1] += pad;
    return {
      text: `-----BEGIN ${p.label}-----\n${lines.join("\n")}\n-----END ${p.label}-----`,
      needles: lines.filter((l) => l.length >= 20),
    };
  };

  const secrets: CorpusSecret[] = spec.secrets.map((s) => {
    if (s.pem) {
      const key = pem(s.pem);
      return { kind: s.kind, text: key.text, multiline: true, needles: key.needles };
    }
    if (s.gcp) {
      const key = pem({
        label: "PRIVATE KEY",
        prefix: "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQ",
        chars: 1624,
      });
      const project = `acme-prod-${fill("{0:6}")}`;
      const json = {
        type: "service_account",
        project_id: project,
        private_key_id: fill("{x:40}"),
        private_key: key.text + "\n",
        client_email: `deployer@${project}.iam.gserviceaccount.com`,
        client_id: fill("{0:21}"),
        auth_uri: "https://accounts.google.com/o/oauth2/auth",
        token_uri: "https://oauth2.googleapis.com/token",
      };
      return { kind: s.kind, text: JSON.stringify(json, null, 2), multiline: true, needles: key.needles };
    }
    if (s.kubeconfig) {
      // The key as kubeconfig holds it: the PEM file, base64'd onto one line.
      const key = pem({ label: "RSA PRIVATE KEY", prefix: "MIIEpAIBAAKCAQEA", chars: 1588 }).text;
      const data = Buffer.from(key + "\n").toString("base64");
      const text = `users:\n- name: admin@acme-prod\n  user:\n    client-certificate-data: ${Buffer.from("-----BEGIN CERTIFICATE-----\nMIIC" + fill("{b:60}") + "\n-----END CERTIFICATE-----\n").toString("base64")}\n    client-key-data: ${data}`;
      return { kind: s.kind, text, multiline: true, needles: [data.slice(0, 60), data.slice(-60)] };
    }
    if (s.ppk) {
      const priv = fill("{b:64}") + "\n" + fill("{b:64}") + "\n" + fill("{b:44}");
      const text = `PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nComment: rsa-key-20261125\nPublic-Lines: 2\nAAAAB3NzaC1yc2EAAAADAQABAAABAQ${fill("{b:34}")}\n${fill("{b:40}")}\nPrivate-Lines: 3\n${priv}\nPrivate-MAC: ${fill("{x:64}")}`;
      return { kind: s.kind, text, multiline: true, needles: priv.split("\n") };
    }
    if (s.base64env) {
      // A .env file base64'd (a Kubernetes secret's data, a CI variable): only decoding shows the key.
      const env = `STRIPE_SECRET=${fill("sk_live_{n:24}")}\nDB_HOST=db.internal\n`;
      const data = Buffer.from(env).toString("base64");
      return { kind: s.kind, text: `  env_file: ${data}`, multiline: false, needles: [data] };
    }
    const value = s.value === "{jwt}" ? jwt() : s.value === "{discord}" ? discord() : fill(s.value!);
    const text = fill(s.line!).replace("{s}", value);
    return { kind: s.kind, text, multiline: text.includes("\n"), needles: [value] };
  });
  const lookalikes = spec.lookalikes.map((l) => ({ kind: l.kind, text: fill(l.line) }));
  return { secrets, lookalikes };
}
