//! Configuration: the flags (clap, [`flags`]), the settings file (serde, [`file`]), the values
//! they hold ([`values`]: durations, policy files), the principals ([`principals`]), OAuth
//! ([`oauth`]) and TLS ([`tls`]) settings, and their merge into the resolved `serve` settings ([`resolve`]; flags win).

pub mod error;
pub mod file;
pub mod flags;
pub mod oauth;
pub mod principals;
pub mod published;
pub mod resolve;
pub mod tls;
pub mod values;

pub use error::ConfigError;
pub use file::{FileConfig, PrincipalFile};
pub use flags::{apply_overrides, policy_for_check};
pub use principals::{read_token, Principal, DEFAULT_PRINCIPAL};
pub use resolve::{
    parse_source, resolve_serve, ServeConfig, Source, DEFAULT_DUCKDB_THREADS,
    DEFAULT_MAX_BODY_BYTES, DEFAULT_POOL_SIZE,
};
pub use values::{
    load_policy_file, load_policy_layer, parse_dialect, parse_duration, parse_policy, MAX_DURATION,
};

#[cfg(test)]
mod tests {
    use super::values::DURATION_HINT;
    use super::*;
    use crate::codes::Mode;
    use std::time::Duration;

    #[test]
    fn durations_need_a_unit() {
        assert_eq!(parse_duration("10s").ok(), Some(Duration::from_secs(10)));
        assert_eq!(
            parse_duration("500ms").ok(),
            Some(Duration::from_millis(500))
        );
        assert_eq!(parse_duration("2m").ok(), Some(Duration::from_secs(120)));
        assert_eq!(
            parse_duration(" 1m 30s ").ok(),
            Some(Duration::from_secs(90))
        );
        assert_eq!(parse_duration("24h").ok(), Some(MAX_DURATION));
        for bare in ["3", "1500", "0", "2.5"] {
            let e = parse_duration(bare).err().map(|e| e.0).unwrap_or_default();
            assert!(
                e.contains("no unit") && e.contains(DURATION_HINT),
                "{bare}: {e}"
            );
        }
        for bad in ["abc", "10 parsecs", ""] {
            let e = parse_duration(bad).err().map(|e| e.0).unwrap_or_default();
            assert!(e.contains(DURATION_HINT), "{bad}: {e}");
        }
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("25h").is_err());
    }

    #[test]
    fn config_file_durations() {
        let read = |text: &str| toml::from_str::<FileConfig>(text).map_err(|e| e.to_string());
        let ok = read("statement_timeout = \"1500ms\"").ok();
        assert_eq!(
            ok.and_then(|c| c.statement_timeout),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(read("").ok().map(|c| c.statement_timeout), Some(None));
        let ok = read("mode = \"delete_safe\"\napproval_timeout = \"90s\"").ok();
        assert_eq!(ok.as_ref().and_then(|c| c.mode), Some(Mode::DeleteSafe));
        assert_eq!(
            ok.and_then(|c| c.approval_timeout),
            Some(Duration::from_secs(90))
        );
        assert!(read("approval_timeout = 90").is_err());
        assert!(read("mode = \"yolo\"").is_err());
        for bare in ["statement_timeout = 1500", "statement_timeout = \"1500\""] {
            let e = read(bare).err().unwrap_or_default();
            assert!(e.contains(DURATION_HINT), "{bare}: {e}");
        }
    }

    #[test]
    fn sources() {
        assert_eq!(
            parse_source("sqlite:/tmp/x.db").ok(),
            Some(Source::Sqlite("/tmp/x.db".into()))
        );
        assert!(matches!(
            parse_source("postgres://u:p@h/db"),
            Ok(Source::Postgres(_))
        ));
        for url in [
            "mysql://u:p@h/db",
            "mariadb://u:p@h:3307/db?ssl-mode=REQUIRED",
        ] {
            assert!(matches!(parse_source(url), Ok(Source::Mysql(_))), "{url}");
        }
        assert_eq!(
            parse_source("duckdb:data/x.duckdb").ok(),
            Some(Source::Duckdb("data/x.duckdb".into()))
        );
        assert_eq!(
            parse_source("duckdb:///abs/x.duckdb").ok(),
            Some(Source::Duckdb("/abs/x.duckdb".into()))
        );
        assert!(parse_source("duckdb:").is_err());
        let err = parse_source("oracle://u:secret@h/db").err().map(|e| e.0);
        assert!(err.is_some_and(|m| !m.contains("secret")));
    }

    #[test]
    fn duckdb_settings_in_the_config_file() {
        let c =
            toml::from_str::<FileConfig>("duckdb_max_memory = \"1GB\"\nduckdb_threads = 3").ok();
        assert_eq!(
            c.as_ref().and_then(|c| c.duckdb_max_memory.as_deref()),
            Some("1GB")
        );
        assert_eq!(c.and_then(|c| c.duckdb_threads), Some(3));
        assert!(toml::from_str::<FileConfig>("duckdb_threads = \"x\"").is_err());
    }

    #[test]
    fn toml_policy() {
        let p = parse_policy(
            "dialect = \"sqlite\"\nmax_rows = 5\n[columns]\ndeny = [\"*.email\"]\n",
            true,
        );
        let p = p.ok();
        assert_eq!(p.as_ref().map(|p| p.max_rows), Some(Some(5)));
        assert!(parse_policy("nope = 1", true).is_err());
    }
}
