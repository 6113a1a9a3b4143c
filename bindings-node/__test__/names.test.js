// One list of names per enum: the types generated from core's JSON Schemas are up to date, and
// the unions they declare are exactly core's runtime lists (ERROR_CODES, ... from each enum's ALL).
'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const ts = require('typescript')

const sqlgate = require('..')

const root = path.join(__dirname, '..')
const GENERATED = path.join(root, 'types', 'generated.d.ts')

test('types/generated.d.ts is what scripts/gen-types.mjs makes of core\'s schemas', () => {
  const run = spawnSync(process.execPath, [path.join(root, 'scripts', 'gen-types.mjs'), '--check'], {
    encoding: 'utf8',
    cwd: root,
  })
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`)
})

/** The string literals of each union type alias in the generated declarations, via tsc. */
function unions(names) {
  const program = ts.createProgram([GENERATED], { strict: true, noEmit: true })
  const checker = program.getTypeChecker()
  const file = program.getSourceFile(GENERATED)
  const found = {}
  ts.forEachChild(file, (node) => {
    if (ts.isTypeAliasDeclaration(node) && names.includes(node.name.text)) {
      const type = checker.getTypeAtLocation(node.name)
      const members = type.isUnion() ? type.types : [type]
      found[node.name.text] = members.map((t) => t.value)
    }
  })
  return found
}

test('the generated unions equal core\'s runtime lists', () => {
  const lists = {
    ErrorCode: sqlgate.ERROR_CODES,
    Stage: sqlgate.STAGES,
    QueryClass: sqlgate.QUERY_CLASSES,
    Dialect: sqlgate.DIALECTS,
    LimitAction: sqlgate.LIMIT_ACTIONS,
  }
  const declared = unions(Object.keys(lists))
  for (const [name, list] of Object.entries(lists)) {
    assert.ok(Array.isArray(list) && list.length > 0, `${name}: no runtime list`)
    assert.ok(list.every((v) => typeof v === 'string'), name)
    assert.deepStrictEqual([...(declared[name] ?? [])].sort(), [...list].sort(), name)
  }
  // Spot checks against what callers rely on.
  assert.deepStrictEqual(sqlgate.STAGES, ['precheck', 'parse', 'validate', 'rewrite'])
  assert.deepStrictEqual(sqlgate.LIMIT_ACTIONS, ['injected', 'clamped', 'kept', 'none'])
})

test('every runtime name is one core produces: classify and errors use the same lists', () => {
  assert.ok(sqlgate.QUERY_CLASSES.includes(sqlgate.classify('SELECT 1')))
  for (const dialect of sqlgate.DIALECTS) sqlgate.classify('SELECT 1', dialect)
  const guard = new sqlgate.Guard()
  assert.throws(() => guard.check('DROP TABLE t'), (e) => {
    assert.ok(sqlgate.ERROR_CODES.includes(e.code))
    assert.ok(sqlgate.STAGES.includes(e.stage))
    return true
  })
})
