// The Node API: approved objects, thrown errors and their properties, async, bad options.
'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')

const { Guard, classify } = require('..')

test('check returns the approved object with the row cap applied', () => {
  const guard = new Guard({ dialect: 'sqlite', maxRows: 100 })
  const approved = guard.check('SELECT name FROM artist ORDER BY name')
  assert.deepStrictEqual(approved, {
    sql: 'SELECT name FROM artist ORDER BY name LIMIT 100',
    queryClass: 'select',
    statementCount: 1,
    tables: ['artist'],
    columns: [],
    functions: [],
    limit: { action: 'injected', value: 100, original: null },
  })
})

test('placeholders are listed for the caller to bind, absent when there are none', () => {
  const guard = new Guard({ dialect: 'sqlite', maxRows: 100 })
  const approved = guard.check('SELECT name FROM artist WHERE artist_id = ? OR name = :name')
  assert.deepStrictEqual(approved.parameters, ['?', ':name'])
  assert.equal('parameters' in guard.check("SELECT name FROM artist WHERE name = '?'"), false)
})

test('limits: clamped, kept, and no cap with maxRows null', () => {
  const guard = new Guard({ maxRows: 10 })
  assert.deepStrictEqual(guard.check('SELECT 1 LIMIT 50').limit, {
    action: 'clamped',
    value: 10,
    original: 50,
  })
  assert.deepStrictEqual(guard.check('SELECT 1 LIMIT 5').limit, {
    action: 'kept',
    value: 5,
    original: 5,
  })
  const uncapped = new Guard({ maxRows: null })
  const approved = uncapped.check('SELECT 1')
  assert.equal(approved.sql, 'SELECT 1')
  assert.equal(approved.limit.action, 'none')
  assert.equal(uncapped.policy.max_rows, null)
  // undefined members mean "default", as if absent.
  assert.equal(new Guard({ maxRows: undefined }).policy.max_rows, 1000)
})

test('a refusal throws an Error carrying the verdict error properties', () => {
  const guard = new Guard()
  assert.throws(
    () => guard.check('SELECT 1; DROP TABLE artist'),
    (e) => {
      assert.ok(e instanceof Error)
      assert.equal(e.code, 'multiple_statements')
      assert.equal(e.stage, 'validate')
      assert.equal(e.retryable, false)
      assert.equal(typeof e.hint, 'string')
      assert.deepStrictEqual(e.location, { line: 1, column: 9 })
      assert.equal(e.queryClass, 'ddl')
      assert.equal(e.statementCount, 2)
      assert.match(e.message, /^multiple_statements: /)
      assert.match(e.stack, /multiple_statements/)
      return true
    },
  )
})

test('thrown properties match the verdict for the same SQL', () => {
  const guard = new Guard({ dialect: 'postgres' })
  for (const sql of [
    'DELETE FROM artist',
    'SELECT pg_read_file(\'/etc/passwd\')',
    'SELECT * FROM pg_catalog.pg_user',
    'SELEC 1',
    '',
    'WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d',
    'SELECT * FROM t FOR UPDATE',
  ]) {
    const v = guard.verdict(sql)
    assert.equal(v.allowed, false, sql)
    assert.throws(
      () => guard.check(sql),
      (e) => {
        assert.equal(e.code, v.error.code, sql)
        assert.equal(e.stage, v.error.stage, sql)
        assert.equal(e.retryable, v.error.retryable, sql)
        assert.equal(e.hint, v.error.hint, sql)
        assert.deepStrictEqual(e.location, v.error.location, sql)
        assert.equal(e.queryClass, v.query_class, sql)
        assert.equal(e.statementCount, v.statement_count, sql)
        assert.equal(e.message, `${v.error.code}: ${v.error.message}`, sql)
        return true
      },
    )
  }
})

test('hint and location are null when core has none', () => {
  const guard = new Guard({ maxSqlBytes: 8 })
  assert.throws(
    () => guard.check('SELECT 1234567890'),
    (e) => e.code === 'too_large' && e.stage === 'precheck' && e.location === null,
  )
})

