//! The PostgreSQL parser's view of an approved query (libpg_query through the `pg_query` crate).

use std::collections::HashSet;
use std::sync::OnceLock;

use serde_json::Value;
use sqlgate::Approved;

const POSTGRES_ALLOW: &str = include_str!("../../core/src/functions/data/postgres_allow.txt");

fn allowlist() -> &'static HashSet<&'static str> {
    static LIST: OnceLock<HashSet<&'static str>> = OnceLock::new();
    LIST.get_or_init(|| {
        POSTGRES_ALLOW
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect()
    })
}

const MODIFYING: &[&str] = &[
    "InsertStmt",
    "UpdateStmt",
    "DeleteStmt",
    "MergeStmt",
    "CreateTableAsStmt",
    "CopyStmt",
];

/// What PostgreSQL's parser says about `approved.sql`; `Err` names the first problem.
///
/// SQL that PostgreSQL refuses to parse is reported on stderr but is not a failure: sqlparser
/// accepts some forms PostgreSQL does not (`SELECT * AS x`), and a query the server cannot parse
/// cannot run, so it is no bypass. What PostgreSQL does parse must be exactly one plain SELECT.
pub fn check_approved(approved: &Approved) -> Result<(), String> {
    let parsed = match pg_query::parse(&approved.sql, pg_query::ParserOptions::default()) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!(
                "note: PostgreSQL cannot parse approved SQL {:?}: {e}",
                approved.sql
            );
            return Ok(());
        }
    };
    let stmts = &parsed.protobuf.stmts;
    if stmts.len() != 1 {
        return Err(format!("PostgreSQL sees {} statements", stmts.len()));
    }
    let tree = serde_json::to_value(&stmts[0]).map_err(|e| e.to_string())?;
    let top = tree.pointer("/stmt/node").ok_or("no statement node")?;
    if top.get("SelectStmt").is_none() {
        return Err(format!("PostgreSQL sees a {} statement", first_key(top)));
    }
    let mut problems = Vec::new();
    let mut ctes = Vec::new();
    cte_names(&tree, &mut ctes);
    walk(&tree, approved, &ctes, &mut problems);
    match problems.into_iter().next() {
        Some(p) => Err(p),
        None => Ok(()),
    }
}

fn first_key(v: &Value) -> String {
    v.as_object()
        .and_then(|o| o.keys().next().cloned())
        .unwrap_or_else(|| v.to_string())
}

fn strings(list: &Value) -> Vec<String> {
    list.as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|n| n.pointer("/node/String/sval").and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Every CTE name in the tree: an unqualified relation of that name is the CTE, not a table
/// (CTE names shadow tables, also `pg_*` catalog names).
fn cte_names(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            if let Some(name) = map
                .get("CommonTableExpr")
                .and_then(|c| c.get("ctename"))
                .and_then(Value::as_str)
            {
                out.push(name.to_string());
            }
            map.values().for_each(|inner| cte_names(inner, out));
        }
        Value::Array(items) => items.iter().for_each(|i| cte_names(i, out)),
        _ => {}
    }
}

fn walk(v: &Value, approved: &Approved, ctes: &[String], problems: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (key, inner) in map {
                match key.as_str() {
                    "SelectStmt" => {
                        if inner
                            .get("locking_clause")
                            .and_then(Value::as_array)
                            .is_some_and(|a| !a.is_empty())
                        {
                            problems.push("PostgreSQL sees a locking clause".into());
                        }
                        if inner.get("into_clause").is_some_and(|i| !i.is_null()) {
                            problems.push("PostgreSQL sees SELECT ... INTO".into());
                        }
                    }
                    k if MODIFYING.contains(&k) => {
                        problems.push(format!("PostgreSQL sees a nested {k}"));
                    }
                    "FuncCall" => {
                        let name = strings(inner.get("funcname").unwrap_or(&Value::Null));
                        let last = name.last().cloned().unwrap_or_default();
                        let schema_ok =
                            name.len() == 1 || (name.len() == 2 && name[0] == "pg_catalog");
                        let on_list = schema_ok && allowlist().contains(last.as_str());
                        let reported = approved
                            .functions
                            .iter()
                            .any(|f| f.rsplit('.').next() == Some(last.as_str()));
                        if !on_list && !reported {
                            problems.push(format!(
                                "PostgreSQL calls {} which sqlgate neither allowlists nor reported ({:?})",
                                name.join("."),
                                approved.functions
                            ));
                        }
                    }
                    "RangeVar" => {
                        let schema = inner
                            .get("schemaname")
                            .and_then(Value::as_str)
                            .unwrap_or("");
                        let rel = inner.get("relname").and_then(Value::as_str).unwrap_or("");
                        let shadowed = schema.is_empty() && ctes.iter().any(|c| c == rel);
                        let catalog = !shadowed
                            && (matches!(schema, "pg_catalog" | "information_schema")
                                || (schema.is_empty() && rel.starts_with("pg_")));
                        if catalog {
                            problems.push(format!(
                                "PostgreSQL reads the system catalog {schema}.{rel}"
                            ));
                        }
                    }
                    _ => {}
                }
                walk(inner, approved, ctes, problems);
            }
        }
        Value::Array(items) => items.iter().for_each(|i| walk(i, approved, ctes, problems)),
        _ => {}
    }
}

