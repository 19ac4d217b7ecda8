// ESLint 9 flat config: typescript-eslint's recommended rules, one type-aware rule that catches a
// real fault cheaply (a promise nobody awaits or catches), and the Effect plugin. Formatting is
// dprint's job (dprint.json, `npm run format`), not ESLint's.
import js from "@eslint/js"
import effect from "@effect/eslint-plugin"
import globals from "globals"
import tseslint from "typescript-eslint"

export default tseslint.config(
  // examples/project is a sample workspace the agent examples edit, not toolgate's code
  { ignores: ["dist/", "docs/api/", "node_modules/", "examples/project/", "**/*.cjs"] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    plugins: { "@effect": effect },
    languageOptions: { globals: globals.node },
    rules: {
      // Imports from the `effect` barrel stay: the bundle is tree-shaken by esbuild, and the
      // rewrite would touch every file for no fault caught.
      "@effect/no-import-from-barrel-package": "off",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none", ignoreRestSiblings: true }
      ],
      "@typescript-eslint/consistent-type-imports": ["error", { disallowTypeAnnotations: false }],
      // `any` stands where a tool's or a layer's type parameters must accept every instance
      // (`Tool<any, any>`): `unknown` does not type-check there. Effect's own config has it off too.
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-namespace": "off",
      "@typescript-eslint/no-empty-object-type": "off",
      // The shell checks match control characters and zero-width joiners on purpose.
      "no-control-regex": "off",
      "no-misleading-character-class": "off",
      "no-fallthrough": "off",
      "object-shorthand": "error",
      "prefer-const": "error"
    }
  },
  {
    // The TypeScript project (tsconfig.json): type-aware checks.
    files: ["{src,test,bench,scripts,conformance}/**/*.ts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { "@typescript-eslint/no-floating-promises": "error" }
  }
)
