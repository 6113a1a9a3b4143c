//! The server's instructions to the model: how to use the tools, and what the write mode allows.

use crate::gate::Engine;

/// Server instructions shown to the model.
pub fn instructions(engine: &Engine) -> String {
    // A write mode's access is said by its own sentence (`mode_instructions`), not here.
    let access = if engine.mode().writes() {
        "sqlgate: governed SQL access (reads, and the writes below)."
    } else {
        "sqlgate: read-only SQL access."
    };
    let mut s = String::from(access);
    s.push_str(
        " Call list_tables (list_schemas first when there are \
         several schemas), then describe_table, then run_query with one SELECT. Every query is checked by sqlgate before it runs; what runs is the regenerated \
         `executed_sql` with a row cap. A refused query returns isError with `code` and a `hint` \
         that says how to fix it in one turn. Columns marked protected cannot be read; list the \
         columns you need instead of `*`. describe_table gives each table's and column's meaning \
         (description, synonyms) and relationships: use them to pick tables and joins; a column \
         with a `mask` may only be selected as a plain column (its value comes back masked). \
         Write values into the SQL as literals: a placeholder (`?`, `$1`, `:name`) has nothing to \
         bind it and is refused.",
    );
    s.push_str(&format!(
        " Dialect: {}.",
        engine.backend().dialect().as_str()
    ));
    if let Some(n) = engine.row_cap() {
        s.push_str(&format!(" Row cap: {n}."));
    }
    if let Some(p) = engine.principal() {
        s.push_str(&format!(" Principal: {p}."));
    }
    if engine.guard().has_row_filters() {
        s.push_str(
            " Some tables are row-filtered (list_tables marks them): every query sees only the \
             rows you are allowed, whatever its WHERE.",
        );
    }
    let queries = &engine.published().queries;
    if !queries.is_empty() {
        let names: Vec<&str> = queries.iter().map(|q| q.name.as_str()).collect();
        s.push_str(&format!(
            " Published queries (vetted, parameterized; prefer them when one answers the \
             question): {}.",
            names.join(", ")
        ));
    }
    s.push_str(&mode_instructions(engine));
    let warnings = engine.backend().role_warnings();
    if !engine.mode().writes() && !warnings.is_empty() {
        s.push_str(&format!(
            " WARNING: the database role can write ({}); sqlgate still refuses anything but reads, \
             but the operator should connect with a read-only role.",
            warnings.join("; ")
        ));
    }
    s
}

/// What the instructions say about the mode: which tables run_mutation may modify, and who
/// approves.
fn mode_instructions(engine: &Engine) -> String {
    let mode = engine.mode();
    if !mode.writes() {
        return format!(" Mode: {} (reads only; no mutation tool).", mode.as_str());
    }
    let tables = engine.writable_tables();
    let external = engine.approvals().external().is_some();
    let approver = if external {
        "the external approver's approval (the call answers pending; approval_status follows it)"
    } else {
        "the user's approval"
    };
    let who = match mode {
        crate::gate::mode::Mode::Safe => {
            format!("every mutation is previewed and needs {approver}")
        }
        crate::gate::mode::Mode::DeleteSafe => {
            format!("every mutation is previewed; deletes need {approver}")
        }
        _ => "every mutation is previewed and commits without approval".to_string(),
    };
    format!(
        " Mode: {} ({who}). run_mutation (one statement) and run_mutations (several, one \
         transaction, one approval) may modify: {}. run_query never writes.",
        mode.as_str(),
        if tables.is_empty() {
            "no table".to_string()
        } else {
            tables.join(", ")
        }
    )
}
