// Row filters through the Node API: the `rows` option and `{ vars }` on every check.
'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')

const { Guard, ERROR_CODES } = require('..')

const rows = {
  invoice: 'customer_id = :tenant',
  InvoiceLine: 'invoice_id IN (SELECT invoice_id FROM invoice WHERE customer_id = :tenant)',
}

test('every check takes { vars } and the approved SQL reads only the filtered rows', async () => {
  const guard = new Guard({ dialect: 'sqlite', rows, maxRows: null })
  assert.deepStrictEqual(guard.rowFilterVariables, ['tenant'])
  const vars = { tenant: 3 }
  // `rows` keys are table names, kept as written (not turned into snake_case).
  const approved = guard.check('SELECT count(*) FROM InvoiceLine', { vars })
  assert.deepStrictEqual(approved.rowFilters, ['InvoiceLine', 'invoice'])
  assert.match(approved.sql, /customer_id = 3/)
  assert.match(guard.checkWithRowCap('SELECT * FROM invoice', 5, { vars }).sql, /LIMIT 5$/)
  assert.deepStrictEqual((await guard.checkAsync('SELECT * FROM invoice', { vars })).rowFilters, ['invoice'])
  assert.deepStrictEqual(guard.verdict('SELECT * FROM invoice', { vars }).row_filters, ['invoice'])
})

test('a missing variable throws a row_filter refusal, never an unfiltered query', async () => {
  const guard = new Guard({ rows })
  assert.ok(ERROR_CODES.includes('row_filter'))
  assert.throws(() => guard.check('SELECT * FROM invoice'), { code: 'row_filter' })
  await assert.rejects(guard.checkAsync('SELECT * FROM invoice', { vars: { other: 1 } }), { code: 'row_filter' })
  assert.strictEqual(guard.verdict('SELECT * FROM invoice').error.code, 'row_filter')
})

test('values are typed literals; bad vars and options throw a TypeError naming the field', () => {
  const guard = new Guard({ rows: { t: 'name = :name AND n >= :n' } })
  const { sql } = guard.check('SELECT * FROM t', { vars: { name: "O'Hara", n: -2 } })
  assert.match(sql, /name = 'O''Hara' AND sqlgate_filtered\.n >= \(-2\)/)
  assert.throws(() => guard.check('SELECT * FROM t', { vars: { name: [1] } }), {
    name: 'TypeError',
    field: 'options.vars.name',
  })
  assert.throws(() => guard.check('SELECT * FROM t', { var: {} }), { name: 'TypeError', field: 'options.var' })
})

test('mutations take { vars } too', () => {
  const guard = new Guard({ rows, writes: { tables: ['invoice'] } })
  const approved = guard.checkMutation('UPDATE invoice SET total = 0 WHERE invoice_id = 1', { vars: { tenant: 4 } })
  assert.match(approved.sql, /WHERE \(invoice\.customer_id = 4\) AND \(invoice_id = 1\)$/)
  assert.deepStrictEqual(approved.rowFilters, ['invoice'])
  const verdict = guard.mutationVerdict('INSERT INTO invoice (invoice_id) VALUES (1)', { vars: { tenant: 4 } })
  assert.strictEqual(verdict.error.code, 'row_filter')
})
