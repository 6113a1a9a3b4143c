// The shared vectors (repo root tests/vectors/*.jsonl) through the Node API: every verdict must
// deep-equal the `expect` object, exactly as core serialises it.
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

for (const file of files) {
  test(`vectors: ${file}`, () => {
    let checked = 0
    const failures = []
    for (const c of cases.filter((x) => x.file === file)) {
      const got = guardFor(c).verdict(c.sql)
      try {
        assert.deepStrictEqual(got, c.expect)
      } catch {
        failures.push(
          `${file}:${c.line} ${c.name}\n  sql:    ${JSON.stringify(c.sql)}\n` +
            `  expect: ${JSON.stringify(c.expect)}\n  got:    ${JSON.stringify(got)}`,
        )
      }
      checked += 1
    }
    assert.ok(checked > 0, `${file} holds no case`)
    assert.equal(failures.length, 0, `${failures.length} of ${checked} differ:\n${failures.join('\n')}`)
  })
}
