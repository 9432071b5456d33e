/**
 * The unit tier's promise: its tests start no processes. Every way node has to start one throws
 * here, so a unit test that reaches git, claude or a shell fails at once instead of joining the tier.
 */
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";

const starters = ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"] as const;
for (const name of starters) {
  Object.defineProperty(childProcess, name, {
    value: () => {
      throw new Error(`a unit test started a process (child_process.${name}); move the test out of the unit tier`);
    },
  });
}
// `import { spawn } from "node:child_process"` reads the ES module's own copy: bring it in line.
syncBuiltinESMExports();
