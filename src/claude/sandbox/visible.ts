/**
 * What the sandbox can read besides the work tree: an allow-list, not the host's whole file
 * system. The system's programs and libraries (/usr and the /bin, /lib… links to it), the few
 * /etc files programs need to run (users, names, certificates, time zone, shell start-up), node
 * and claude's own binary. Not /home, /root, /tmp, /var, /opt, /srv, /mnt, nor the rest of /etc.
 */
import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";

const TOP = ["bin", "sbin", "lib", "lib32", "lib64", "libx32"];
const ETC = [
  "passwd",
  "group",
  "nsswitch.conf",
  "hosts",
  "host.conf",
  "gai.conf",
  "resolv.conf",
  "ssl",
  "ca-certificates",
  "ca-certificates.conf",
  "pki",
  "crypto-policies",
  "localtime",
  "timezone",
  "locale.alias",
  "locale.conf",
  "default/locale",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "alternatives",
  "profile",
  "profile.d",
  "bash.bashrc",
  "bashrc",
  "environment",
  "inputrc",
  "shells",
  "terminfo",
  "mime.types",
  "os-release",
  "lsb-release",
  "debian_version",
  "gitconfig",
  "claude-code",
];

/** bwrap arguments that show the system's programs, libraries and needed /etc files, read-only. */
export function systemArgs(): string[] {
  const args = ["--ro-bind", "/usr", "/usr"];
  for (const name of TOP) {
    const p = `/${name}`;
    const stat = lstatSync(p, { throwIfNoEntry: false });
    if (!stat) continue;
    // Merged /usr: /bin is a link to usr/bin; the same link inside.
    if (stat.isSymbolicLink()) args.push("--symlink", readlinkSync(p), p);
    else args.push("--ro-bind", p, p);
  }
  for (const name of ETC) {
    const p = `/etc/${name}`;
    if (existsSync(p)) args.push("--ro-bind", p, p);
  }
  return args;
}

/** A program outside /usr (node under /opt or a version manager, claude in node_modules) and what it needs beside it. */
export function programArgs(file: string): string[] {
  const given = path.resolve(file);
  const real = realpathSync(given);
  const args: string[] = [];
  // claude's native binary stands alone; an npm install's claude.exe sits in its package's bin/.
  if (!underUsr(real)) args.push("--ro-bind", path.dirname(real), path.dirname(real));
  // The path nudge runs (node_modules/.bin/claude, a link) shows the real file.
  if (given !== real && !underUsr(given)) args.push("--ro-bind", real, given);
  return args;
}

function underUsr(p: string): boolean {
  return p === "/usr" || p.startsWith("/usr/");
}
