// Type test: the generated index.d.ts must type-check examples/typed.ts (tsc --noEmit).
'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

test('tsc --noEmit accepts examples/typed.ts against index.d.ts', () => {
  const root = path.join(__dirname, '..')
  const tsc = require.resolve('typescript/bin/tsc', { paths: [root] })
  const run = spawnSync(process.execPath, [tsc, '--noEmit', '-p', path.join(root, 'tsconfig.json')], {
    encoding: 'utf8',
    cwd: root,
  })
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`)
})
