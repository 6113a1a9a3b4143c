//! `init` on SQLite: Chinook's golden draft, `--output` / `--force`, `--include` / `--exclude`,
//! and `--sample` on a database of the test's own.

use crate::{chinook_guesses, chinook_sqlite, draft, golden, init, pascal, pii};

#[test]
fn chinook_sqlite_golden() {
    let dir = tempfile::tempdir().unwrap();
    let db = chinook_sqlite(dir.path());
    let (text, parsed) = draft(&["--from-db", &format!("sqlite:{}", db.display())]);
    golden("chinook_sqlite.toml", &text);
    chinook_guesses(&parsed, pascal);
    let allow = parsed["tables"]["allow"].as_array().unwrap();
    assert_eq!(allow.len(), 11);
    let rels = parsed["annotations"]["relationships"].as_array().unwrap();
    assert!(rels
        .iter()
        .any(|r| r["from"].as_str() == Some("Invoice.CustomerId")
            && r["to"].as_str() == Some("Customer.CustomerId")
            && r["cardinality"].as_str() == Some("many_to_one")));
}

#[test]
fn output_is_never_replaced_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(
        "CREATE TABLE person (id INTEGER PRIMARY KEY, email TEXT);
         CREATE TABLE badge (id INTEGER PRIMARY KEY, person_id INTEGER UNIQUE REFERENCES person(id),
                             given_by INTEGER REFERENCES person(id));
         CREATE UNIQUE INDEX badge_partial ON badge (given_by) WHERE given_by > 0;",
    )
    .unwrap();
    let url = format!("sqlite:{}", db.display());
    let out = dir.path().join("policy.toml");
    std::fs::write(&out, "keep me").unwrap();
    let (code, _, err) = init(&["--from-db", &url, "--output", out.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--force"), "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep me");
    let (code, stdout, err) = init(&["--from-db", &url, "-o", out.to_str().unwrap(), "--force"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(stdout.is_empty());
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(
        written.contains("pii = \"EMAIL_ADDRESS\"  # column name \"email\""),
        "{written}"
    );
    // A foreign key on a unique key is one-to-one; a partial unique index makes none.
    let one = "from = \"badge.person_id\"\nto = \"person.id\"\ncardinality = \"one_to_one\"";
    let many = "from = \"badge.given_by\"\nto = \"person.id\"\ncardinality = \"many_to_one\"";
    assert!(written.contains(one) && written.contains(many), "{written}");
    let (code, _, _) = init(&["--from-db", "oracle://u:secret@h/db"]);
    assert_eq!(code, Some(2));
}

#[test]
fn include_and_exclude_globs() {
    let dir = tempfile::tempdir().unwrap();
    let db = chinook_sqlite(dir.path());
    let url = format!("sqlite:{}", db.display());
    let (_, parsed) = draft(&[
        "--from-db",
        &url,
        "--include",
        "invoice*",
        "--include",
        "CUSTOMER",
    ]);
    let allow: Vec<&str> = parsed["tables"]["allow"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert_eq!(allow, ["Customer", "Invoice", "InvoiceLine"]);
    // A relationship to a table left out is left out too.
    let rels = parsed["annotations"]["relationships"].as_array().unwrap();
    assert!(rels
        .iter()
        .all(|r| !r["to"].as_str().unwrap_or_default().starts_with("Track")));
    let (_, parsed) = draft(&["--from-db", &url, "--exclude", "*e*"]);
    let allow = parsed["tables"]["allow"].as_array().unwrap();
    assert!(allow
        .iter()
        .all(|v| !v.as_str().unwrap().to_lowercase().contains('e')));
    assert!(!allow.is_empty());
}

#[test]
fn sampled_values_are_tested_but_never_printed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(
        "CREATE TABLE lead (id INTEGER PRIMARY KEY, contact TEXT, note TEXT, card TEXT, seen TEXT);
         INSERT INTO lead VALUES
           (1, 'zoe.quill@example.org', 'call back', '4111 1111 1111 1111', '2024-01-02'),
           (2, 'max.ruby@example.net', 'no answer', '5500 0000 0000 0004', '2024-01-03'),
           (3, 'ann.berg@example.com', 'interested', '4012 8888 8888 1881', '2024-01-04');",
    )
    .unwrap();
    let url = format!("sqlite:{}", db.display());
    // Off by default: no row is read, so nothing is guessed from values.
    let (_, parsed) = draft(&["--from-db", &url]);
    assert_eq!(pii(&parsed, "lead", "contact"), None);
    let (text, parsed) = draft(&["--from-db", &url, "--sample", "10"]);
    assert_eq!(
        pii(&parsed, "lead", "contact").as_deref(),
        Some("EMAIL_ADDRESS")
    );
    assert_eq!(pii(&parsed, "lead", "card").as_deref(), Some("CREDIT_CARD"));
    assert_eq!(pii(&parsed, "lead", "note"), None);
    assert_eq!(pii(&parsed, "lead", "seen"), None);
    assert!(
        text.contains("# 3 of 3 sampled values look like e-mail addresses"),
        "{text}"
    );
    for value in ["zoe.quill", "example", "4111", "call back", "2024"] {
        assert!(!text.contains(value), "{value} printed:\n{text}");
    }
}

/// The README's "A draft policy from a database": its command, run on Chinook, writes every
/// line of its TOML excerpt.
#[test]
fn the_readme_example_runs() {
    let readme =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
            .unwrap();
    let section = readme
        .split("## A draft policy from a database")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the README's init section");
    let command = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a sh block")
        .trim();
    let excerpt = section
        .split("```toml\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a TOML block");
    let dir = tempfile::tempdir().unwrap();
    let db = chinook_sqlite(dir.path());
    // The README's path is relative to the repository's root, where it says to run the command.
    let readme_db = "sqlite:tests/fixtures/chinook/Chinook_Sqlite.sqlite";
    assert!(command.contains(readme_db), "{command}");
    let args: Vec<String> = command
        .split_whitespace()
        .skip(2)
        .map(|a| a.trim_matches('\'').to_string())
        .map(|a| a.replace(readme_db, &format!("sqlite:{}", db.display())))
        .collect();
    assert!(command.starts_with("sqlgate-mcp init"), "{command}");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (text, _) = draft(&args);
    for block in excerpt.split("\n\n") {
        assert!(
            text.contains(block.trim_end()),
            "not in the draft:\n{block}\n---\n{text}"
        );
    }
}
