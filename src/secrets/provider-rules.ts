/**
 * Token formats the providers publish that neither gitleaks' nor secretlint's rules cover (or
 * cover only next to the provider's name), as data in the same shape as gitleaks' rules.
 * RE2 syntax; each anchored on a literal prefix that is also its keyword.
 */
import type { PortedRule } from "./ported-rules.js";

const END = "(?:[^A-Za-z0-9_-]|$)";

export const PROVIDER_RULES: PortedRule[] = [
  { id: "gcp-oauth-client-secret", regex: `\\b(GOCSPX-[A-Za-z0-9_-]{28,32})${END}`, keywords: ["gocspx-"] },
  { id: "google-oauth-access-token", regex: `\\b(ya29\\.[A-Za-z0-9_-]{30,500})`, keywords: ["ya29."] },
  { id: "google-oauth-refresh-token", regex: `\\b(1//0[A-Za-z0-9_-]{40,300})`, keywords: ["1//0"] },
  {
    id: "firebase-cloud-messaging-key",
    regex: `\\b(AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,200})`,
    keywords: [":apa91b"],
  },
  { id: "mailchimp-api-key", regex: `\\b([0-9a-f]{32}-us[0-9]{1,2})\\b`, keywords: ["-us"] },
  { id: "supabase-access-token", regex: `\\b(sbp_[a-f0-9]{40})\\b`, keywords: ["sbp_"] },
  { id: "supabase-secret-key", regex: `\\b(sb_secret_[A-Za-z0-9_-]{20,80})`, keywords: ["sb_secret_"] },
  { id: "new-relic-user-api-key", regex: `\\b(NRAK-[A-Z0-9]{27})\\b`, keywords: ["nrak-"] },
  { id: "new-relic-insert-key", regex: `\\b(NRII-[A-Za-z0-9_-]{32})`, keywords: ["nrii-"] },
  { id: "new-relic-license-key", regex: `\\b([a-f0-9]{36}NRAL)\\b`, keywords: ["nral"] },
  { id: "huggingface-token", regex: `\\b(hf_[A-Za-z0-9]{30,40})\\b`, keywords: ["hf_"] },
  { id: "notion-integration-token", regex: `\\b(secret_[A-Za-z0-9]{43})\\b`, keywords: ["secret_"] },
  { id: "atlassian-api-token", regex: `\\b(ATATT3[A-Za-z0-9_=-]{150,250})`, keywords: ["atatt3"] },
  { id: "atlassian-connect-token", regex: `\\b(ATCTT3[A-Za-z0-9_=-]{150,250})`, keywords: ["atctt3"] },
  // A Sentry DSN: the key is the URL's user (and the old form's password), the host any Sentry's.
  {
    id: "sentry-dsn",
    regex:
      "https?://([0-9a-f]{32}(?::[0-9a-f]{32})?)@[A-Za-z0-9.-]{1,200}(?::[0-9]{1,5})?/(?:[A-Za-z0-9_.-]{1,100}/){0,4}[0-9]{1,12}",
    keywords: ["://"],
  },
  // An Azure (or any) shared access signature: a URL's `sig=` parameter.
  { id: "azure-sas-signature", regex: "[?&;]sig=([A-Za-z0-9%+/=]{20,200})", keywords: ["sig="] },
  {
    id: "azure-connection-string-key",
    regex: "(?i)\\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)=([^;\\s\"']{8,200})",
    keywords: ["accountkey=", "sharedaccesskey=", "sharedaccesssignature="],
  },
  // A password in a connection string (`Server=…;User Id=app;Password=…;`), not one named by a variable.
  {
    id: "connection-string-password",
    regex: "(?i)(?:^|;)[ \\t]*(?:Password|Pwd)[ \\t]*=[ \\t]*([^;\\s\"'$<{%]{6,200})[ \\t]*(?:;|$)",
    keywords: ["password", "pwd"],
  },
  { id: "dropbox-access-token", regex: "\\b(sl\\.(?:u\\.)?[A-Za-z0-9_-]{130,1000})", keywords: ["sl."] },
  {
    id: "sourcegraph-access-token",
    regex: "\\b(sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40})\\b",
    keywords: ["sgp_"],
  },
  { id: "openrouter-api-key", regex: "\\b(sk-or-v1-[a-f0-9]{64})\\b", keywords: ["sk-or-v1-"] },
  { id: "xai-api-key", regex: "\\b(xai-[A-Za-z0-9]{70,90})\\b", keywords: ["xai-"] },
  { id: "replicate-api-token", regex: "\\b(r8_[A-Za-z0-9]{37})\\b", keywords: ["r8_"] },
  { id: "resend-api-key", regex: "\\b(re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24})\\b", keywords: ["re_"] },
  { id: "langsmith-api-key", regex: "\\b(lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10})\\b", keywords: ["lsv2_"] },
  { id: "pinecone-api-key", regex: "\\b(pcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{50,80})\\b", keywords: ["pcsk_"] },
  { id: "neon-api-key", regex: "\\b(napi_[a-z0-9]{64})\\b", keywords: ["napi_"] },
  { id: "render-api-key", regex: "\\b(rnd_[A-Za-z0-9]{32})\\b", keywords: ["rnd_"] },
  { id: "buildkite-token", regex: "\\b(bkua_[a-f0-9]{40})\\b", keywords: ["bkua_"] },
  { id: "circleci-token", regex: "\\b(CCIPAT_[A-Za-z0-9]{20,24}_[a-f0-9]{40})\\b", keywords: ["ccipat_"] },
  { id: "docker-hub-token", regex: `\\b(dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,32})${END}`, keywords: ["dckr_"] },
  {
    id: "vercel-token",
    regex: "\\b(vc[pkiar]_[A-Za-z0-9]{40,60})\\b",
    keywords: ["vcp_", "vck_", "vci_", "vca_", "vcr_"],
  },
  { id: "groq-api-key", regex: "\\b(gsk_[A-Za-z0-9]{52})\\b", keywords: ["gsk_"] },
  { id: "deno-deploy-token", regex: "\\b(dd[pw]_[A-Za-z0-9]{36})\\b", keywords: ["ddp_", "ddw_"] },
  { id: "slack-app-token", regex: "\\b(xapp-[0-9]-[A-Z0-9]{6,20}-[0-9]{6,20}-[a-f0-9]{32,80})", keywords: ["xapp-"] },
  {
    id: "twilio-auth-token",
    regex:
      "(?i)twilio[\\w.-]{0,20}(?:auth)?[\\w.-]{0,10}(?:token|secret)[\"']?[ \\t]{0,4}[:=][ \\t]{0,4}[\"']?([a-f0-9]{32})\\b",
    keywords: ["twilio"],
  },
];
