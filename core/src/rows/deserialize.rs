//! Reading `[rows]` by hand rather than with `#[serde(flatten)]`: a flattened map is buffered
//! before it is read, and an error inside it lost its place (`rows: invalid type: integer`);
//! read key by key, the error names the table (`rows.orders: invalid type: integer`).

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

use super::RowFilterRules;

impl<'de> Deserialize<'de> for RowFilterRules {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(RulesVisitor)
    }
}

struct RulesVisitor;

impl<'de> Visitor<'de> for RulesVisitor {
    type Value = RowFilterRules;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "a table of row filters: table name = \"SQL condition\", and trusted_views = [...]",
        )
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut rules = RowFilterRules {
            trusted_views: Vec::new(),
            filters: BTreeMap::new(),
        };
        while let Some(key) = map.next_key::<String>()? {
            if key == "trusted_views" {
                rules.trusted_views = map.next_value()?;
            } else {
                let condition = map.next_value::<Condition>()?;
                rules.filters.insert(key, condition.0);
            }
        }
        Ok(rules)
    }
}

/// One table's filter: an SQL condition, said so when the value is something else.
struct Condition(String);

impl<'de> Deserialize<'de> for Condition {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ConditionVisitor;
        impl Visitor<'_> for ConditionVisitor {
            type Value = Condition;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an SQL condition as a string (\"customer_id = :tenant\")")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Condition, E> {
                Ok(Condition(v.to_string()))
            }
        }
        deserializer.deserialize_str(ConditionVisitor)
    }
}
