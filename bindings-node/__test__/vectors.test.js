// The shared vectors (repo root tests/vectors/*.jsonl) through the Node API: every verdict must
// deep-equal the `expect` object, exactly as core serialises it. A row with `"entry": "mutation"`
// is checked by the mutation entry (`mutationVerdict`), every other row by `verdict`.
'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const { Guard } = require('..')

const VECTORS = process.env.SQLGATE_VECTORS ?? path.join(__dirname, '..', '..', 'tests', 'vectors')

function load() {
  const files = fs.existsSync(VECTORS)
    ? fs.readdirSync(VECTORS).filter((f) => f.endsWith('.jsonl')).sort()
    : []
  const cases = []
  /** `checkMutation` agrees with the mutation verdict: the approved fields, or the thrown code. */
function sameAsThrown(guard, c) {
  if (c.expect.allowed) {
    const a = guard.checkMutation(c.sql)
    assert.equal(a.sql, c.expect.sql)
    assert.equal(a.target, c.expect.target)
    assert.deepStrictEqual(a.columnsWritten, c.expect.columns_written)
    assert.deepStrictEqual(a.tablesRead, c.expect.tables_read)
    assert.equal(a.hasWhere, c.expect.has_where)
  } else {
    assert.throws(() => guard.checkMutation(c.sql), { code: c.expect.error.code })
  }
}

for (const file of files) {
    const lines = fs.readFileSync(path.join(VECTORS, file), 'utf8').split('\n')
    lines.forEach((line, i) => {
      if (line.trim() === '') return
      cases.push({ file, line: i + 1, ...JSON.parse(line) })
    })
  }
  return { files, cases }
}

const { files, cases } = load()

test('shared vectors are present', () => {
  assert.ok(files.length > 0, `no *.jsonl vectors in ${VECTORS}`)
  assert.ok(cases.length > 0, `the vector files in ${VECTORS} hold no case`)
})

// One guard per distinct policy: compiling is the expensive part.
const guards = new Map()
function guardFor(c) {
  // As core's vector test: the case's policy, with the case's dialect when it names none.
  const policy = { ...(c.policy ?? {}) }
  if (policy.dialect === undefined) policy.dialect = c.dialect ?? 'postgres'
  const key = JSON.stringify(policy)
  if (!guards.has(key)) guards.set(key, Guard.fromPolicy(policy))
  return guards.get(key)
}

/** `checkMutation` agrees with the mutation verdict: the approved fields, or the thrown code. */
function sameAsThrown(guard, c) {
  if (c.expect.allowed) {
    const a = guard.checkMutation(c.sql)
    assert.equal(a.sql, c.expect.sql)
    assert.equal(a.target, c.expect.target)
    assert.deepStrictEqual(a.columnsWritten, c.expect.columns_written)
    assert.deepStrictEqual(a.tablesRead, c.expect.tables_read)
    assert.equal(a.hasWhere, c.expect.has_where)
  } else {
    assert.throws(() => guard.checkMutation(c.sql), { code: c.expect.error.code })
  }
}

for (const file of files) {
  test(`vectors: ${file}`, () => {
    let checked = 0
    const failures = []
    for (const c of cases.filter((x) => x.file === file)) {
      const guard = guardFor(c)
      const got = c.entry === 'mutation' ? guard.mutationVerdict(c.sql) : guard.verdict(c.sql)
      try {
        assert.deepStrictEqual(got, c.expect)
        if (c.entry === 'mutation') sameAsThrown(guard, c)
      } catch {
        failures.push(
          `${file}:${c.line} ${c.name} (${c.entry ?? 'read'})\n  sql:    ${JSON.stringify(c.sql)}\n` +
            `  expect: ${JSON.stringify(c.expect)}\n  got:    ${JSON.stringify(got)}`,
        )
      }
      checked += 1
    }
    assert.ok(checked > 0, `${file} holds no case`)
    assert.equal(failures.length, 0, `${failures.length} of ${checked} differ:\n${failures.join('\n')}`)
  })
}
