// Every ```js block of the README runs as written, so the documented calls and answers stay true.
// A block followed by a ```text block must print exactly that text. Blocks that read the Chinook
// sample database name the repository's copy relative to the repository's root, as the README
// says to run them from there; they run there.
'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const README = path.join(__dirname, '..', 'README.md')
const REPO = path.join(__dirname, '..', '..')
// How the README's blocks name the Chinook database: relative to the repository's root.
const CHINOOK_IN_README = 'tests/fixtures/chinook/Chinook_Sqlite.sqlite'

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
  // The Usage block runs on Chinook and prints what it read; the name it uses is a file.
  assert.ok(BLOCKS.some((b) => b.code.includes(CHINOOK_IN_README) && b.expected !== undefined))
  assert.ok(fs.existsSync(path.join(REPO, CHINOOK_IN_README)))
})

for (const { label, code, expected } of BLOCKS) {
  test(`README block ${label} runs`, () => {
    const printed = []
    const console = { log: (...args) => printed.push(args.map(String).join(' ')) }
    // `require('sqlgate')` in a block is this package.
    const load = (name) => require(name === 'sqlgate' ? '..' : name)
    // A block on Chinook runs from the repository's root, as the README says (it opens the file
    // read-only); the block runs synchronously, so the directory is restored before any other test.
    const cwd = process.cwd()
    if (code.includes(CHINOOK_IN_README)) process.chdir(REPO)
    try {
      new Function('require', 'console', code)(load, console)
    } finally {
      process.chdir(cwd)
    }
    if (expected !== undefined) {
      assert.equal(printed.map((l) => `${l}\n`).join(''), expected, `${label}: the output differs from the README`)
    }
  })
}
