//! Identifier rules: folding of unquoted names per dialect, policy patterns over
//! `db.schema.table` names, system catalogs, and "did you mean" suggestions.

use sqlparser::ast::{Ident, ObjectName, ObjectNamePart};

use crate::dialect::{Dialect, Folding};

/// Folds an identifier the way the dialect resolves it: quoted names are exact.
pub fn fold_ident(ident: &Ident, dialect: Dialect) -> String {
    if ident.quote_style.is_some() {
        if dialect.quoted_names_are_exact() {
            ident.value.clone()
        } else {
            ident.value.to_lowercase()
        }
    } else {
        fold_unquoted(&ident.value, dialect)
    }
}

/// Folds an unquoted name.
pub fn fold_unquoted(name: &str, dialect: Dialect) -> String {
    if !dialect.quoted_names_are_exact() {
        return name.to_lowercase();
    }
    match dialect.folding() {
        Folding::Lower => name.to_lowercase(),
        Folding::Upper => name.to_uppercase(),
    }
}

/// The parts of an object name, folded; `None` when a part is computed (`IDENTIFIER(...)`).
pub fn fold_object_name(name: &ObjectName, dialect: Dialect) -> Option<Vec<String>> {
    name.0
        .iter()
        .map(|part| match part {
            ObjectNamePart::Identifier(ident) => Some(fold_ident(ident, dialect)),
            ObjectNamePart::Function(_) => None,
        })
        .collect()
}

/// One part of a policy pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatternPart {
    /// `*`: any name.
    Any,
    /// An exact (already folded) name.
    Exact(String),
}

/// A policy pattern such as `public.*`, `sales.orders`, `*.email`, matched from the right.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    /// Parts, leftmost first.
    pub parts: Vec<PatternPart>,
}

impl Pattern {
    /// Parses a pattern: parts split on `.`, `"quoted"` parts kept exact, others folded.
    pub fn parse(text: &str, dialect: Dialect) -> Result<Pattern, String> {
        let parts = split_dotted(text)?;
        if parts.is_empty() || parts.len() > 4 {
            return Err(format!("`{text}` must have 1 to 4 dot-separated parts"));
        }
        let parts = parts
            .into_iter()
            .map(|(part, quoted)| {
                if part.is_empty() {
                    Err(format!("`{text}` has an empty part"))
                } else if part == "*" && !quoted {
                    Ok(PatternPart::Any)
                } else if quoted && dialect.quoted_names_are_exact() {
                    Ok(PatternPart::Exact(part))
                } else {
                    Ok(PatternPart::Exact(fold_unquoted(&part, dialect)))
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Pattern { parts })
    }

    /// True when the pattern matches `name` (folded parts, leftmost first), aligned on the
    /// right. A pattern part with no counterpart in a shorter name matches only `default`
    /// (the dialect's default schema) or `*`.
    pub fn matches(&self, name: &[String], default_schema: Option<&str>) -> bool {
        let mut name_iter = name.iter().rev();
        for (i, part) in self.parts.iter().rev().enumerate() {
            match name_iter.next() {
                Some(n) => {
                    if let PatternPart::Exact(p) = part {
                        if p != n {
                            return false;
                        }
                    }
                }
                None => {
                    // The name is shorter than the pattern: the missing schema is the default.
                    return match part {
                        PatternPart::Any => true,
                        PatternPart::Exact(p) => i == 1 && default_schema == Some(p.as_str()),
                    };
                }
            }
        }
        true
    }

    /// Deny-side matching: aligned on the right, and a qualifier the name does not spell out
    /// is assumed to match (an unqualified `orders` may be `sales.orders` through the search
    /// path).
    pub fn matches_conservatively(&self, parts: &[String]) -> bool {
        self.parts
            .iter()
            .rev()
            .zip(parts.iter().rev())
            .all(|(p, n)| match p {
                PatternPart::Any => true,
                PatternPart::Exact(e) => e == n,
            })
    }
}

/// Splits `a."b.c".d` into `[("a", false), ("b.c", true), ("d", false)]`.
pub fn split_dotted(text: &str) -> Result<Vec<(String, bool)>, String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    let mut in_quotes = false;
    let mut chars = text.trim().chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' | '`' if in_quotes => {
                if chars.peek() == Some(&c) {
                    current.push(c);
                    chars.next();
                } else {
                    in_quotes = false;
                }
            }
            '"' | '`' if current.is_empty() => {
                in_quotes = true;
                quoted = true;
            }
            '.' if !in_quotes => {
                parts.push((std::mem::take(&mut current), quoted));
                quoted = false;
            }
            c => current.push(c),
        }
    }
    if in_quotes {
        return Err(format!("`{text}` has an unterminated quote"));
    }
    parts.push((current, quoted));
    Ok(parts)
}

/// Levenshtein distance between `a` and `b` when it is at most `limit`, else `None`. Stops as
/// soon as every cell of a row exceeds `limit`, so a hopeless pair costs a few rows, not a table.
fn bounded_distance(a: &[char], b: &[char], limit: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        current[0] = i + 1;
        let mut row_min = current[0];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            current[j + 1] = (previous[j] + cost)
                .min(previous[j + 1] + 1)
                .min(current[j] + 1);
            row_min = row_min.min(current[j + 1]);
        }
        if row_min > limit {
            return None;
        }
        std::mem::swap(&mut previous, &mut current);
    }
    Some(previous[b.len()]).filter(|d| *d <= limit)
}

