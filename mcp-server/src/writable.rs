//! Which catalog tables the policy lets a mutation modify. Core decides (`check_mutation`); this
//! module only asks it about each table with a probe of every allowed class, never running one.

use sqlgate::{ErrorCode, Guard, QueryClass};

use crate::backend::TableDetail;
use crate::engine::quote_ident;

/// The probe statements for `table`, one per class the policy allows.
fn probes(table: &TableDetail, classes: &[QueryClass]) -> Vec<String> {
    let name = match &table.schema {
        Some(s) => format!("{}.{}", quote_ident(s), quote_ident(&table.name)),
        None => quote_ident(&table.name),
    };
    let mut out = Vec::new();
    if classes.contains(&QueryClass::MutationCreate) {
        out.push(format!("INSERT INTO {name} DEFAULT VALUES"));
    }
    if classes.contains(&QueryClass::MutationDelete) {
        if let Some(c) = table.columns.first() {
            out.push(format!(
                "DELETE FROM {name} WHERE {} IS NULL",
                quote_ident(&c.name)
            ));
        }
    }
    out
}

/// True when core's refusal is about the target table itself (not the statement's details).
fn refuses_the_table(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::TableNotWritable
            | ErrorCode::TableNotAllowed
            | ErrorCode::SystemCatalog
            | ErrorCode::UnknownTable
            | ErrorCode::StatementNotAllowed
    )
}

/// The tables of `tables` (qualified names) that some allowed mutation may modify.
pub fn writable_tables(guard: &Guard, tables: &[TableDetail]) -> Vec<String> {
    let Some(writes) = guard.policy().writes.as_ref() else {
        return Vec::new();
    };
    tables
        .iter()
        .filter(|t| t.kind == "table" || t.kind == "partitioned_table")
        .filter(|t| {
            probes(t, &writes.classes)
                .iter()
                .any(|sql| match guard.check_mutation(sql) {
                    Ok(_) => true,
                    Err(r) => !refuses_the_table(r.error.code),
                })
        })
        .map(TableDetail::qualified_name)
        .collect()
}
