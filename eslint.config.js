// Lint is for what tsc cannot see: a promise nobody awaits or catches can lose a write or crash
// the process later with an unhandled rejection (issue: nothing is lost).
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "fixtures/**", ".scratch/**"] },
  {
    files: ["src/**/*.ts", "src/**/*.tsx", "test/**/*.ts", "bench/**/*.ts", "scripts/**/*.ts"],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "@typescript-eslint": tseslint.plugin },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: false }],
    },
  },
  {
    // Untrusted text stays inert: every write to stdout/stderr goes through the output layer's
    // guard (src/terminal/output.ts), or through the screen, which guards its own writes.
    files: ["src/**/*.ts"],
    ignores: ["src/terminal/output.ts", "src/write-json-schemas.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector:
            "CallExpression[callee.property.name='write'][callee.object.property.name=/^std(out|err)$/][callee.object.object.name='process']",
          message: "write through writeOut/writeErr (src/terminal/output.ts), which keep session text inert",
        },
      ],
    },
  },
);
