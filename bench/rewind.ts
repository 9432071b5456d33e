/**
 * Rewind as a user runs it: `nudge session rewind <id> <turn> --yes`, a whole process, back and
 * forth between the last two turns of a recorded session (they differ by one edited and one added
 * file). The baseline is a whole `git checkout --detach` process switching between two commits
 * that differ the same way, in a twin repository with the same files. The floor is `node -e 0`: a
 * Node CLI cannot start faster than node itself. The three alternate, round by round.
 */
import { applyTurnChange } from "./turn-change.mjs";
import { generateRepo, git, type RepoShape } from "./repo.js";
import { CLI, claudeConfig, type SessionRun } from "./session.js";
import { alternate, median, progress, timeProcess } from "./stats.js";

export interface RewindResult {
  files: number;
  rounds: number;
  rewindMs: number;
  checkoutMs: number;
  nodeMs: number;
}

const turnNumber = (prompt: string) => Number(prompt.split(" ")[1]);

export async function rewindBench(shape: RepoShape, repo: string, session: SessionRun, rounds: number): Promise<RewindResult> {
  const label = `${shape.files.toLocaleString("en")} files`;
  const last = session.prompts.length;
  const [nBefore, nLast] = [turnNumber(session.prompts[last - 2]!), turnNumber(session.prompts[last - 1]!)];
  progress(`rewind, ${label}: a twin repository for git checkout`);
  const twin = await generateRepo(shape);
  for (let n = 1; n <= nBefore; n++) applyTurnChange(twin, n, "small");
  await git(twin, "add", "-A");
  await git(twin, "commit", "-q", "-m", "turn before");
  const before = (await git(twin, "rev-parse", "HEAD")).trim();
  applyTurnChange(twin, nLast, "small");
  await git(twin, "add", "-A");
  await git(twin, "commit", "-q", "-m", "last turn");
  const after = (await git(twin, "rev-parse", "HEAD")).trim();
  await git(twin, "checkout", "-q", "--detach", after);

  const env = { ...process.env, CLAUDE_CONFIG_DIR: claudeConfig() };
  // Round -1 (the warm-up) goes back to the turn before; then forth and back, every round.
  const back = (round: number) => round % 2 !== 0;
  progress(`rewind, ${label}: ${rounds} rounds of nudge rewind, git checkout and node -e 0`);
  const samples = await alternate(rounds, {
    rewind: async (round) => (await timeProcess(process.execPath, [CLI, "session", "rewind", session.id, String(back(round) ? last - 1 : last), "--yes"], { cwd: repo, env })).ms,
    checkout: async (round) => (await timeProcess("git", ["checkout", "-q", "--detach", back(round) ? before : after], { cwd: twin })).ms,
    node: async () => (await timeProcess(process.execPath, ["-e", "0"], { cwd: repo })).ms,
  });
  return { files: shape.files, rounds, rewindMs: median(samples.rewind!), checkoutMs: median(samples.checkout!), nodeMs: median(samples.node!) };
}
