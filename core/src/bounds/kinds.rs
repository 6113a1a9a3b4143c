//! Which functions generate, and how: a value whose bytes or rows come from a literal
//! argument (`repeat`, `lpad`, `randomblob`, `generate_series`, `numbers`, `GENERATOR`, ...), a
//! split of a value into rows, an aggregate that collects its rows into one value. Names mean
//! the same thing in every dialect that has them (a dialect without the function fails in the
//! engine); where they do not (`format`, DuckDB's `regexp_matches`), `kind` says so.

use super::format;
use crate::dialect::Dialect;
use crate::functions::FunctionUse;

/// How a function's result grows with its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Bytes: the first argument's bytes times the second (`repeat`, `replicate`).
    Repeat,
    /// Bytes: the second argument, in characters of the fill (third argument, else a space):
    /// `lpad`, `rpad`, ClickHouse's `leftPad`.
    Pad,
    /// Bytes: the first argument times this many bytes (`space`, `randomblob`, `zeroblob`,
    /// Snowflake's `randstr`, ClickHouse's `randomString`; 4 for UTF-8 code points).
    Sized(u8),
    /// Bytes: the literal at this argument times this many bytes, when the call has a second
    /// argument (a one-argument call converts, building nothing): PostgreSQL's casts called by
    /// name with a length (`bpchar(t, n, true)`, `bit(i, n)`), `polygon(npts, circle)`,
    /// DuckDB's `bitstring(t, n)`.
    Width(usize, u8),
    /// Bytes: one bit a value between the literal bounds at this argument and the next,
    /// written as a character (DuckDB's `bitstring_agg(x, min, max)`).
    Span(usize),
    /// Rows: a series over start, stop and step (`generate_series`, `range`, BigQuery's
    /// `generate_array`, Spark's `sequence`), numbers or dates.
    Series,
    /// Rows: the argument at this position (ClickHouse's `zeros(n)`, DuckDB's `FROM repeat(v,
    /// n)`, Spark's `array_repeat(v, n)`).
    Count(usize),
    /// Rows: ClickHouse's `numbers(n)` or `numbers(offset, n[, step])`.
    Numbers,
    /// Rows: the named argument (Snowflake's `GENERATOR(ROWCOUNT => n)`, DuckDB's
    /// `repeat_row(..., num_rows := n)`).
    Named(&'static str),
    /// Rows without end (ClickHouse's `generateRandom`).
    Endless,
    /// Bytes: a format string's widths and precisions (`printf`, `format`).
    Format(format::Style),
    /// Rows (array elements): the product of PostgreSQL's `array_fill` dimensions.
    ArrayFill,
    /// Bytes: the text (first argument) times the replacement (third): `replace`,
    /// `regexp_replace`, where every match, even an empty one, may become the replacement.
    Replace,
    /// Rows: the pieces of the text at this argument (`regexp_split_to_table`, the elements of
    /// a JSON text): at most one a byte, and one more. Only a text the query builds counts: a
    /// column split is the data's.
    Split(usize),
    /// Rows: PostgreSQL's `regexp_matches(text, pattern, flags)`: one, or with the flag `g`
    /// every match, the pieces of the text.
    Matches,
    /// Rows: `unnest` / `explode` of a text split into an array (`unnest(string_to_array(t,
    /// ','))`): the pieces of that text.
    Unnest,
}

