import * as effectEslint from "@effect/eslint-plugin"
import eslint from "@eslint/js"
import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: ["**/dist", "**/build", "**/node_modules", ".cache", "**/*.md", "coverage", "bench/tmp"] },
  eslint.configs.recommended,
  tseslint.configs.recommended,
  ...effectEslint.configs.dprint,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-namespace": "off",
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "separate-type-imports" }],
      "@effect/dprint": [
        "error",
        {
          config: {
            indentWidth: 2,
            lineWidth: 120,
            semiColons: "asi",
            quoteStyle: "alwaysDouble",
            trailingCommas: "never",
            operatorPosition: "maintain",
            "arrowFunction.useParentheses": "force"
          }
        }
      ]
    }
  },
  {
    // The rules of the project for library sources (README "Standards"): no console, no async.
    files: ["packages/*/src/**/*.ts"],
    rules: {
      "no-console": "error",
      // One function, one screenful or so: a longer one is several things (issue "One declaration per endpoint").
      "max-lines-per-function": ["error", { max: 150, skipBlankLines: false, skipComments: false, IIFEs: true }],
      "no-restricted-syntax": [
        "error",
        { selector: ":function[async=true]", message: "Use Effect instead of async functions in src." },
        { selector: "TryStatement", message: "Use Effect error handling instead of try/catch in src." },
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: "Use Clock." },
        { selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']", message: "Use Clock." }
      ]
    }
  },
  {
    files: ["scripts/**/*.mjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly" } }
  }
)