test('verdict never throws and has exactly core\'s snake_case keys', () => {
  const guard = new Guard({ dialect: 'sqlite', maxRows: 5 })
  const ok = guard.verdict('SELECT * FROM track')
  assert.deepStrictEqual(Object.keys(ok), [
    'allowed',
    'sql',
    'query_class',
    'statement_count',
    'tables',
    'functions',
    'limit',
  ])
  assert.equal(ok.sql, 'SELECT * FROM track LIMIT 5')
  const refused = guard.verdict('DROP TABLE track')
  assert.deepStrictEqual(Object.keys(refused), ['allowed', 'query_class', 'statement_count', 'error'])
  assert.equal(refused.error.code, 'statement_not_allowed')
  assert.deepStrictEqual(Object.keys(refused.error), [
    'code',
    'stage',
    'message',
    'retryable',
    'hint',
    'location',
  ])
})

test('checkAsync resolves and rejects like check', async () => {
  const guard = new Guard({ dialect: 'sqlite', maxRows: 7 })
  const approved = await guard.checkAsync('SELECT name FROM genre')
  assert.deepStrictEqual(approved, guard.check('SELECT name FROM genre'))
  await assert.rejects(guard.checkAsync('UPDATE genre SET name = 1'), (e) => {
    assert.ok(e instanceof Error)
    assert.equal(e.code, 'statement_not_allowed')
    assert.equal(e.queryClass, 'mutation_create')
    assert.equal(e.statementCount, 1)
    assert.equal(e.retryable, false)
    return true
  })
  // Many at once on the thread pool, sharing one guard.
  const sqls = Array.from({ length: 64 }, (_, i) =>
    i % 2 ? `SELECT ${i} FROM track` : `DELETE FROM track WHERE id = ${i}`,
  )
  const results = await Promise.allSettled(sqls.map((s) => guard.checkAsync(s)))
  results.forEach((r, i) => {
    if (i % 2) assert.equal(r.status, 'fulfilled')
    else assert.equal(r.status === 'rejected' && r.reason.code, 'statement_not_allowed')
  })
})

test('fromPolicy takes core\'s snake_case policy as an object or JSON text', () => {
  const policy = { dialect: 'sqlite', max_rows: 3, tables: { deny: ['employee'] } }
  for (const guard of [Guard.fromPolicy(policy), Guard.fromPolicy(JSON.stringify(policy))]) {
    assert.equal(guard.check('SELECT 1').sql, 'SELECT 1 LIMIT 3')
    assert.throws(() => guard.check('SELECT * FROM employee'), { code: 'table_not_allowed' })
    assert.equal(guard.policy.dialect, 'sqlite')
  }
  assert.throws(() => Guard.fromPolicy({ maxRows: 3 }), (e) => e instanceof TypeError && e.field === 'maxRows')
  assert.throws(() => Guard.fromPolicy('{"max_rows": '), (e) => e instanceof TypeError && e.field === 'policy')
  assert.throws(() => Guard.fromPolicy('[1]'), TypeError)
  assert.throws(() => Guard.fromPolicy({ max_rows: 0 }), (e) => e instanceof TypeError && e.field === 'max_rows')
})

test('camelCase options reach core: tables, columns, functions, catalog, explain, catalogs', () => {
  const guard = new Guard({
    dialect: 'postgres',
    allowExplain: true,
    tables: { deny: ['employee'] },
    columns: { deny: ['customer.email'] },
    functions: { deny: ['lower'] },
    catalog: {
      tables: [
        { name: 'employee', columns: [{ name: 'id' }] },
        {
          name: 'customer',
          columns: [{ name: 'id' }, { name: 'email', type: 'text' }],
          primaryKey: ['id'],
          foreignKeys: [{ columns: ['id'], referencedTable: 'x', referencedColumns: ['id'] }],
        },
      ],
    },
  })
  assert.throws(() => guard.check('SELECT * FROM employee'), { code: 'table_not_allowed' })
  assert.throws(() => guard.check('SELECT email FROM customer'), { code: 'column_not_allowed' })
  assert.throws(() => guard.check('SELECT lower(\'A\')'), { code: 'function_not_allowed' })
  assert.equal(guard.check('EXPLAIN SELECT id FROM customer').queryClass, 'select')
  assert.equal(guard.policy.catalog.tables[1].primary_key[0], 'id')
  assert.throws(() => guard.check('SELECT id FROM nowhere'), { code: 'unknown_table' })
  assert.throws(() => new Guard().check('SELECT * FROM pg_catalog.pg_class'), { code: 'system_catalog' })
  new Guard({ allowSystemCatalogs: true }).check('SELECT relname FROM pg_catalog.pg_class')
})

