/**
 * The repositories this server serves (`nudge web --repo`), as links: shown only when it serves
 * more than one. Each repository's sessions page is its own address, so tabs can hold several.
 */
import { useEffect, useState } from "preact/hooks";
import { inRepo } from "../repo-base.js";
import { getJson } from "../source.js";

interface Repo {
  key: string;
  root: string;
  path: string;
  current: boolean;
}

export function RepoSwitch() {
  const [repos, setRepos] = useState<Repo[]>([]);
  useEffect(() => {
    getJson<Repo[]>(inRepo("/api/repos")).then(setRepos, () => setRepos([]));
  }, []);
  if (repos.length < 2) return null;
  // Named as the folder is (QA: the URL's lower-cased, dashed key read as a different name); two
  // folders of one name are told apart by their keys.
  const base = (r: Repo) => r.root.split(/[\\/]/).filter(Boolean).at(-1) ?? r.key;
  const label = (r: Repo) => (repos.filter((o) => base(o) === base(r)).length > 1 ? `${base(r)} (${r.key})` : base(r));
  return (
    <nav class="repos" aria-label="Repositories">
      {repos.map((r) =>
        r.current ? (
          <strong key={r.key} title={r.root} aria-current="page">
            {label(r)}
          </strong>
        ) : (
          <a key={r.key} href={r.path} title={r.root}>
            {label(r)}
          </a>
        ),
      )}
    </nav>
  );
}
