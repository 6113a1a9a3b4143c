// Runs examples/guarded-sqlite.js against the Chinook SQLite database from the shared corpus.
'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const corpus = process.env.SQLGATE_CORPUS ?? path.join(__dirname, '..', '..', '..', 'shared', 'corpus')
const database = path.join(corpus, 'chinook', 'Chinook_Sqlite.sqlite')
const present = fs.existsSync(database)
// CI requires the corpus; a developer without it is told so instead of failing.
const skip = !present && !process.env.CI && `Chinook database not found at ${database} (set SQLGATE_CORPUS)`

test('examples/guarded-sqlite.js guards queries before running them', { skip }, () => {
  const run = spawnSync(process.execPath, [path.join(__dirname, '..', 'examples', 'guarded-sqlite.js')], {
    encoding: 'utf8',
    env: { ...process.env, SQLGATE_CORPUS: corpus },
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

test('the example runs one query from the command line', { skip }, () => {
  const run = spawnSync(
    process.execPath,
    [path.join(__dirname, '..', 'examples', 'guarded-sqlite.js'), 'SELECT count(*) AS n FROM Track'],
    { encoding: 'utf8', env: { ...process.env, SQLGATE_CORPUS: corpus } },
  )
  assert.equal(run.status, 0, run.stderr)
  assert.match(run.stdout, /ran: SELECT count\(\*\) AS n FROM Track LIMIT 5/)
  assert.match(run.stdout, /\{"n":3503\}/)
})
