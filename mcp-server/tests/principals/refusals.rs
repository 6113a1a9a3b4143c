//! Configurations `serve` refuses to start with: each error names the principal and the field; a
//! principal cannot widen the server's policy; stdio needs one principal, by name.

use crate::fixture::{refuse, refused_config, write_config, HTTP, TWO_PRINCIPALS};

#[test]
fn configuration_errors_name_the_principal_and_the_field() {
    // Row filters need a variable the principal does not have.
    refused_config(
        "vars = { tenant = 2 }",
        "vars = { region = 2 }",
        HTTP,
        &["principal `globex`", "`tenant`", "vars"],
    );
    // Two principals with one token.
    refused_config(
        "token_env = \"SQLGATE_TEST_GLOBEX\"",
        "token_env = \"SQLGATE_TEST_ACME\"",
        HTTP,
        &["`acme`", "`globex`", "same token"],
    );
    // A token variable that is not set.
    refused_config(
        "token_env = \"SQLGATE_TEST_GLOBEX\"",
        "token_env = \"SQLGATE_TEST_UNSET_VARIABLE\"",
        HTTP,
        &[
            "`globex`",
            "token_env",
            "SQLGATE_TEST_UNSET_VARIABLE",
            "not set",
        ],
    );
    // Two principals with one name; the reserved name.
    refused_config(
        "name = \"globex\"",
        "name = \"acme\"",
        HTTP,
        &["two principals are named `acme`"],
    );
    refused_config(
        "name = \"globex\"",
        "name = \"default\"",
        HTTP,
        &["reserved"],
    );
    // An unknown field in a principal, or in its policy.
    refused_config(
        "vars = { tenant = 1 }",
        "varz = { tenant = 1 }",
        HTTP,
        &["varz"],
    );
    refused_config("max_rows = 2", "max_rowz = 5", HTTP, &["max_rowz"]);
    // A predicate that is not SQL: core's error, with the principal and the field.
    refused_config(
        "customer_id = :tenant\" } }\n\n[[principals]]\nname = \"globex\"",
        "customer_id = = :tenant\" } }\n\n[[principals]]\nname = \"globex\"",
        HTTP,
        &["principal `acme`", "policy.rows.orders"],
    );
    // A value of the wrong type says what the field takes, never a Rust type's name.
    for (from, to, takes) in [
        (
            "vars = { tenant = 1 }",
            "vars = { tenant = [1] }",
            "must be a value (null, a boolean, a number or a string) or { claim",
        ),
        (
            "demo = true",
            "demo = true\npolicy = { max_rows = \"ten\" }",
            "must be an integer, or null or \"none\" for no cap",
        ),
        (
            "demo = true",
            "demo = true\nstatement_timeout = true",
            "must be a duration in a string, such as \"30s\"",
        ),
    ] {
        refused_config(from, to, HTTP, &[takes]);
    }
    // Principals need a token each: no --allow-unauthenticated.
    refused_config(
        "demo = true",
        "demo = true\nallow_unauthenticated = true",
        HTTP,
        &["--allow-unauthenticated"],
    );
}

#[test]
fn a_principal_cannot_widen_the_server_policy() {
    // A higher row cap than the server's (the demo's 100).
    refused_config(
        "max_rows = 2",
        "max_rows = 200",
        HTTP,
        &["principal `globex`", "policy.max_rows", "above"],
    );
    // Tables outside the server's tables.allow.
    let dir = tempfile::tempdir().expect("tempdir");
    let wider = "demo = true\n[policy]\ndialect = \"sqlite\"\ntables = { allow = [\"orders\"] }\n\
        [[principals]]\nname = \"p\"\ntoken_env = \"SQLGATE_TEST_ACME\"\n\
        policy = { tables = { allow = [\"*\"] } }\n";
    let path = write_config(dir.path(), wider);
    let out = refuse(&[
        "--config",
        path.to_str().expect("path"),
        "--http",
        "127.0.0.1:0",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("policy.tables.allow[0]"), "{stderr}");
    // Explain, system catalogs, functions and writes the server does not allow.
    for (layer, field) in [
        ("allow_explain = true", "policy.allow_explain"),
        (
            "allow_system_catalogs = true",
            "policy.allow_system_catalogs",
        ),
        (
            "functions = { allow = [\"load_extension\"] }",
            "policy.functions.allow[0]",
        ),
        (
            "writes = { tables = [\"customers\"] }",
            "policy.writes.tables[0]",
        ),
        (
            "writes = { max_affected_rows = 1000 }",
            "policy.writes.max_affected_rows",
        ),
    ] {
        refused_config(
            "max_rows = 2,",
            &format!("max_rows = 2, {layer},"),
            HTTP,
            &["principal `globex`", field],
        );
    }
    // A mode above the server's (read_only by default).
    refused_config(
        "vars = { tenant = 2 }",
        "vars = { tenant = 2 }\nmode = \"full_access\"",
        HTTP,
        &[
            "principal `globex`",
            "mode",
            "above the server's mode `read_only`",
        ],
    );
    // policy and policy_file at once.
    refused_config(
        "vars = { tenant = 2 }",
        "vars = { tenant = 2 }\npolicy_file = \"p.toml\"",
        HTTP,
        &["`globex`", "not both"],
    );
}

#[test]
fn stdio_needs_one_principal_by_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write_config(dir.path(), TWO_PRINCIPALS);
    let config = path.to_str().expect("path");
    let out = refuse(&["--config", config]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--principal NAME") && stderr.contains("acme, globex"),
        "{stderr}"
    );
    let out = refuse(&["--config", config, "--principal", "initech"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such principal"));
    let out = refuse(&[
        "--config",
        config,
        "--principal",
        "acme",
        "--http",
        "127.0.0.1:0",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--principal is for stdio"));
    let out = refuse(&["--demo", "--principal", "acme"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no [[principals]]"));
}
