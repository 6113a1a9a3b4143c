// Every ```js block of the README runs as written, so the documented calls and answers stay true.
// A block followed by a ```text block must print exactly that text. Blocks that read the Chinook
// sample database get it from the corpus (CHINOOK); without the corpus they are skipped and say
// so, except in CI (CI=true), where that is a failure.
'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const README = path.join(__dirname, '..', 'README.md')
const CORPUS = process.env.SQLGATE_CORPUS ?? path.join(__dirname, '..', '..', '..', 'shared', 'corpus')
const CHINOOK = path.join(CORPUS, 'chinook', 'Chinook_Sqlite.sqlite')

/** [{ label, code, expected }] for each js block, in README order. */
function readmeBlocks() {
  const text = fs.readFileSync(README, 'utf8')
  const fences = [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```\n/gm)].map((m) => ({
    lang: m[1],
    body: m[2],
    start: m.index,
    end: m.index + m[0].length,
  }))
  const blocks = []
  fences.forEach((f, i) => {
    if (f.lang !== 'js') return
    const next = fences[i + 1]
    const expected =
      next && next.lang === 'text' && text.slice(f.end, next.start).trim() === '' ? next.body : undefined
    const line = text.slice(0, f.start).split('\n').length
    blocks.push({ label: `README.md:${line}`, code: f.body, expected })
  })
  return blocks
}

const BLOCKS = readmeBlocks()

test('the README has runnable blocks', () => {
  assert.ok(BLOCKS.length >= 4, `only ${BLOCKS.length} js blocks`)
  assert.ok(BLOCKS.filter((b) => b.expected !== undefined).length >= 2)
})

for (const { label, code, expected } of BLOCKS) {
  test(`README block ${label} runs`, (t) => {
    if (code.includes('CHINOOK') && !fs.existsSync(CHINOOK)) {
      if (process.env.CI === 'true') assert.fail(`${label}: the Chinook database is missing at ${CHINOOK} (CI requires the corpus)`)
      t.skip(`SKIPPED: the Chinook database is not at ${CHINOOK} (set SQLGATE_CORPUS)`)
      return
    }
    const printed = []
    const console = { log: (...args) => printed.push(args.map(String).join(' ')) }
    // `require('sqlgate')` in a block is this package.
    const load = (name) => require(name === 'sqlgate' ? '..' : name)
    // Not named `process`: a `const process` here would shadow the global from the top of this
    // callback (the CI check above), where it is not yet initialised.
    const blockProcess = { ...process, env: { ...process.env, CHINOOK } }
    new Function('require', 'console', 'process', code)(load, console, blockProcess)
    if (expected !== undefined) {
      assert.equal(printed.map((l) => `${l}\n`).join(''), expected, `${label}: the output differs from the README`)
    }
  })
}