/// Inserts `E` before the opening quote of every standard string constant (`'...'`) that
/// PostgreSQL's scanner finds in `sql` with `standard_conforming_strings = on`: that is exactly how
/// a server with the setting off scans them (scan.l: `{xqstart}` begins `xe`, the escape-string
/// state, when the setting is off). `N'...'` becomes `nchar E'...'` (the scanner returns the `n` as
/// the keyword NCHAR). `None` when the text does not scan or holds no standard string.
pub fn standard_strings_off_text(sql: &str) -> Option<String> {
    use pg_query::protobuf::Token;
    let scanned = pg_query::scan(sql).ok()?;
    let tokens = &scanned.tokens;
    let bytes = sql.as_bytes();
    let mut out = String::with_capacity(sql.len() + 16);
    let mut last = 0usize;
    let mut changed = false;
    for (i, tok) in tokens.iter().enumerate() {
        if tok.token != Token::Sconst as i32 {
            continue;
        }
        let start = usize::try_from(tok.start).ok()?;
        // E'...', $$...$$ and U&'...' (USCONST) are not standard strings.
        if bytes.get(start) != Some(&b'\'') || start < last {
            continue;
        }
        let nchar = i > 0 && {
            let prev = &tokens[i - 1];
            prev.token == Token::Nchar as i32 && prev.end == tok.start && prev.end - prev.start == 1
        };
        if nchar {
            out.push_str(sql.get(last..start - 1)?);
            out.push_str("nchar ");
        } else {
            out.push_str(sql.get(last..start)?);
        }
        out.push('E');
        last = start;
        changed = true;
    }
    if !changed {
        return None;
    }
    out.push_str(sql.get(last..)?);
    Some(out)
}

/// The parse tree as JSON without source positions, for comparing two readings of one query.
fn tree_without_locations(parsed: &pg_query::ParseResult) -> Result<Value, String> {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                // Source positions: `location`, `stmt_location`, `stmt_len` and PostgreSQL 18's
                // list bounds: `rexpr_list_start` / `rexpr_list_end` (the parentheses of an IN
                // list), `list_start` / `list_end` (the brackets of `ARRAY[...]`).
                map.retain(|k, _| {
                    !(k.contains("location")
                        || k == "stmt_len"
                        || k.ends_with("list_start")
                        || k.ends_with("list_end"))
                });
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v = serde_json::to_value(&parsed.protobuf.stmts).map_err(|e| e.to_string())?;
    strip(&mut v);
    Ok(v)
}

/// `standard_conforming_strings = off`: the approved SQL must read the same on a server with the
/// setting off as with it on (libpg_query's reading). The off reading is emulated with
/// [`standard_strings_off_text`]; it must parse, to as many statements and the same tree
/// (positions aside; string values included, since `'\n'` is two characters on and one off).
/// SQL that does not parse with the setting on is not checked (the server cannot run it).
pub fn check_standard_strings_off(sql: &str) -> Result<(), String> {
    let Ok(on) = pg_query::parse(sql, pg_query::ParserOptions::default()) else {
        return Ok(());
    };
    let Some(off_text) = standard_strings_off_text(sql) else {
        return Ok(());
    };
    let off = pg_query::parse(&off_text, pg_query::ParserOptions::default()).map_err(|e| {
        format!(
            "with standard_conforming_strings = off PostgreSQL cannot parse it ({e}); \
             the off reading is {off_text:?}"
        )
    })?;
    let (n_on, n_off) = (on.protobuf.stmts.len(), off.protobuf.stmts.len());
    if n_on != n_off {
        return Err(format!(
            "with standard_conforming_strings = off PostgreSQL sees {n_off} statements, {n_on} with it on; \
             the off reading is {off_text:?}"
        ));
    }
    if tree_without_locations(&on)? != tree_without_locations(&off)? {
        return Err(format!(
            "with standard_conforming_strings = off PostgreSQL reads a different tree \
             (structure or string values); the off reading is {off_text:?}"
        ));
    }
    Ok(())
}
