// The mutation entry: checkMutation / mutationVerdict, the `writes` option, and reads unchanged.
'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')

const { Guard } = require('..')

const writes = { tables: ['orders', 'order_lines'] }

test('an UPDATE with WHERE on a writable table is approved with its target and columns', () => {
  const guard = new Guard({ writes })
  const sql = "UPDATE orders SET status = 'cancelled' WHERE id = 7"
  const approved = guard.checkMutation(sql)
  assert.deepStrictEqual(approved, {
    sql,
    queryClass: 'mutation_create',
    target: 'orders',
    tablesRead: [],
    columnsWritten: ['status'],
    functions: [],
    hasWhere: true,
  })
  const verdict = guard.mutationVerdict(sql)
  assert.deepStrictEqual(Object.keys(verdict), [
    'allowed',
    'sql',
    'query_class',
    'statement_count',
    'target',
    'tables_read',
    'columns_written',
    'functions',
    'has_where',
  ])
  assert.equal(verdict.allowed, true)
  assert.equal(verdict.target, 'orders')
  assert.deepStrictEqual(verdict.columns_written, ['status'])
})

test('an UPDATE without WHERE throws unbounded_mutation unless allowUnbounded', () => {
  const sql = "UPDATE orders SET status = 'cancelled'"
  const guard = new Guard({ writes })
  const verdict = guard.mutationVerdict(sql)
  assert.equal(verdict.allowed, false)
  assert.throws(
    () => guard.checkMutation(sql),
    (e) => {
      assert.ok(e instanceof Error)
      assert.equal(e.code, 'unbounded_mutation')
      assert.equal(e.code, verdict.error.code)
      assert.equal(e.stage, verdict.error.stage)
      assert.equal(e.hint, verdict.error.hint)
      assert.equal(typeof e.hint, 'string')
      assert.equal(e.queryClass, 'mutation_create')
      assert.equal(e.statementCount, 1)
      assert.equal(e.message, `unbounded_mutation: ${verdict.error.message}`)
      return true
    },
  )
  const unbounded = new Guard({ writes: { ...writes, allowUnbounded: true } })
  assert.equal(unbounded.checkMutation(sql).hasWhere, false)
})

test('a DELETE is refused unless writes.classes has mutation_delete', () => {
  const sql = 'DELETE FROM orders WHERE id = 7'
  const createOnly = new Guard({ writes })
  assert.throws(() => createOnly.checkMutation(sql), (e) => {
    assert.equal(e.code, 'statement_not_allowed')
    assert.equal(e.queryClass, 'mutation_delete')
    return true
  })
  const deletes = new Guard({ writes: { ...writes, classes: ['mutation_create', 'mutation_delete'] } })
  const approved = deletes.checkMutation(sql)
  assert.equal(approved.queryClass, 'mutation_delete')
  assert.equal(approved.target, 'orders')
  assert.deepStrictEqual(approved.columnsWritten, [])
})

test('a target outside writes.tables, or a policy without writes, throws table_not_writable', () => {
  assert.throws(() => new Guard({ writes }).checkMutation("UPDATE customer SET email = '' WHERE id = 1"), {
    code: 'table_not_writable',
  })
  const readOnly = new Guard()
  assert.equal(readOnly.policy.writes, undefined)
  for (const sql of ["UPDATE orders SET status = 'x' WHERE id = 7", 'INSERT INTO orders (id) VALUES (1)']) {
    assert.throws(() => readOnly.checkMutation(sql), { code: 'table_not_writable' })
    assert.equal(readOnly.mutationVerdict(sql).error.code, 'table_not_writable')
  }
})

test('check still refuses every mutation, whatever writes allows', () => {
  const guard = new Guard({ writes: { ...writes, classes: ['mutation_create', 'mutation_delete'], allowUnbounded: true } })
  for (const sql of [
    "UPDATE orders SET status = 'x' WHERE id = 7",
    'INSERT INTO orders (id) VALUES (1)',
    'DELETE FROM orders WHERE id = 7',
    'DELETE FROM orders',
    "MERGE INTO orders o USING order_lines l ON o.id = l.order_id WHEN MATCHED THEN UPDATE SET status = 'x'",
  ]) {
    guard.checkMutation(sql) // allowed as a mutation...
    assert.throws(() => guard.check(sql), { code: 'statement_not_allowed' }, sql) // ...never as a read
    assert.equal(guard.verdict(sql).allowed, false, sql)
  }
  // and a read is not a mutation
  assert.throws(() => guard.checkMutation('SELECT * FROM orders'), { code: 'statement_not_allowed' })
})

test('writes in camelCase options and in a snake_case policy reach core', () => {
  const camel = new Guard({ writes: { tables: ['orders'], maxAffectedRows: 5, allowUnbounded: true } })
  assert.deepStrictEqual(camel.policy.writes, {
    tables: ['orders'],
    classes: ['mutation_create'],
    max_affected_rows: 5,
    allow_unbounded: true,
  })
  const snake = Guard.fromPolicy({ writes: { tables: ['orders'], max_affected_rows: null } })
  assert.equal(snake.policy.writes.max_affected_rows, null)
  const json = Guard.fromPolicy('{"writes": {"tables": ["orders"], "classes": ["mutation_delete"]}}')
  assert.equal(json.checkMutation('DELETE FROM orders WHERE id = 1').queryClass, 'mutation_delete')
  assert.equal(new Guard({ writes }).policy.writes.max_affected_rows, 100)
})

test('bad writes options throw a TypeError naming the field', () => {
  const cases = [
    [{ writes: { tables: ['orders'], classes: ['select'] } }, 'writes.classes[0]'],
    [{ writes: { tables: [] } }, 'writes.tables'],
    [{ writes: { tables: ['orders'], maxAffectedRows: 0 } }, 'writes.maxAffectedRows'],
    [{ writes: { tables: ['orders'], allowUnbounded: 'yes' } }, 'writes.allowUnbounded'],
    [{ writes: { tables: ['orders'], classes: ['mutation_everything'] } }, 'writes.classes[0]'],
    [{ writes: { table: ['orders'] } }, 'writes.table'],
    [{ writes: { tables: ['a..b'] } }, 'writes.tables[0]'],
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
  assert.throws(
    () => Guard.fromPolicy({ writes: { tables: ['orders'], max_affected_rows: 0 } }),
    (e) => e instanceof TypeError && e.field === 'writes.max_affected_rows',
  )
})
