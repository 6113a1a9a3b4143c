// Issue 15 item 8: checkWithRowCap, catalogFromDatabase, maxRows errors in the caller's words.
'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const Database = require('better-sqlite3')

const { Guard, catalogFromDatabase } = require('..')

// The repository's copy of the Chinook sample database (tests/fixtures/chinook, MIT).
const CHINOOK = path.join(__dirname, '..', '..', 'tests', 'fixtures', 'chinook', 'Chinook_Sqlite.sqlite')

test('checkWithRowCap replaces the policy cap and keeps check unchanged', () => {
  const guard = new Guard({ dialect: 'sqlite', maxRows: 50 })
  const approved = guard.checkWithRowCap('SELECT name FROM artist', 51)
  assert.equal(approved.sql, 'SELECT name FROM artist LIMIT 51')
  assert.deepStrictEqual(approved.limit, { action: 'injected', value: 51, original: null })
  assert.deepStrictEqual(guard.checkWithRowCap('SELECT name FROM artist LIMIT 500', 11).limit, {
    action: 'clamped',
    value: 11,
    original: 500,
  })
  assert.equal(guard.check('SELECT name FROM artist').sql, 'SELECT name FROM artist LIMIT 50')
})

test('checkWithRowCap: null is no cap, 0 is refused as core refuses it, bad types throw', () => {
  const guard = new Guard({ dialect: 'sqlite', maxRows: 50 })
  const uncapped = guard.checkWithRowCap('SELECT name FROM artist', null)
  assert.equal(uncapped.sql, 'SELECT name FROM artist')
  assert.equal(uncapped.limit.value, null)
  assert.throws(() => guard.checkWithRowCap('SELECT name FROM artist', 0), (e) => {
    assert.equal(e.code, 'bad_request')
    assert.match(e.message, /row cap of 0/)
    return true
  })
  for (const bad of ['10', -1, 1.5, NaN, {}]) {
    assert.throws(
      () => guard.checkWithRowCap('SELECT 1', bad),
      (e) => e instanceof TypeError && e.field === 'maxRows' && /must be an integer or null/.test(e.message),
      String(bad),
    )
  }
  assert.throws(() => guard.checkWithRowCap('DELETE FROM artist', 10), { code: 'statement_not_allowed' })
})

test('checkWithRowCap tells exactly N rows from truncated', () => {
  const db = new Database(':memory:')
  db.exec('CREATE TABLE t (x INTEGER)')
  for (let i = 0; i < 5; i++) db.prepare('INSERT INTO t VALUES (?)').run(i)
  const guard = new Guard({ dialect: 'sqlite', catalog: catalogFromDatabase(db) })
  const run = (n) => {
    const rows = db.prepare(guard.checkWithRowCap('SELECT x FROM t', n + 1).sql).all()
    return [Math.min(rows.length, n), rows.length > n]
  }
  assert.deepStrictEqual(run(5), [5, false])
  assert.deepStrictEqual(run(4), [4, true])
})

test("maxRows: '10' says what maxRows takes, not serde's untagged enum", () => {
  for (const [build, field] of [
    [() => new Guard({ maxRows: '10' }), 'maxRows'],
    [() => Guard.fromPolicy({ max_rows: '10' }), 'max_rows'],
    [() => Guard.fromPolicy('{"max_rows": true}'), 'max_rows'],
    [() => new Guard({ writes: { tables: ['t'], maxAffectedRows: '10' } }), 'writes.maxAffectedRows'],
  ]) {
    assert.throws(build, (e) => {
      assert.ok(e instanceof TypeError)
      assert.equal(e.field, field)
      assert.ok(e.message.endsWith(`\`${field}\`: must be an integer, or null or "none" for no cap`), e.message)
      assert.doesNotMatch(e.message, /untagged|RowCap/)
      return true
    })
  }
  // The accepted forms still pass.
  assert.equal(new Guard({ maxRows: 'none' }).policy.max_rows, null)
  assert.equal(new Guard({ maxRows: null }).policy.max_rows, null)
})

function schemaDb() {
  const db = new Database(':memory:')
  db.exec(`
    CREATE TABLE artist (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE album (id INTEGER, artist_id INTEGER, title TEXT, PRIMARY KEY (id),
                        FOREIGN KEY (artist_id) REFERENCES artist (id));
    CREATE TABLE pair (a INTEGER, b INTEGER, PRIMARY KEY (b, a));
    CREATE TABLE pair_ref (x INTEGER, y INTEGER, FOREIGN KEY (x, y) REFERENCES pair);
    CREATE VIEW artist_names AS SELECT name FROM artist;
    CREATE TABLE t_autoinc (id INTEGER PRIMARY KEY AUTOINCREMENT);
  `)
  return db
}

