//! `init` on PostgreSQL and MariaDB: Chinook's golden drafts, and the comments and keys of a
//! database of the test's own (`sqlgate_init_probe`, created on the same server).

use crate::common::{chinook_url, server_url};
use crate::{chinook_guesses, draft, golden, pascal};

/// `url` with its database replaced by `db`.
fn with_database(url: &str, db: &str) -> String {
    let (base, _) = url.rsplit_once('/').expect("a database in the URL");
    format!("{base}/{db}")
}

#[test]
fn chinook_postgres_golden() {
    let Some(url) = chinook_url("init --from-db") else {
        return;
    };
    let (text, parsed) = draft(&["--from-db", &url]);
    golden("chinook_postgres.toml", &text);
    chinook_guesses(&parsed, str::to_string);
}

#[tokio::test]
async fn postgres_comments_keys_and_schemas() {
    let Some(url) = chinook_url("init --from-db") else {
        return;
    };
    let (admin, conn) =
        tokio_postgres::connect(&with_database(&url, "postgres"), tokio_postgres::NoTls)
            .await
            .expect("connect");
    tokio::spawn(conn);
    admin
        .batch_execute("DROP DATABASE IF EXISTS sqlgate_init_probe")
        .await
        .unwrap();
    admin
        .batch_execute("CREATE DATABASE sqlgate_init_probe")
        .await
        .unwrap();
    let probe = with_database(&url, "sqlgate_init_probe");
    let (c, conn) = tokio_postgres::connect(&probe, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    c.batch_execute(
        "CREATE SCHEMA sales;
         CREATE TABLE account (id int PRIMARY KEY, name text, region text);
         CREATE TABLE account_profile (account_id int PRIMARY KEY REFERENCES account(id), bio text);
         CREATE TABLE account_logo (id int PRIMARY KEY, account_id int UNIQUE REFERENCES account(id));
         CREATE TABLE sales.deal (id int PRIMARY KEY, account_id int REFERENCES account(id),
                                  owner_email text, amount numeric);
         CREATE VIEW sales.big_deal AS SELECT id FROM sales.deal WHERE amount > 1000;
         COMMENT ON TABLE account IS 'A company that buys from us.';
         COMMENT ON COLUMN account.region IS 'Sales region (\"EMEA\", ...)';
         COMMENT ON TABLE sales.deal IS 'One opportunity.';",
    )
    .await
    .unwrap();
    let (text, parsed) = draft(&["--from-db", &probe]);
    drop(c);
    admin
        .batch_execute("DROP DATABASE IF EXISTS sqlgate_init_probe WITH (FORCE)")
        .await
        .unwrap();
    golden("probe_postgres.toml", &text);
    let tables = &parsed["annotations"]["tables"];
    assert_eq!(
        tables["account"]["description"].as_str(),
        Some("A company that buys from us.")
    );
    assert_eq!(
        tables["account"]["columns"]["region"]["description"].as_str(),
        Some("Sales region (\"EMEA\", ...)")
    );
    assert_eq!(
        tables["sales.deal"]["columns"]["owner_email"]["pii"].as_str(),
        Some("EMAIL_ADDRESS")
    );
    assert!(tables["account"]
        .get("columns")
        .and_then(|c| c.get("name"))
        .is_none());
    let rels = parsed["annotations"]["relationships"].as_array().unwrap();
    let card = |from: &str| {
        rels.iter()
            .find(|r| r["from"].as_str() == Some(from))
            .and_then(|r| r["cardinality"].as_str())
            .map(str::to_string)
    };
    assert_eq!(
        card("account_profile.account_id").as_deref(),
        Some("one_to_one")
    );
    assert_eq!(
        card("sales.deal.account_id").as_deref(),
        Some("many_to_one")
    );
    let allow = parsed["tables"]["allow"].as_array().unwrap();
    assert!(allow.iter().any(|v| v.as_str() == Some("sales.big_deal")));
    assert!(allow
        .iter()
        .all(|v| !v.as_str().unwrap().starts_with("pg_")));
}

#[test]
fn chinook_mariadb_golden() {
    let Some(url) = server_url("SQLGATE_MARIADB_CHINOOK_URL", "MariaDB", "init --from-db") else {
        return;
    };
    let (text, parsed) = draft(&["--from-db", &url]);
    golden("chinook_mariadb.toml", &text);
    chinook_guesses(&parsed, pascal);
}

#[tokio::test]
async fn mariadb_comments() {
    use mysql_async::prelude::Queryable;
    let Some(url) = server_url("SQLGATE_MARIADB_CHINOOK_URL", "MariaDB", "init --from-db") else {
        return;
    };
    let mut conn = mysql_async::Conn::from_url(url.as_str())
        .await
        .expect("connect");
    conn.query_drop("DROP DATABASE IF EXISTS sqlgate_init_probe")
        .await
        .unwrap();
    conn.query_drop("CREATE DATABASE sqlgate_init_probe")
        .await
        .unwrap();
    conn.query_drop(
        "CREATE TABLE sqlgate_init_probe.member (id INT PRIMARY KEY,
           full_name VARCHAR(80) COMMENT 'As printed on the card',
           mobile VARCHAR(20)) COMMENT 'Club members'",
    )
    .await
    .unwrap();
    conn.query_drop(
        "CREATE TABLE sqlgate_init_probe.card (id INT PRIMARY KEY, member_id INT NOT NULL UNIQUE,
           issued_to INT, FOREIGN KEY (member_id) REFERENCES sqlgate_init_probe.member (id),
           FOREIGN KEY (issued_to) REFERENCES sqlgate_init_probe.member (id))",
    )
    .await
    .unwrap();
    let (_, parsed) = draft(&["--from-db", &with_database(&url, "sqlgate_init_probe")]);
    conn.query_drop("DROP DATABASE sqlgate_init_probe")
        .await
        .unwrap();
    let member = &parsed["annotations"]["tables"]["member"];
    assert_eq!(member["description"].as_str(), Some("Club members"));
    let full_name = &member["columns"]["full_name"];
    assert_eq!(
        full_name["description"].as_str(),
        Some("As printed on the card")
    );
    assert_eq!(full_name["pii"].as_str(), Some("PERSON"));
    assert_eq!(
        member["columns"]["mobile"]["pii"].as_str(),
        Some("PHONE_NUMBER")
    );
}