/// Longest name a typo hint is looked for: past it, a hint helps no one and costs time.
const MAX_HINT_NAME_CHARS: usize = 64;

/// The closest candidate to `wanted` within a distance that still looks like a typo.
pub fn closest<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let wanted: Vec<char> = wanted.to_lowercase().chars().collect();
    if wanted.len() > MAX_HINT_NAME_CHARS {
        return None;
    }
    let limit = (wanted.len() / 3).max(2);
    let mut candidate_chars = Vec::new();
    candidates
        .into_iter()
        .filter_map(|c| {
            candidate_chars.clear();
            candidate_chars.extend(c.chars().flat_map(char::to_lowercase));
            bounded_distance(&wanted, &candidate_chars, limit).map(|d| (d, c))
        })
        .min_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(parts: &[&str]) -> Vec<String> {
        parts.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn patterns_match_from_the_right() {
        let p = Pattern::parse("public.*", Dialect::Postgres).unwrap();
        assert!(p.matches(&name(&["public", "orders"]), Some("public")));
        assert!(p.matches(&name(&["orders"]), Some("public")));
        assert!(p.matches(&name(&["db", "public", "orders"]), Some("public")));
        assert!(!p.matches(&name(&["sales", "orders"]), Some("public")));
        let p = Pattern::parse("Sales.Orders", Dialect::Postgres).unwrap();
        assert!(p.matches(&name(&["sales", "orders"]), Some("public")));
        assert!(!p.matches(&name(&["orders"]), Some("public")));
        let p = Pattern::parse("orders", Dialect::Snowflake).unwrap();
        assert!(p.matches(&name(&["DB", "S", "ORDERS"]), None));
        let p = Pattern::parse("\"MixedCase\"", Dialect::Postgres).unwrap();
        assert!(p.matches(&name(&["MixedCase"]), None));
        assert!(!p.matches(&name(&["mixedcase"]), None));
    }

    #[test]
    fn bad_patterns_are_errors() {
        assert!(Pattern::parse("a..b", Dialect::Postgres).is_err());
        assert!(Pattern::parse("\"open", Dialect::Postgres).is_err());
        assert!(Pattern::parse("a.b.c.d.e", Dialect::Postgres).is_err());
    }

    #[test]
    fn suggestions() {
        assert_eq!(edit_distance("artists", "artist"), 1);
        assert_eq!(
            closest("Artsit", ["artist", "album", "track"]),
            Some("artist")
        );
        assert_eq!(closest("zzzzzz", ["artist", "album"]), None);
    }

    /// Levenshtein distance, case-insensitive, without a limit.
    fn edit_distance(a: &str, b: &str) -> usize {
        let a: Vec<char> = a.to_lowercase().chars().collect();
        let b: Vec<char> = b.to_lowercase().chars().collect();
        bounded_distance(&a, &b, usize::MAX).unwrap_or(usize::MAX)
    }

    /// The textbook Levenshtein table, kept apart from `bounded_distance` so that the bounded
    /// version (which `edit_distance` also uses) is compared with an independent answer.
    fn full_table(a: &[char], b: &[char]) -> usize {
        let mut table = vec![vec![0; b.len() + 1]; a.len() + 1];
        (0..=a.len()).for_each(|i| table[i][0] = i);
        (0..=b.len()).for_each(|j| table[0][j] = j);
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                table[i][j] = (table[i - 1][j - 1] + cost)
                    .min(table[i - 1][j] + 1)
                    .min(table[i][j - 1] + 1);
            }
        }
        table[a.len()][b.len()]
    }

    #[test]
    fn bounded_distance_agrees_with_the_full_table_within_the_limit() {
        let words = [
            "", "a", "ab", "abc", "kitten", "sitting", "saturday", "sunday", "flaw", "lawn",
        ];
        for a in words {
            for b in words {
                let (ca, cb): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
                let full = full_table(&ca, &cb);
                assert_eq!(edit_distance(a, b), full, "{a} {b}");
                for limit in 0..8 {
                    let expected = (full <= limit).then_some(full);
                    assert_eq!(
                        bounded_distance(&ca, &cb, limit),
                        expected,
                        "{a} {b} {limit}"
                    );
                }
            }
        }
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn long_names_get_hints_up_to_a_length_and_none_past_it() {
        let long = "customer_lifetime_value_by_region_and_quarter";
        assert_eq!(
            closest(
                "customer_lifetime_value_by_regoin_and_quarter",
                [long, "album"]
            ),
            Some(long)
        );
        // A fuzzer's 200-character name against every candidate used to cost milliseconds.
        let absurd = "y".repeat(200);
        let candidates: Vec<String> = (0..2000).map(|i| format!("f{i}_{absurd}")).collect();
        assert_eq!(
            closest(&absurd, candidates.iter().map(String::as_str)),
            None
        );
    }
}
