// Runs examples/guarded-sqlite.js against the repository's Chinook SQLite database
// (tests/fixtures/chinook).
'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

test('examples/guarded-sqlite.js guards queries before running them', () => {
  const run = spawnSync(process.execPath, [path.join(__dirname, '..', 'examples', 'guarded-sqlite.js')], {
    encoding: 'utf8',
  })
  assert.equal(run.status, 0, run.stderr)
  const out = run.stdout
  assert.match(out, /ran: SELECT Name FROM Artist ORDER BY Name LIMIT 5 {2}\(limit injected, 5 rows\)/)
  assert.match(out, /\{"genre":"Rock","tracks":1297\}/)
  assert.match(out, /refused \[column_not_allowed, select\]/)
  assert.match(out, /refused \[unknown_table, select\]/)
  assert.match(out, /refused \[statement_not_allowed, mutation_delete\]/)
  assert.match(out, /refused \[multiple_statements, admin\]/)
  assert.match(out, /refused \[system_catalog, select\]/)
})

test('the example runs one query from the command line', () => {
  const run = spawnSync(
    process.execPath,
    [path.join(__dirname, '..', 'examples', 'guarded-sqlite.js'), 'SELECT count(*) AS n FROM Track'],
    { encoding: 'utf8' },
  )
  assert.equal(run.status, 0, run.stderr)
  assert.match(run.stdout, /ran: SELECT count\(\*\) AS n FROM Track LIMIT 5/)
  assert.match(run.stdout, /\{"n":3503\}/)
})