test('bad options throw a TypeError naming the field', () => {
  const cases = [
    [{ maxRowz: 1 }, 'maxRowz'],
    [{ maxRows: 'ten' }, 'maxRows'],
    [{ maxRows: NaN }, 'maxRows'],
    [{ maxRows: 0 }, 'maxRows'],
    [{ maxRows: -1 }, 'maxRows'],
    [{ maxRows: 1.5 }, 'maxRows'],
    [{ maxDepth: 0 }, 'maxDepth'],
    [{ maxSqlBytes: 0 }, 'maxSqlBytes'],
    [{ maxTokens: 0 }, 'maxTokens'],
    [{ dialect: 'oracle' }, 'dialect'],
    [{ allowExplain: 'yes' }, 'allowExplain'],
    [{ tables: { allow: ['a', 3] } }, 'tables.allow[1]'],
    [{ tables: { allowed: ['a'] } }, 'tables.allowed'],
    [{ catalog: { tables: [{ name: 't', primary_keys: [] }] } }, 'catalog.tables[0].primaryKeys'],
    [{ functions: { allow: [() => 1] } }, 'functions.allow[0]'],
    ['postgres', 'options'],
    [[], 'options'],
  ]
  for (const [options, field] of cases) {
    assert.throws(
      () => new Guard(options),
      (e) => {
        assert.ok(e instanceof TypeError, `${JSON.stringify(options)}: ${e}`)
        assert.equal(e.field, field, e.message)
        assert.ok(e.message.includes(`\`${field}\``), e.message)
        return true
      },
    )
  }
})

test('classify', () => {
  assert.equal(classify('SELECT 1'), 'select')
  assert.equal(classify('WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d', 'postgres'), 'mutation_delete')
  assert.equal(classify('GRANT SELECT ON t TO u'), 'admin')
  assert.equal(classify('DROP TABLE t', 'sqlite'), 'ddl')
  assert.equal(classify('not sql at all'), 'unknown')
  assert.throws(() => classify('SELECT 1', 'oracle'), (e) => e instanceof TypeError && e.field === 'dialect')
})

test('non-string SQL is a TypeError from the binding layer', () => {
  const guard = new Guard()
  assert.throws(() => guard.check(42))
  assert.throws(() => guard.verdict(undefined))
})

test('deep and long input is refused or checked, never a crash, sync and on the pool', async () => {
  const guard = new Guard()
  // Within the default token budget (16000): refused for depth, and checked in full.
  const deep = `SELECT ${'('.repeat(5000)}1${')'.repeat(5000)}`
  const ors = `SELECT 1 FROM t WHERE ${Array.from({ length: 3000 }, (_, i) => `a = ${i}`).join(' OR ')}`
  const tooMany = `SELECT 1 FROM t WHERE ${Array.from({ length: 20000 }, (_, i) => `a = ${i}`).join(' OR ')}`
  assert.throws(() => guard.check(tooMany), { code: 'too_large' })
  assert.throws(() => guard.check(deep), { code: 'too_deep' })
  assert.match(guard.check(ors).sql, /LIMIT 1000$/)
  await assert.rejects(guard.checkAsync(deep), { code: 'too_deep' })
  assert.match((await guard.checkAsync(ors)).sql, /LIMIT 1000$/)
})