const table = (catalog, name) => catalog.tables.find((t) => t.name === name)

test('catalogFromDatabase reads tables, views, columns and keys in the options shape', () => {
  const catalog = catalogFromDatabase(schemaDb())
  assert.deepStrictEqual(
    catalog.tables.map((t) => t.name),
    ['album', 'artist', 'artist_names', 'pair', 'pair_ref', 't_autoinc'],
  )
  assert.deepStrictEqual(table(catalog, 'artist'), {
    name: 'artist',
    kind: 'table',
    columns: [
      { name: 'id', type: 'INTEGER', nullable: true },
      { name: 'name', type: 'TEXT', nullable: false },
    ],
    primaryKey: ['id'],
  })
  assert.deepStrictEqual(table(catalog, 'album').foreignKeys, [
    { columns: ['artist_id'], referencedTable: 'artist', referencedColumns: ['id'] },
  ])
  assert.deepStrictEqual(table(catalog, 'artist_names'), {
    name: 'artist_names',
    kind: 'view',
    columns: [{ name: 'name', type: 'TEXT' }],
  })
  assert.deepStrictEqual(table(catalog, 'pair').primaryKey, ['b', 'a'])
  assert.deepStrictEqual(table(catalog, 'pair_ref').foreignKeys, [
    { columns: ['x', 'y'], referencedTable: 'pair', referencedColumns: ['b', 'a'] },
  ])
})

test('catalogFromDatabase: the guard uses it; safeIntegers databases read the same', () => {
  const db = schemaDb()
  const plain = catalogFromDatabase(db)
  db.defaultSafeIntegers(true)
  assert.deepStrictEqual(catalogFromDatabase(db), plain)
  const guard = new Guard({ dialect: 'sqlite', catalog: plain })
  assert.deepStrictEqual(guard.check('SELECT name FROM artist').columns, ['artist.name'])
  assert.throws(() => guard.check('SELECT nam FROM artist'), { code: 'unknown_column' })
  assert.throws(() => guard.check('SELECT * FROM artists'), (e) => e.code === 'unknown_table' && /`artist`/.test(e.hint))
})

test('catalogFromDatabase refuses what is not a better-sqlite3 database', () => {
  for (const bad of [null, 42, {}, { prepare: 1 }]) {
    assert.throws(
      () => catalogFromDatabase(bad),
      (e) => e instanceof TypeError && e.field === 'db',
      String(bad),
    )
  }
})

test('catalogFromDatabase on Chinook', () => {
  const db = new Database(CHINOOK, { readonly: true, fileMustExist: true })
  const catalog = catalogFromDatabase(db)
  assert.deepStrictEqual(catalog.tables.map((t) => t.name), [
    'Album', 'Artist', 'Customer', 'Employee', 'Genre', 'Invoice', 'InvoiceLine',
    'MediaType', 'Playlist', 'PlaylistTrack', 'Track',
  ])
  const track = table(catalog, 'Track')
  assert.deepStrictEqual(track.columns.slice(0, 3).map((c) => c.name), ['TrackId', 'Name', 'AlbumId'])
  assert.deepStrictEqual(track.primaryKey, ['TrackId'])
  assert.ok(
    track.foreignKeys.some((fk) => fk.referencedTable === 'Album' && fk.columns[0] === 'AlbumId'),
    JSON.stringify(track.foreignKeys),
  )
  assert.deepStrictEqual(table(catalog, 'PlaylistTrack').primaryKey, ['PlaylistId', 'TrackId'])
  const guard = new Guard({ dialect: 'sqlite', catalog, maxRows: 3 })
  const approved = guard.check('SELECT ArtistId, Name FROM Artist ORDER BY ArtistId')
  assert.deepStrictEqual(approved.columns, ['artist.artistid', 'artist.name'])
  assert.throws(() => guard.check('SELECT Nam FROM Artist'), { code: 'unknown_column' })
  assert.deepStrictEqual(db.prepare(approved.sql).all().map((r) => r.Name), ['AC/DC', 'Accept', 'Aerosmith'])
})
