// Runs the README's "Mutations" snippet, so the documented calls and answers stay true.
'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const README = path.join(__dirname, '..', 'README.md')

/** The first ```js block of the README section titled `title`. */
function snippet(title) {
  const text = fs.readFileSync(README, 'utf8')
  const start = text.indexOf(`\n## ${title}\n`)
  assert.ok(start >= 0, `README has no "## ${title}" section`)
  const end = text.indexOf('\n## ', start + 1)
  const section = text.slice(start, end < 0 ? undefined : end)
  const match = section.match(/```js\n([\s\S]*?)```/)
  assert.ok(match, `the "${title}" section has no js block`)
  return match[1]
}

test('the README Mutations snippet runs', () => {
  const code = snippet('Mutations')
  assert.match(code, /checkMutation/)
  // `require('sqlgate')` in the snippet is this package.
  const load = (name) => require(name === 'sqlgate' ? '..' : name)
  new Function('require', code)(load)
})
