#!/usr/bin/env node
// Guard an agent's SQL before it reaches a database: check every query with sqlgate, run only
// `approved.sql` (regenerated, row cap applied) on a read-only connection, and hand refusals back
// to the agent with their code and hint.
//
//   node examples/guarded-sqlite.js ["SELECT ..." ...]
//
// Database: the repository's copy of Chinook, <repo>/tests/fixtures/chinook/Chinook_Sqlite.sqlite
'use strict'

const path = require('node:path')
const Database = require('better-sqlite3')
const { Guard } = require('..') // in your project: require('sqlgate')

const file = path.join(__dirname, '..', '..', 'tests', 'fixtures', 'chinook', 'Chinook_Sqlite.sqlite')

// Read-only at the connection too: the guard is the first line, not the only one.
const db = new Database(file, { readonly: true, fileMustExist: true })

// Tell the guard which tables and columns exist (trusted code reading the schema, not agent SQL):
// unknown names are then refused with a hint naming the closest real one.
const tables = db
  .prepare("SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'")
  .all()
  .map(({ name }) => ({
    name,
    columns: db.prepare('SELECT name, type FROM pragma_table_info(?)').all(name),
  }))

const guard = new Guard({
  dialect: 'sqlite',
  maxRows: 5,
  columns: { deny: ['Customer.Email', 'Customer.Phone', 'Employee.HomePhone'] },
  catalog: { tables },
})

/** What a tool handler of an agent would do with one query. */
function runGuarded(sql) {
  let approved
  try {
    approved = guard.check(sql)
  } catch (e) {
    if (typeof e.code !== 'string' || e.queryClass === undefined) throw e // not a refusal
    return { ok: false, code: e.code, queryClass: e.queryClass, message: e.message, hint: e.hint }
  }
  const rows = db.prepare(approved.sql).all() // approved.sql, never `sql`
  return { ok: true, sql: approved.sql, limit: approved.limit.action, rows }
}

const queries = process.argv.slice(2).length
  ? process.argv.slice(2)
  : [
      'SELECT Name FROM Artist ORDER BY Name',
      'SELECT g.Name AS genre, count(*) AS tracks FROM Track t JOIN Genre g ON g.GenreId = t.GenreId GROUP BY g.Name ORDER BY tracks DESC LIMIT 3',
      'SELECT FirstName, Email FROM Customer',
      'SELECT * FROM Artists',
      'DELETE FROM Invoice',
      "SELECT 1; ATTACH DATABASE '/tmp/x.db' AS x",
      'SELECT name FROM sqlite_master',
    ]

for (const sql of queries) {
  const r = runGuarded(sql)
  console.log(`> ${sql}`)
  if (r.ok) {
    console.log(`  ran: ${r.sql}  (limit ${r.limit}, ${r.rows.length} rows)`)
    for (const row of r.rows) console.log(`    ${JSON.stringify(row)}`)
  } else {
    console.log(`  refused [${r.code}, ${r.queryClass}]: ${r.message}`)
    if (r.hint) console.log(`  hint: ${r.hint}`)
  }
}
db.close()
