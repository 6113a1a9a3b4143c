//! The README documents every error code, query class and policy field that exists.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use sqlgate::{ErrorCode, Policy, QueryClass};

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README.md")
}

#[test]
fn every_error_code_is_in_the_readme_table() {
    let text = readme();
    for code in ErrorCode::ALL {
        assert!(
            text.contains(&format!("| `{}` |", code.as_str())),
            "README lacks {code}"
        );
    }
}

#[test]
fn every_query_class_is_in_the_readme_table() {
    let text = readme();
    for class in QueryClass::ALL {
        assert!(
            text.contains(&format!("| `{}` |", class.as_str())),
            "README lacks {class}"
        );
    }
}

#[test]
fn every_policy_field_is_in_the_readme_table() {
    let text = readme();
    let schema = Policy::json_schema();
    let fields = schema["properties"].as_object().expect("properties");
    for field in fields.keys() {
        assert!(
            text.contains(&format!("| `{field}")),
            "README lacks policy field {field}"
        );
    }
}
