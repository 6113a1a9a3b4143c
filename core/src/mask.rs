//! The mask rewrite (ARCHITECTURE.md, "Pipeline", after validation): each plain column of the
//! outermost select list that the walker found reading a masked column is replaced by the mask
//! computed in the engine, under the column's own name (or its alias), so that the unmasked
//! value never leaves the database. Which masks a dialect has is [`MaskKind`]'s to say; a
//! policy asking for one the dialect lacks is refused when the guard is built.

use sqlparser::ast::{Expr, Ident, Query, SelectItem, SetExpr};
use sqlparser::parser::Parser;

use crate::dialect::Dialect;
use crate::error::{ErrorCode, GuardError, Stage};
use crate::policy::MaskKind;
use crate::validate::MaskedItem;

/// Replaces the `masked` items of `query`'s outermost select list by their masks.
pub(crate) fn apply(
    query: &mut Query,
    masked: &[MaskedItem],
    dialect: Dialect,
) -> Result<(), GuardError> {
    if masked.is_empty() {
        return Ok(());
    }
    let SetExpr::Select(select) = query.body.as_mut() else {
        return Err(lost());
    };
    for item in masked {
        let slot = select.projection.get_mut(item.index).ok_or_else(lost)?;
        let (column, alias) = match slot {
            SelectItem::UnnamedExpr(expr) => (expr.clone(), output_name(expr)),
            SelectItem::ExprWithAlias { expr, alias } => (expr.clone(), Some(alias.clone())),
            _ => (Expr::value(sqlparser::ast::Value::Null), None),
        };
        let alias = alias.ok_or_else(lost)?;
        let expr = mask_expr(&column, item.kind, dialect)?;
        *slot = SelectItem::ExprWithAlias { expr, alias };
    }
    Ok(())
}

/// The SQL text computing `kind` over `column` in `dialect`.
pub(crate) fn mask_sql(column: &str, kind: MaskKind, dialect: Dialect) -> Option<String> {
    let c = column;
    Some(match (kind, dialect) {
        (MaskKind::Null, _) => "NULL".to_string(),
        (MaskKind::Redact, _) => "'[REDACTED]'".to_string(),
        (MaskKind::Hash, Dialect::Postgres) => format!("md5(CAST({c} AS TEXT))"),
        (MaskKind::Hash, Dialect::Mysql) => format!("SHA2({c}, 256)"),
        (MaskKind::Hash, Dialect::Duckdb) => format!("sha256(CAST({c} AS VARCHAR))"),
        (MaskKind::Partial, Dialect::Postgres) => format!(
            "CASE WHEN length(CAST({c} AS TEXT)) > 4 THEN '****' || right(CAST({c} AS TEXT), 4) \
             ELSE '****' END"
        ),
        (MaskKind::Partial, Dialect::Mysql) => format!(
            "CASE WHEN CHAR_LENGTH({c}) > 4 THEN CONCAT('****', RIGHT({c}, 4)) ELSE '****' END"
        ),
        (MaskKind::Partial, Dialect::Sqlite) => format!(
            "CASE WHEN length(CAST({c} AS TEXT)) > 4 THEN '****' || substr(CAST({c} AS TEXT), -4) \
             ELSE '****' END"
        ),
        (MaskKind::Partial, Dialect::Duckdb) => format!(
            "CASE WHEN length(CAST({c} AS VARCHAR)) > 4 THEN '****' || \
             right(CAST({c} AS VARCHAR), 4) ELSE '****' END"
        ),
        _ => return None,
    })
}

/// The mask over `column` as the dialect's parser builds it (so that the printed SQL parses
/// back into the very tree, as the self-check requires).
fn mask_expr(column: &Expr, kind: MaskKind, dialect: Dialect) -> Result<Expr, GuardError> {
    let text = mask_sql(&column.to_string(), kind, dialect).ok_or_else(lost)?;
    Parser::new(dialect.parser_dialect())
        .try_with_sql(&text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|_| lost())
}

/// The name an engine gives a plain column in the output: its last part.
fn output_name(expr: &Expr) -> Option<Ident> {
    match expr {
        Expr::Identifier(ident) => Some(ident.clone()),
        Expr::CompoundIdentifier(parts) => parts.last().cloned(),
        _ => None,
    }
}

/// The walker recorded an item the rewrite cannot find as it recorded it (fail closed).
fn lost() -> GuardError {
    GuardError::new(
        ErrorCode::MaskedColumn,
        Stage::Rewrite,
        "a masked column could not be replaced by its mask",
    )
    .with_hint("select the masked column as a plain column of the outermost select list")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mask_of_the_four_engines_prints_back_as_itself() {
        for dialect in [
            Dialect::Postgres,
            Dialect::Mysql,
            Dialect::Sqlite,
            Dialect::Duckdb,
        ] {
            for kind in [
                MaskKind::Partial,
                MaskKind::Hash,
                MaskKind::Redact,
                MaskKind::Null,
            ] {
                if kind.unsupported_in(dialect).is_some() {
                    continue;
                }
                let column = Expr::CompoundIdentifier(vec![Ident::new("c"), Ident::new("x")]);
                let expr = mask_expr(&column, kind, dialect).expect("parses");
                let printed = expr.to_string();
                let parser_dialect = dialect.parser_dialect();
                let again = Parser::new(parser_dialect)
                    .try_with_sql(&printed)
                    .and_then(|mut p| p.parse_expr())
                    .expect("parses back");
                assert_eq!(expr, again, "{dialect:?} {kind:?}: {printed}");
            }
        }
    }
}
