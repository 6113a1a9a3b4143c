#!/usr/bin/env node
// Benchmark: `guard.check` through the Node binding against node-sql-parser *parsing alone*
// (`astify`), on the same queries in the same run: Chinook gold (SQLite and PostgreSQL forms) and
// Spider dev (SQLite). Method as core's criterion bench: each query is timed alone 31 times, its
// median kept; the figure is the median over queries. With `--rust` it also runs the same method
// in Rust on core directly (the `rust_baseline` example, built in release) for the binding's
// overhead.
//
//   npm run build && node bench/compare.mjs [--rust] [--runs N]
//
// Corpus: ${SQLGATE_CORPUS:-<repo>/../shared/corpus}
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { spawnSync } from 'node:child_process'

const require = createRequire(import.meta.url)
const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.join(here, '..')
const { Guard } = require(root)
const { Parser } = require('node-sql-parser')

const args = process.argv.slice(2)
const runs = Number(args[args.indexOf('--runs') + 1]) || 31
const corpus = process.env.SQLGATE_CORPUS ?? path.join(root, '..', '..', 'shared', 'corpus')

const sets = [
  { name: 'chinook gold (sqlite)', file: 'chinook/chinook_gold.jsonl', dialect: 'sqlite', nsp: 'sqlite' },
  { name: 'chinook gold (postgres)', file: 'chinook/chinook_gold_postgres.jsonl', dialect: 'postgres', nsp: 'postgresql' },
  { name: 'spider dev (sqlite)', file: 'spider/spider_dev.jsonl', dialect: 'sqlite', nsp: 'sqlite' },
]

function load(file) {
  const p = path.join(corpus, file)
  if (!fs.existsSync(p)) return null
  return fs
    .readFileSync(p, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l).sql)
    .filter((s) => typeof s === 'string')
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[s.length >> 1]
}

/** Median over queries of each query's median single-call time, in microseconds. */
function time(queries, fn) {
  for (const q of queries) fn(q) // warm up
  const perQuery = queries.map((q) => {
    const samples = new Array(runs)
    for (let i = 0; i < runs; i++) {
      const t = process.hrtime.bigint()
      fn(q)
      samples[i] = Number(process.hrtime.bigint() - t) / 1e3
    }
    return median(samples)
  })
  return median(perQuery)
}

const attempt = (f) => (q) => {
  try {
    f(q)
  } catch {
    // refused / unparsable queries are timed too: the caller pays for them as well
  }
}

function rustBaseline() {
  if (!args.includes('--rust')) return null
  const run = spawnSync(
    'cargo',
    ['run', '--quiet', '--release', '-p', 'sqlgate-node', '--example', 'rust_baseline', '--', String(runs)],
    { cwd: root, encoding: 'utf8', env: { ...process.env, SQLGATE_CORPUS: corpus }, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  if (run.status !== 0) {
    console.error('rust baseline failed; continuing without it')
    return null
  }
  return JSON.parse(run.stdout)
}

const rust = rustBaseline()
const parser = new Parser()
const fmt = (n) => n.toFixed(1).padStart(8)
console.log(`node ${process.version}, ${runs} runs per query, median of per-query medians (us)`)
console.log(
  `${'set'.padEnd(26)}${'n'.padStart(6)}${'ok'.padStart(6)}${'check'.padStart(9)}` +
    `${rust ? 'rust'.padStart(9) + 'node/rs'.padStart(9) : ''}` +
    `${'nsp'.padStart(9)}${'nsp ok'.padStart(8)}${'nsp/chk'.padStart(9)}`,
)
let missing = 0
for (const set of sets) {
  const queries = load(set.file)
  if (!queries) {
    console.log(`${set.name.padEnd(26)} corpus file ${set.file} not found under ${corpus}`)
    missing += 1
    continue
  }
  const guard = new Guard({ dialect: set.dialect })
  const approved = queries.filter((q) => guard.verdict(q).allowed).length
  const nspOk = queries.filter((q) => {
    try {
      parser.astify(q, { database: set.nsp })
      return true
    } catch {
      return false
    }
  }).length
  const check = time(queries, attempt((q) => guard.check(q)))
  const nsp = time(queries, attempt((q) => parser.astify(q, { database: set.nsp })))
  const rs = rust?.[set.file]
  console.log(
    `${set.name.padEnd(26)}${String(queries.length).padStart(6)}${String(approved).padStart(6)}${fmt(check)} ` +
      `${rs ? `${fmt(rs)} ${fmt(check / rs)}x` : ''}` +
      `${fmt(nsp)}${String(nspOk).padStart(8)}${fmt(nsp / check)}x`,
  )
}
console.log('check: guard.check (parse, validate, cap, regenerate, self-check); nsp: node-sql-parser astify only')
console.log('nsp/chk > 1 means guard.check is faster than node-sql-parser parsing alone')
if (missing === sets.length) process.exit(2)
