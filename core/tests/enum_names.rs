//! Each enum's names come from one place (the enum, through strum and serde): the string a caller
//! reads from `as_str` / `Display` is the one the JSON carries, and parsing it gives the variant.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde::{de::DeserializeOwned, Serialize};
use sqlgate::{Dialect, ErrorCode, LimitAction, QueryClass, Stage};

fn same_names<T>(all: &[T], as_str: fn(&T) -> &'static str)
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    assert!(!all.is_empty());
    let mut seen = std::collections::HashSet::new();
    for value in all {
        let name = as_str(value);
        assert!(seen.insert(name), "{name} appears twice");
        assert_eq!(
            serde_json::to_value(value).ok(),
            Some(serde_json::json!(name))
        );
        let back: T =
            serde_json::from_value(serde_json::json!(name)).expect("serde reads its own name");
        assert_eq!(&back, value);
    }
}

#[test]
fn serde_names_are_the_as_str_names() {
    same_names(ErrorCode::ALL, |c| c.as_str());
    same_names(Stage::ALL, |s| s.as_str());
    same_names(QueryClass::ALL, |c| c.as_str());
    same_names(Dialect::ALL, |d| d.as_str());
    same_names(LimitAction::ALL, |a| a.as_str());
}

#[test]
fn dialect_names_parse_back() {
    for &dialect in Dialect::ALL {
        assert_eq!(dialect.as_str().parse::<Dialect>(), Ok(dialect));
        assert_eq!(dialect.to_string(), dialect.as_str());
    }
}
