//! What a size table can say of a function (`table.rs` reads the tables, `rules.rs` applies
//! what they say): a transfer rule from its arguments' sizes to its result's, or that it is
//! sized elsewhere.

/// Bytes of a number, a date, a boolean or another value of fixed width.
pub(crate) const FIXED: f64 = 32.0;

/// How a function's result size follows from its arguments'.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Rule {
    /// A value of at most this many bytes (a number, a hash, a date).
    Fixed(f64),
    /// No larger than its widest argument (`upper`, `trim`, `coalesce`, a decoder).
    Widest,
    /// Its arguments together (`concat`, `concat_ws`, `overlay`, MariaDB's `INSERT`).
    Sum,
    /// No larger than its arguments together: it extracts, converts, reorders or compares
    /// (`json_extract_path`, `to_tsvector`'s lexemes, a range's bounds). Declared in the table,
    /// never assumed, for the dialects with an allowlist.
    Within,
    /// Its arguments together times a factor, plus some bytes (an encoder: `hex` doubles,
    /// `to_json` may write six bytes, `\u0001`, for one).
    Scale(f64, f64),
    /// A JSON value built from its arguments: text is escaped (six bytes, `\u0001`, for one
    /// at most), a JSON value (a builder's, an aggregate's, a cast to json) is embedded as it is.
    Json,
    /// Cut to the literal number of characters at this argument (`left(x, 10)`), else its
    /// first argument.
    Cut(usize),
    /// The first argument times the literal count in the second (`repeat`, `replicate`).
    Repeat,
    /// Padded to the literal length in the second argument, or the text if longer.
    Pad,
    /// Every match in the first argument may become the third (`replace`, `regexp_replace`).
    Replace,
    /// The first argument once for each of the others (SQLite's `json_extract(j, p1, p2, ...)`
    /// returns what each path selects: `'$'` every time selects the whole value).
    Copies,
    /// The elements of the first argument, each followed by the others (a separator, a text for
    /// NULL): `array_to_string`.
    Join,
    /// A lambda (the second argument) over every element of a list (the first): each element
    /// becomes what the lambda builds from it (`list_transform`, `list_reduce`).
    Map,
    /// Its size is not modelled, though it is not a generator (it may grow faster than its
    /// input: `jsonb_pretty` indents every level): it may take a value the query builds only
    /// up to [`UNSIZED_INPUT`] bytes, and its result is treated like a value of the data.
    Unsized,
}

impl Rule {
    /// True when a call under this rule can build a value larger than its arguments together:
    /// the walker composes the sizes of an expression that holds one.
    pub(crate) fn grows(self) -> bool {
        match self {
            Rule::Fixed(_) | Rule::Widest | Rule::Sum | Rule::Within | Rule::Cut(_) => false,
            Rule::Scale(..)
            | Rule::Json
            | Rule::Repeat
            | Rule::Pad
            | Rule::Replace
            | Rule::Copies
            | Rule::Join
            | Rule::Map
            | Rule::Unsized => true,
        }
    }
}

/// The most bytes the query may build into a function whose size is not modelled.
pub(crate) const UNSIZED_INPUT: f64 = 256.0;

/// What a size table says of one function.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Decision {
    /// Its result follows this rule.
    Rule(Rule),
    /// It builds a value or rows from a literal amount: measured by `bounds::measure`.
    Generates,
    /// An aggregate that collects its rows into one value (`bounds::collects`).
    Collects,
    /// It splits a value into rows (`Kind::Split`, `Kind::Matches`, `Kind::Unnest`).
    Splits,
}
