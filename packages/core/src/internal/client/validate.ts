import { Effect, Schema, SchemaIssue } from "effect"
import * as SpotError from "../../SpotError.ts"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** Turns a schema failure on user input into a `ValidationError` naming the field and the rule. */
export const toValidationError = (error: Schema.SchemaError, root?: string): SpotError.ValidationError => {
  const issue = formatter(error.issue).issues[0]
  const path = (issue?.path ?? []).map((key) => String(typeof key === "object" ? key.key : key))
  const field = [root, ...path].filter((part) => part !== undefined && part !== "").join(".") || (root ?? "input")
  return new SpotError.ValidationError({ field, description: issue?.message ?? error.message })
}

/**
 * Decodes user input, failing with a `ValidationError` reason. `fast` (see fast.ts) may accept plain input without
 * the Schema; whatever it does not accept, the Schema judges.
 */
export const input = <S extends Schema.Top & { readonly DecodingServices: never }>(
  schema: S,
  root?: string,
  fast?: (value: unknown) => S["Type"] | undefined
) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return (value: unknown): Effect.Effect<S["Type"], SpotError.ValidationError> => {
    const plain = fast?.(value)
    return plain !== undefined
      ? Effect.succeed(plain)
      : Effect.mapError(decode(value), (error) => toValidationError(error, root))
  }
}
