// The types of the JavaScript API, derived from the types generated from core's JSON Schemas
// (./generated.d.ts). Nothing here repeats a field or a name: the camelCase forms are computed.
import type {
  ApprovedJson,
  ApprovedMutationJson,
  Dialect,
  ErrorCode,
  GuardError,
  LimitAction,
  Policy,
  QueryClass,
  Stage,
  Verdict,
} from './generated'

export * from './generated'

/** `max_rows` -> `maxRows`, at the type level (the binding's key conversion, src/convert.rs). */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S

/** `T` with every object key, at any depth, in camelCase (what the binding accepts). */
export type CamelKeys<T> = T extends readonly (infer Item)[]
  ? CamelKeys<Item>[]
  : T extends object
    ? { [K in keyof T as K extends string ? CamelCase<K> : K]: CamelKeys<T[K]> }
    : T

/**
 * `T` as the binding returns it: every key, at any depth, in camelCase and present (core writes
 * `null` for a value it does not have).
 */
export type CamelOutput<T> = T extends readonly (infer Item)[]
  ? CamelOutput<Item>[]
  : T extends object
    ? { [K in keyof T as K extends string ? CamelCase<K> : K]-?: CamelOutput<Exclude<T[K], undefined>> }
    : T

/**
 * Options for `new Guard(options)`: core's {@link Policy} with camelCase names. Every field is
 * optional and defaults to the safe choice; an unknown or mistyped field throws a `TypeError`
 * whose `field` property names it.
 */
export type GuardOptions = CamelKeys<Policy>

/**
 * A catalog as `new Guard({ catalog })` takes it (core's {@link Catalog}, camelCase), e.g. what
 * `catalogFromDatabase(db)` reads from a better-sqlite3 database.
 */
export type CatalogOptions = NonNullable<GuardOptions['catalog']>

/**
 * Values bound to a policy's row filter variables for one check (`{ tenant: 42 }`); each
 * becomes a typed literal in the regenerated SQL.
 */
export type Vars = Record<string, number | string | boolean | null>

/** The options of `guard.check` and the other checks. */
export interface CheckOptions {
  /** The row filter variables (policy section `rows`); a missing one refuses with `row_filter`. */
  vars?: Vars
}

/**
 * An approved query (`guard.check`): core's approved query in camelCase, every field present.
 * Run `sql`, never the text that was submitted.
 */
export type Approved = CamelOutput<ApprovedJson>

/**
 * An approved mutation (`guard.checkMutation`): core's approved mutation in camelCase (`target`,
 * `tablesRead`, `columnsWritten`, `functions`, `hasWhere`, ...). Run `sql`, never the text that
 * was submitted.
 */
export type ApprovedMutation = CamelOutput<ApprovedMutationJson>

/**
 * The properties set on the `Error` that `check` throws (and `checkAsync` rejects with) when the
 * guard refuses a query, and that `checkMutation` throws when it refuses a mutation: core's
 * {@link GuardError} plus the payload's class and statement count, in camelCase. In TypeScript: `catch (e) { const r = e as Error & Rejection }`.
 */
export type Rejection = CamelOutput<GuardError & Pick<Verdict, 'query_class' | 'statement_count'>>

/** Every {@link ErrorCode}, from core's list. */
export declare const ERROR_CODES: readonly ErrorCode[]
/** Every {@link Stage}, in pipeline order, from core's list. */
export declare const STAGES: readonly Stage[]
/** Every {@link QueryClass}, in privilege order, from core's list. */
export declare const QUERY_CLASSES: readonly QueryClass[]
/** Every {@link Dialect}, from core's list. */
export declare const DIALECTS: readonly Dialect[]
/** Every {@link LimitAction}, from core's list. */
export declare const LIMIT_ACTIONS: readonly LimitAction[]
