// Type test: `tsc --noEmit` checks this file against the generated index.d.ts.
import { Guard, catalogFromDatabase, classify, ERROR_CODES, STAGES } from '..'
import type {
  Approved,
  ApprovedMutation,
  CatalogOptions,
  ErrorCode,
  GuardOptions,
  MutationVerdict,
  Policy,
  QueryClass,
  Rejection,
  Stage,
  Verdict,
  WriteRules,
} from '..'

const options: GuardOptions = {
  dialect: 'postgres',
  maxRows: 100,
  maxSqlBytes: 65536,
  maxDepth: 32,
  allowExplain: true,
  allowSystemCatalogs: false,
  functions: { allow: ['my_schema.safe_fn'], deny: ['random'] },
  tables: { allow: ['public.*'], deny: ['public.secrets'] },
  columns: { deny: ['*.ssn', 'customer.email'] },
  catalog: {
    tables: [
      {
        schema: 'public',
        name: 'customer',
        columns: [{ name: 'id', type: 'integer', nullable: false }, { name: 'email' }],
        primaryKey: ['id'],
        foreignKeys: [{ columns: ['id'], referencedTable: 'account', referencedColumns: ['id'] }],
      },
    ],
  },
}
const guard = new Guard(options)
const uncapped: Guard = new Guard({ maxRows: null })
const defaults: Guard = new Guard()

const policy: Policy = { dialect: 'sqlite', max_rows: null, tables: { deny: ['employee'] } }
const fromPolicy: Guard = Guard.fromPolicy(policy)
const fromJson: Guard = Guard.fromPolicy('{"dialect": "sqlite"}')

function describe(sql: string): string {
  try {
    const approved: Approved = guard.check(sql)
    const capped: number | null = approved.limit.value
    return `${approved.sql} (${approved.queryClass}, ${approved.limit.action}, cap ${capped})`
  } catch (e) {
    const r = e as Error & Rejection
    const code: ErrorCode = r.code
    const where = r.location ? `${r.location.line}:${r.location.column}` : 'unknown position'
    return `${code} at ${r.stage} ${where}: ${r.message} ${r.hint ?? ''} ${r.retryable} ${r.queryClass} ${r.statementCount}`
  }
}

async function describeAsync(sql: string): Promise<string> {
  const approved: Approved = await guard.checkAsync(sql)
  return approved.sql
}

const verdict: Verdict = guard.verdict('DELETE FROM t')
const allowed: boolean = verdict.allowed
const klass: QueryClass = verdict.query_class
const count: number = verdict.statement_count
const errorCode: ErrorCode | undefined = verdict.error?.code
const hint: string | null | undefined = verdict.error?.hint

const writer = new Guard({
  writes: { tables: ['orders'], classes: ['mutation_create', 'mutation_delete'], maxAffectedRows: 10, allowUnbounded: false },
})
const writeRules: WriteRules = { tables: ['orders'], max_affected_rows: 'none' }
const fromWrites: Guard = Guard.fromPolicy({ writes: writeRules })
const mutation: ApprovedMutation = writer.checkMutation("UPDATE orders SET status = 'x' WHERE id = 7")
const target: string = mutation.target
const written: string[] = mutation.columnsWritten
const read: string[] = mutation.tablesRead
const bounded: boolean = mutation.hasWhere
const mutationClass: QueryClass = mutation.queryClass
const mutationVerdict: MutationVerdict = writer.mutationVerdict('DELETE FROM orders')
const mutationCode: ErrorCode | undefined = mutationVerdict.error?.code
const unbounded: ErrorCode = 'unbounded_mutation'
// @ts-expect-error: writes options are camelCase
new Guard({ writes: { tables: ['orders'], max_affected_rows: 10 } })
// @ts-expect-error: writes.classes holds query classes
new Guard({ writes: { tables: ['orders'], classes: ['insert'] } })

const kind: QueryClass = classify('SELECT 1', 'duckdb')
const enforced: Policy = guard.policy

const codes: readonly ErrorCode[] = ERROR_CODES
const stages: readonly Stage[] = STAGES
// @ts-expect-error: core has no 'classify' stage
const gone: Stage = 'classify'

// @ts-expect-error: unknown dialects are not in the Dialect union
classify('SELECT 1', 'oracle')
// @ts-expect-error: options are camelCase
new Guard({ max_rows: 10 })

export { describe, describeAsync, uncapped, defaults, fromPolicy, fromJson, allowed, klass, count, errorCode, hint, kind, enforced, codes, stages, gone }
// checkWithRowCap: another row cap, or null for none.
const capped: Approved = guard.checkWithRowCap('SELECT 1', 51)
const noCap: Approved = guard.checkWithRowCap('SELECT 1', null)
// @ts-expect-error: the row cap is a number or null
guard.checkWithRowCap('SELECT 1', '10')

// catalogFromDatabase: what `new Guard({ catalog })` takes.
declare const db: { prepare(sql: string): { all(...params: unknown[]): unknown[] } }
const schema: CatalogOptions = catalogFromDatabase(db)
const primaryKey: string[] | undefined = schema.tables?.[0]?.primaryKey
new Guard({ dialect: 'sqlite', catalog: schema })

export { capped, noCap, schema, primaryKey }
export { fromWrites, target, written, read, bounded, mutationClass, mutationCode, unbounded }