/// The kind of a function called `name` (the last part of its name, lower case) in a position,
/// in `dialect` (only `format` means different things in different dialects).
pub(crate) fn kind(name: &str, used: FunctionUse, dialect: Dialect) -> Option<Kind> {
    Some(match name {
        "repeat" if used == FunctionUse::Table => Kind::Count(1),
        "repeat" | "replicate" => Kind::Repeat,
        "lpad" | "rpad" | "leftpad" | "rightpad" | "leftpadutf8" | "rightpadutf8" => Kind::Pad,
        "space"
        | "randomblob"
        | "zeroblob"
        | "randstr"
        | "randomstring"
        | "randomfixedstring"
        | "randomprintableascii" => Kind::Sized(1),
        "randomstringutf8" => Kind::Sized(4),
        "bit" | "bitstring" => Kind::Width(1, 1),
        "bpchar" => Kind::Width(1, 4),
        // A point as text: two doubles, a comma and brackets.
        "polygon" => Kind::Width(0, 56),
        "bitstring_agg" => Kind::Span(1),
        "generate_series"
        | "range"
        | "generate_array"
        | "generate_date_array"
        | "generate_timestamp_array"
        | "sequence" => Kind::Series,
        "zeros" | "zeros_mt" | "arraywithconstant" => Kind::Count(0),
        "array_repeat" | "list_resize" | "array_resize" => Kind::Count(1),
        "equi_width_bins" => Kind::Count(2),
        "numbers" | "numbers_mt" => Kind::Numbers,
        "generator" => Kind::Named("rowcount"),
        "repeat_row" => Kind::Named("num_rows"),
        "generaterandom" => Kind::Endless,
        "printf" | "format_string" => Kind::Format(format::Style::Printf),
        "format" => Kind::Format(match dialect {
            Dialect::Sqlite | Dialect::Bigquery => format::Style::Printf,
            Dialect::Postgres | Dialect::Redshift => format::Style::Postgres,
            Dialect::Duckdb | Dialect::Clickhouse => format::Style::Fmt,
            // MySQL's FORMAT(number, decimals) caps its decimals; elsewhere unknown.
            _ => return None,
        }),
        "array_fill" => Kind::ArrayFill,
        "replace" | "regexp_replace" => Kind::Replace,
        // DuckDB's regexp_matches is a test: true or false.
        "regexp_matches" if dialect == Dialect::Duckdb => return None,
        "regexp_matches" => Kind::Matches,
        "regexp_split_to_table"
        | "string_to_table"
        | "json_array_elements"
        | "jsonb_array_elements"
        | "json_array_elements_text"
        | "jsonb_array_elements_text"
        | "json_each"
        | "jsonb_each"
        | "json_each_text"
        | "jsonb_each_text"
        | "json_object_keys"
        | "jsonb_object_keys"
        | "json_tree"
        | "json_to_recordset"
        | "jsonb_to_recordset"
        | "jsonb_path_query"
        | "jsonb_path_query_tz"
        | "generate_subscripts"
        | "aclexplode" => Kind::Split(0),
        // The text is the second argument (the first names a parser or a configuration, or
        // is the record type); `ts_debug(text)` has it first.
        "ts_parse" | "ts_debug" | "json_populate_recordset" | "jsonb_populate_recordset" => {
            Kind::Split(1)
        }
        "unnest" | "explode" | "posexplode" => Kind::Unnest,
        _ => return None,
    })
}

/// True for an aggregate that collects every row's value into one value (`string_agg`,
/// `array_agg`, `group_concat`, `json_agg`, DuckDB's `list`, ...): over generated rows its
/// result grows with their product, which `max_generated_bytes` bounds.
pub(crate) fn collects(name: &str) -> bool {
    matches!(
        name,
        "string_agg"
            | "array_agg"
            | "group_concat"
            | "listagg"
            | "json_agg"
            | "jsonb_agg"
            | "json_object_agg"
            | "jsonb_object_agg"
            | "json_arrayagg"
            | "json_objectagg"
            | "json_group_array"
            | "json_group_object"
            | "jsonb_group_array"
            | "jsonb_group_object"
            | "xmlagg"
            | "range_agg"
            | "histogram"
            | "histogram_exact"
            | "variant_group_array"
            | "variant_group_object"
            | "approx_top_k"
            | "lttb"
            | "list"
            | "array_concat_agg"
            | "collect_list"
            | "collect_set"
            | "grouparray"
            | "arrayagg"
    )
}

/// Functions that split a text into an array (`unnest` of one yields its pieces).
pub(crate) fn splits_to_array(name: &str) -> bool {
    matches!(
        name,
        "string_to_array"
            | "regexp_split_to_array"
            | "string_split"
            | "str_split"
            | "string_split_regex"
            | "str_split_regex"
            | "regexp_split"
            | "split"
    )
}
