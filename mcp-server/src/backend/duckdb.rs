//! DuckDB backend (cargo feature `duckdb`): the file is opened once with `access_mode=READ_ONLY`,
//! `enable_external_access=false` and `lock_configuration=true`, set in the configuration before
//! the database opens so that no statement can change them. Each query runs on its own connection
//! to that database, on a blocking thread, interrupted when the timeout passes.
//!
//! Results are read as Arrow batches and rendered to JSON here, with a string fallback (Arrow's
//! formatter) for any type without a JSON form, so a query never fails because of a type. The
//! database also sets `arrow_lossless_conversion`: without it Arrow gets TIME WITH TIME ZONE
//! without its offset; with it, DuckDB's types Arrow has no type for arrive as extension types,
//! decoded here.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use duckdb::arrow::array::{Array, AsArray};
use duckdb::arrow::datatypes::{self as dt, DataType, Field};
use duckdb::arrow::util::display::{ArrayFormatter, FormatOptions};
use duckdb::{AccessMode, Config, Connection};
use serde_json::{Map, Number, Value};

use super::{
    Collector, ColumnDetail, DbError, DbErrorCode, ForeignKeyDetail, QueryLimits, QueryResult,
    TableDetail,
};

/// The largest integer a JSON number carries exactly in every client (2^53).
const MAX_SAFE_INTEGER: i128 = 1 << 53;

/// DuckDB's resource settings for `serve` (`--duckdb-max-memory`, `--duckdb-threads`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuckdbOptions {
    /// `max_memory` (e.g. `1GB`); DuckDB's default when `None`.
    pub max_memory: Option<String>,
    /// Worker threads of the database.
    pub threads: u64,
}

impl Default for DuckdbOptions {
    fn default() -> Self {
        DuckdbOptions {
            max_memory: None,
            threads: crate::config::DEFAULT_DUCKDB_THREADS,
        }
    }
}

/// A DuckDB database opened read-only.
pub struct DuckdbBackend {
    path: PathBuf,
    /// The database; every query clones a connection from it (a `Connection` is not `Sync`).
    db: Mutex<Connection>,
}

impl DuckdbBackend {
    /// Opens the file at `path` read-only, without external access and with its configuration
    /// locked; fails when it does not exist or cannot be opened.
    pub fn open(path: &Path, options: &DuckdbOptions) -> Result<Self, DbError> {
        let unavailable = |e: duckdb::Error| {
            DbError::new(
                DbErrorCode::DatabaseUnavailable,
                format!("cannot open the DuckDB database read-only: {e}"),
            )
        };
        let mut config = Config::default()
            .access_mode(AccessMode::ReadOnly)
            .and_then(|c| c.enable_external_access(false))
            // Extensions would be downloaded or read from disk: neither is wanted.
            .and_then(|c| c.enable_autoload_extension(false))
            .and_then(|c| c.with("autoinstall_known_extensions", "false"))
            .and_then(|c| c.threads(i64::try_from(options.threads.max(1)).unwrap_or(i64::MAX)))
            // Arrow then carries TIMETZ with its offset (and UUID, HUGEINT, UHUGEINT, BIT,
            // BOOLEAN as extension types, decoded in `field_value`); without it the offset is lost.
            .and_then(|c| c.with("arrow_lossless_conversion", "true"))
            .map_err(unavailable)?;
        if let Some(m) = &options.max_memory {
            config = config.max_memory(m).map_err(unavailable)?;
        }
        // Last, so that the settings above are in place before they are locked.
        let config = config
            .with("lock_configuration", "true")
            .map_err(unavailable)?;
        // A missing file gets a message naming the path rather than DuckDB's.
        if !path.is_file() {
            return Err(DbError::new(
                DbErrorCode::DatabaseUnavailable,
                format!(
                    "cannot open the DuckDB database read-only: {} is not a file",
                    path.display()
                ),
            ));
        }
        let conn = Connection::open_with_flags(path, config).map_err(unavailable)?;
        Ok(DuckdbBackend {
            path: path.to_path_buf(),
            db: Mutex::new(conn),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A new connection to the database.
    fn connect(&self) -> Result<Connection, DbError> {
        let db = self.db.lock().unwrap_or_else(|e| e.into_inner());
        db.try_clone().map_err(|e| {
            DbError::new(
                DbErrorCode::DatabaseUnavailable,
                format!("cannot connect to the DuckDB database: {e}"),
            )
        })
    }

    /// The value of a setting, read on a connection of its own (not through the guard): lets the
    /// operator and the tests check that `access_mode`, `enable_external_access` and
    /// `lock_configuration` are what `open` set.
    pub fn setting(&self, name: &str) -> Result<String, DbError> {
        let conn = self.connect()?;
        // current_setting takes a constant, not a parameter.
        let sql = format!(
            "SELECT current_setting('{}')::VARCHAR",
            name.replace('\'', "''")
        );
        conn.query_row(&sql, [], |r| r.get(0))
            .map_err(|e| map_err(e, false))
    }

    /// Runs `work` on a connection of its own, on a blocking thread, interrupted at `timeout`;
    /// a DuckDB error is mapped knowing whether the timer interrupted it.
    async fn interrupted<T: Send + 'static>(
        &self,
        timeout: Duration,
        work: impl FnOnce(&Connection, &AtomicBool) -> duckdb::Result<T> + Send + 'static,
    ) -> Result<T, DbError> {
        let conn = self.connect()?;
        let interrupt = conn.interrupt_handle();
        let timed_out = Arc::new(AtomicBool::new(false));
        let flag = timed_out.clone();
        super::interruptible(
            timeout,
            move || {
                flag.store(true, Ordering::SeqCst);
                interrupt.interrupt();
            },
            move || {
                work(&conn, &timed_out).map_err(|e| map_err(e, timed_out.load(Ordering::SeqCst)))
            },
        )
        .await
    }

    /// Executes approved SQL under the limits.
    pub async fn execute(&self, sql: &str, limits: QueryLimits) -> Result<QueryResult, DbError> {
        let sql = sql.to_string();
        self.interrupted(limits.timeout, move |conn, timed_out| {
            run(conn, &sql, limits, timed_out)
        })
        .await
    }

    /// The planner's estimate of approved `sql` (`EXPLAIN (FORMAT json)`), interrupted at
    /// `timeout` as a query is.
    pub async fn estimate(
        &self,
        sql: &str,
        timeout: Duration,
    ) -> Result<Option<super::cost::Estimate>, DbError> {
        let explain = format!("EXPLAIN (FORMAT json) {sql}");
        let text: String = self
            .interrupted(timeout, move |conn, _| {
                conn.query_row(&explain, [], |r| r.get(1))
            })
            .await?;
        let plan: Value = serde_json::from_str(&text).map_err(|e| {
            DbError::new(
                DbErrorCode::DatabaseError,
                format!("DuckDB's EXPLAIN output is not JSON: {e}"),
            )
        })?;
        Ok(super::cost::from_duckdb_plan(&plan))
    }

    /// Reads tables, views, columns, keys and estimated row counts.
    pub async fn introspect(&self) -> Result<Vec<TableDetail>, DbError> {
        let conn = self.connect()?;
        tokio::task::spawn_blocking(move || introspect(&conn).map_err(|e| map_err(e, false)))
            .await
            .map_err(|e| DbError::new(DbErrorCode::DatabaseError, format!("worker failed: {e}")))?
    }
}

/// Maps a DuckDB error; `timed_out` says the timer interrupted the statement.
fn map_err(e: duckdb::Error, timed_out: bool) -> DbError {
    let message = e.to_string();
    if timed_out || message.contains("INTERRUPT") {
        return DbError::new(
            DbErrorCode::QueryTimeout,
            "the query ran over the statement timeout and was interrupted",
        );
    }
    DbError::new(DbErrorCode::DatabaseError, message)
}

/// The DuckDB type names of the result (`DESCRIBE` binds the query without running it): Arrow's
/// types name the storage (`FixedSizeBinary(16)` for a HUGEINT), not the type.
fn result_types(conn: &Connection, sql: &str) -> duckdb::Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!("DESCRIBE {sql}"))?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(1))?;
    rows.collect()
}

fn run(
    conn: &Connection,
    sql: &str,
    limits: QueryLimits,
    timed_out: &AtomicBool,
) -> duckdb::Result<QueryResult> {
    // Only a query can be described; anything else gets Arrow's type names, and DuckDB's own
    // answer to the statement itself (read-only, no external access) rather than DESCRIBE's.
    let types = result_types(conn, sql).unwrap_or_default();
    if timed_out.load(Ordering::SeqCst) {
        // The interrupt hit DESCRIBE, not the statement: do not start it.
        return Err(duckdb::Error::InvalidQuery);
    }
    let mut stmt = conn.prepare(sql)?;
    let stream = stmt.stream_arrow([])?;
    let schema = stream.get_schema();
    let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    let decoders: Vec<Decoder> = schema.fields().iter().map(|f| Decoder::of(f)).collect();
    let n = names.len();
    // DESCRIBE and the statement agree; should they not, Arrow's names are the fallback.
    let types: Vec<String> = (0..n)
        .map(|i| {
            types
                .get(i)
                .cloned()
                .unwrap_or_else(|| schema.field(i).data_type().to_string())
        })
        .collect();
    let mut collector = Collector::new(&names, types.clone(), limits);
    'batches: for batch in stream {
        let batch = batch?;
        for row in 0..batch.num_rows() {
            let values = batch
                .columns()
                .iter()
                .zip(&decoders)
                .map(|(col, decoder)| field_value(col.as_ref(), row, decoder))
                .collect();
            if !collector.push(values) {
                break 'batches;
            }
        }
    }
    Ok(collector.result)
}

/// A JSON integer, or a string beyond 2^53 (where JSON numbers lose digits in most clients).
fn integer(v: i128) -> Value {
    if (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&v) {
        i64::try_from(v)
            .map(Value::from)
            .unwrap_or_else(|_| Value::String(v.to_string()))
    } else {
        Value::String(v.to_string())
    }
}

/// A DuckDB type that Arrow carries as an extension type (`ARROW:extension:name` in the field's
/// metadata; DuckDB's own ones are `arrow.opaque` with a `type_name`), under
/// `arrow_lossless_conversion`: its storage alone does not say what the value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Extension {
    /// Any other type: Arrow's type says it all.
    None,
    /// `arrow.uuid`: 16 bytes, most significant first.
    Uuid,
    /// `arrow.bool8`: a BOOLEAN as one byte, 0 false.
    Bool8,
    /// HUGEINT: 16 bytes, a little-endian i128.
    Hugeint,
    /// UHUGEINT: 16 bytes, a little-endian u128.
    Uhugeint,
    /// TIME WITH TIME ZONE: DuckDB's 8 bytes ([`time_tz`]).
    TimeTz,
    /// BIT: DuckDB's storage ([`bit_string`]).
    Bit,
    /// BIGNUM (VARINT): DuckDB's storage ([`bignum`]).
    Bignum,
}

/// How to decode a field's values: its extension type and, for a LIST, STRUCT, MAP or UNION, its
/// members' (in the order Arrow lists them). Worked out once per result, so that no value reads a
/// field's metadata again.
#[derive(Debug)]
struct Decoder {
    ext: Extension,
    members: Vec<Decoder>,
}

/// The decoder of a member Arrow's schema does not have (none is ever missing).
static PLAIN: Decoder = Decoder {
    ext: Extension::None,
    members: Vec::new(),
};

impl Decoder {
    fn of(field: &Field) -> Decoder {
        let members = match field.data_type() {
            DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
                vec![Decoder::of(f)]
            }
            DataType::Struct(fields) => fields.iter().map(|f| Decoder::of(f)).collect(),
            // One member, the entries: a struct of the key and the value.
            DataType::Map(entries, _) => vec![Decoder::of(entries)],
            DataType::Union(fields, _) => fields.iter().map(|(_, f)| Decoder::of(f)).collect(),
            _ => Vec::new(),
        };
        Decoder {
            ext: extension(field),
            members,
        }
    }

    fn member(&self, i: usize) -> &Decoder {
        self.members.get(i).unwrap_or(&PLAIN)
    }
}

/// The extension type a field declares.
fn extension(field: &Field) -> Extension {
    let meta = field.metadata();
    match meta.get("ARROW:extension:name").map(String::as_str) {
        Some("arrow.uuid") => Extension::Uuid,
        Some("arrow.bool8") => Extension::Bool8,
        Some("arrow.opaque") => {
            let opaque: Value = meta
                .get("ARROW:extension:metadata")
                .and_then(|m| serde_json::from_str(m).ok())
                .unwrap_or(Value::Null);
            if opaque["vendor_name"] != "DuckDB" {
                return Extension::None;
            }
            match opaque["type_name"].as_str() {
                Some("hugeint") => Extension::Hugeint,
                Some("uhugeint") => Extension::Uhugeint,
                Some("time_tz") => Extension::TimeTz,
                Some("bit") => Extension::Bit,
                Some("bignum" | "varint") => Extension::Bignum,
                _ => Extension::None,
            }
        }
        _ => Extension::None,
    }
}

/// A value of a field `decoder` was made for: HUGEINT, UHUGEINT and BIGNUM are integers
/// (strings beyond 2^53, as [`integer`]), BOOLEAN a boolean, BIT a string of `0` and `1` (as
/// PostgreSQL's bit strings render), UUID its canonical text, TIMETZ DuckDB's text with the offset
/// (`13:14:15.25+05:30`). Storage of an unexpected layout renders as Arrow's type alone would.
fn field_value(array: &dyn Array, row: usize, decoder: &Decoder) -> Value {
    if array.is_null(row) {
        return Value::Null;
    }
    let decoded = match decoder.ext {
        Extension::None => None,
        Extension::Uuid => fixed::<16>(array, row)
            .map(|b| Value::String(uuid::Uuid::from_bytes(b).hyphenated().to_string())),
        Extension::Bool8 => array
            .as_primitive_opt::<dt::Int8Type>()
            .map(|a| Value::Bool(a.value(row) != 0)),
        Extension::Hugeint => fixed::<16>(array, row).map(|b| integer(i128::from_le_bytes(b))),
        Extension::Uhugeint => fixed::<16>(array, row).map(|b| {
            let v = u128::from_le_bytes(b);
            i128::try_from(v)
                .map(integer)
                .unwrap_or_else(|_| Value::String(v.to_string()))
        }),
        Extension::TimeTz => {
            fixed::<8>(array, row).map(|b| Value::String(time_tz(u64::from_le_bytes(b))))
        }
        Extension::Bit => bytes(array, row).and_then(bit_string).map(Value::String),
        // An integer as HUGEINT's are: a number up to 2^53, its digits beyond.
        Extension::Bignum => bytes(array, row).and_then(bignum).map(|digits| {
            digits
                .parse::<i128>()
                .map(integer)
                .unwrap_or(Value::String(digits))
        }),
    };
    decoded.unwrap_or_else(|| value(array, row, decoder))
}

/// The `N` bytes of a fixed-size binary value, or `None` for another layout.
fn fixed<const N: usize>(array: &dyn Array, row: usize) -> Option<[u8; N]> {
    match array.data_type() {
        DataType::FixedSizeBinary(_) => array.as_fixed_size_binary().value(row).try_into().ok(),
        _ => None,
    }
}

/// DuckDB's TIMETZ storage as DuckDB's own text: the microseconds of the day in the high 40 bits,
/// the offset in seconds east of UTC in the low 24, stored as 15:59:59 minus it; the time as
/// `HH:MM:SS` with the fraction's trailing zeros dropped, the offset as `+HH`, then `:MM` and
/// `:SS` only when not zero (`12:34:56+02`, `00:00:00.5-05:30`).
fn time_tz(bits: u64) -> String {
    const MAX_OFFSET: i64 = 16 * 60 * 60 - 1;
    let micros = bits >> 24;
    let offset = MAX_OFFSET - i64::try_from(bits & 0xFF_FFFF).unwrap_or(0);
    let (secs, frac) = (micros / 1_000_000, micros % 1_000_000);
    let mut out = format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    if frac != 0 {
        let digits = format!("{frac:06}");
        out.push('.');
        out.push_str(digits.trim_end_matches('0'));
    }
    let abs = offset.unsigned_abs();
    out.push(if offset < 0 { '-' } else { '+' });
    out.push_str(&format!("{:02}", abs / 3600));
    let (mm, ss) = (abs / 60 % 60, abs % 60);
    if mm != 0 || ss != 0 {
        out.push_str(&format!(":{mm:02}"));
    }
    if ss != 0 {
        out.push_str(&format!(":{ss:02}"));
    }
    out
}

/// DuckDB's BIGNUM storage as its decimal digits: a 3-byte header (its top bit set for a value
/// at least zero, the rest the byte count) then the magnitude, most significant byte first; a
/// negative value has every byte inverted.
fn bignum(raw: &[u8]) -> Option<String> {
    let (header, data) = raw.split_at_checked(3)?;
    let negative = header.first()? & 0x80 == 0;
    let magnitude: Vec<u8> = if negative {
        data.iter().map(|b| !b).collect()
    } else {
        data.to_vec()
    };
    // Base 10^9 limbs, least significant first, built by multiplying in each byte.
    let mut limbs: Vec<u32> = vec![0];
    for byte in magnitude {
        let mut carry = u64::from(byte);
        for limb in &mut limbs {
            let v = u64::from(*limb) * 256 + carry;
            *limb = u32::try_from(v % 1_000_000_000).ok()?;
            carry = v / 1_000_000_000;
        }
        while carry > 0 {
            limbs.push(u32::try_from(carry % 1_000_000_000).ok()?);
            carry /= 1_000_000_000;
        }
    }
    let mut digits = String::new();
    let mut rest = limbs.iter().rev();
    digits.push_str(&rest.next()?.to_string());
    for limb in rest {
        digits.push_str(&format!("{limb:09}"));
    }
    if negative && digits != "0" {
        digits.insert(0, '-');
    }
    Some(digits)
}

/// The bytes of a binary value, whichever Arrow layout carries them.
fn bytes(array: &dyn Array, row: usize) -> Option<&[u8]> {
    match array.data_type() {
        DataType::Binary => Some(array.as_binary::<i32>().value(row)),
        DataType::LargeBinary => Some(array.as_binary::<i64>().value(row)),
        DataType::BinaryView => Some(array.as_binary_view().value(row)),
        _ => None,
    }
}

/// DuckDB's BIT storage as its bit string: the first byte counts the padding bits that open the
/// second byte; the bits after them, most significant first, are the value (`'101'::BIT` is
/// `[5, 0b1111_1101]`).
fn bit_string(raw: &[u8]) -> Option<String> {
    let (&padding, data) = raw.split_first()?;
    let padding = usize::from(padding);
    if padding > 7 || (data.is_empty() && padding != 0) {
        return None;
    }
    let bits = (0..data.len() * 8).skip(padding).map(|i| {
        let set = data.get(i / 8).is_some_and(|b| b & (0x80 >> (i % 8)) != 0);
        if set {
            '1'
        } else {
            '0'
        }
    });
    Some(bits.collect())
}

/// Renders one Arrow value as JSON (the items of lists, structs, maps and unions each decoded by
/// [`field_value`] as their field declares): numbers, booleans, strings, base64 for bytes, arrays
/// for lists, objects for structs and maps, an INTERVAL as an ISO 8601 duration ([`interval`]), a
/// UNION as a one-key object naming its member (`{"num": 7}`; a NULL member is null, as Arrow
/// gives a union no validity of its own); decimals, dates and times as DuckDB-like strings;
/// anything else through Arrow's formatter.
fn value(array: &dyn Array, row: usize, decoder: &Decoder) -> Value {
    if array.is_null(row) {
        return Value::Null;
    }
    match array.data_type() {
        DataType::Null => Value::Null,
        DataType::Boolean => Value::Bool(array.as_boolean().value(row)),
        DataType::Int8 => Value::from(array.as_primitive::<dt::Int8Type>().value(row)),
        DataType::Int16 => Value::from(array.as_primitive::<dt::Int16Type>().value(row)),
        DataType::Int32 => Value::from(array.as_primitive::<dt::Int32Type>().value(row)),
        DataType::Int64 => integer(array.as_primitive::<dt::Int64Type>().value(row).into()),
        DataType::UInt8 => Value::from(array.as_primitive::<dt::UInt8Type>().value(row)),
        DataType::UInt16 => Value::from(array.as_primitive::<dt::UInt16Type>().value(row)),
        DataType::UInt32 => Value::from(array.as_primitive::<dt::UInt32Type>().value(row)),
        DataType::UInt64 => integer(array.as_primitive::<dt::UInt64Type>().value(row).into()),
        DataType::Float16 => float(array.as_primitive::<dt::Float16Type>().value(row).to_f64()),
        DataType::Float32 => float(array.as_primitive::<dt::Float32Type>().value(row).into()),
        DataType::Float64 => float(array.as_primitive::<dt::Float64Type>().value(row)),
        DataType::Utf8 => Value::String(array.as_string::<i32>().value(row).to_string()),
        DataType::LargeUtf8 => Value::String(array.as_string::<i64>().value(row).to_string()),
        DataType::Utf8View => Value::String(array.as_string_view().value(row).to_string()),
        DataType::Binary => base64(array.as_binary::<i32>().value(row)),
        DataType::LargeBinary => base64(array.as_binary::<i64>().value(row)),
        DataType::BinaryView => base64(array.as_binary_view().value(row)),
        DataType::FixedSizeBinary(_) => base64(array.as_fixed_size_binary().value(row)),
        DataType::List(_) => list(array.as_list::<i32>().value(row).as_ref(), decoder),
        DataType::LargeList(_) => list(array.as_list::<i64>().value(row).as_ref(), decoder),
        DataType::FixedSizeList(..) => {
            list(array.as_fixed_size_list().value(row).as_ref(), decoder)
        }
        DataType::Struct(fields) => {
            let s = array.as_struct();
            let mut out = Map::new();
            for (i, (field, col)) in fields.iter().zip(s.columns()).enumerate() {
                out.insert(
                    field.name().clone(),
                    field_value(col.as_ref(), row, decoder.member(i)),
                );
            }
            Value::Object(out)
        }
        DataType::Map(..) => {
            let entries = array.as_map().value(row);
            let (keys, values) = (entries.column(0), entries.column(1));
            let entry = decoder.member(0);
            let (key_decoder, value_decoder) = (entry.member(0), entry.member(1));
            let mut out = Map::new();
            for i in 0..entries.len() {
                let key = match field_value(keys.as_ref(), i, key_decoder) {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                out.insert(key, field_value(values.as_ref(), i, value_decoder));
            }
            Value::Object(out)
        }
        DataType::Timestamp(unit, Some(_)) => instant(array, row, *unit),
        DataType::Interval(unit) => interval(array, row, *unit),
        DataType::Union(fields, _) => {
            let u = array.as_union();
            let tag = u.type_id(row);
            let found = fields.iter().enumerate().find(|(_, (id, _))| *id == tag);
            let field = found.map(|(_, (_, f))| f);
            let member_decoder = found.map_or(&PLAIN, |(i, _)| decoder.member(i));
            let member = field_value(u.child(tag).as_ref(), u.value_offset(row), member_decoder);
            match field {
                _ if member.is_null() => Value::Null,
                Some(field) => {
                    let mut out = Map::new();
                    out.insert(field.name().clone(), member);
                    Value::Object(out)
                }
                None => member,
            }
        }
        _ => formatted(array, row),
    }
}

/// An INTERVAL as the PostgreSQL backend renders one (`render::iso_interval`): an ISO 8601
/// duration of its months, days and microseconds, each part keeping its own sign, since DuckDB
/// (like PostgreSQL) keeps them apart: `INTERVAL '1 year 2 months 3 days 04:05:06'` is
/// `P1Y2M3DT4H5M6S`, `-(INTERVAL '14 months')` `P-1Y-2M`, zero `PT0S`. DuckDB counts in
/// microseconds, which Arrow carries as nanoseconds.
fn interval(array: &dyn Array, row: usize, unit: dt::IntervalUnit) -> Value {
    let (months, days, micros) = match unit {
        dt::IntervalUnit::YearMonth => (
            array.as_primitive::<dt::IntervalYearMonthType>().value(row),
            0,
            0,
        ),
        dt::IntervalUnit::DayTime => {
            let v = array.as_primitive::<dt::IntervalDayTimeType>().value(row);
            (0, v.days, i64::from(v.milliseconds) * 1000)
        }
        dt::IntervalUnit::MonthDayNano => {
            let v = array
                .as_primitive::<dt::IntervalMonthDayNanoType>()
                .value(row);
            (v.months, v.days, v.nanoseconds / 1000)
        }
    };
    Value::String(crate::render::iso_interval(months, days, micros))
}

/// A TIMESTAMPTZ as RFC 3339 in UTC (`...Z`): Arrow's formatter needs a time zone database for
/// DuckDB's `UTC`, which this build leaves out.
fn instant(array: &dyn Array, row: usize, unit: dt::TimeUnit) -> Value {
    use chrono::DateTime;
    let at = match unit {
        dt::TimeUnit::Second => DateTime::from_timestamp(
            array.as_primitive::<dt::TimestampSecondType>().value(row),
            0,
        ),
        dt::TimeUnit::Millisecond => DateTime::from_timestamp_millis(
            array
                .as_primitive::<dt::TimestampMillisecondType>()
                .value(row),
        ),
        dt::TimeUnit::Microsecond => DateTime::from_timestamp_micros(
            array
                .as_primitive::<dt::TimestampMicrosecondType>()
                .value(row),
        ),
        dt::TimeUnit::Nanosecond => Some(DateTime::from_timestamp_nanos(
            array
                .as_primitive::<dt::TimestampNanosecondType>()
                .value(row),
        )),
    };
    match at {
        Some(t) => Value::String(t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)),
        None => formatted(array, row),
    }
}

/// A list's items, each decoded as the list's item field declares (`decoder` is the list's).
fn list(items: &dyn Array, decoder: &Decoder) -> Value {
    let item = decoder.member(0);
    Value::Array(
        (0..items.len())
            .map(|i| field_value(items, i, item))
            .collect(),
    )
}

fn float(f: f64) -> Value {
    Number::from_f64(f)
        .map(Value::Number)
        .unwrap_or_else(|| Value::String(f.to_string()))
}

fn base64(bytes: &[u8]) -> Value {
    Value::String(base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// Arrow's text for the value (decimals exact, ISO dates and times, ENUM labels, unions).
fn formatted(array: &dyn Array, row: usize) -> Value {
    let options = FormatOptions::default()
        .with_null("")
        .with_display_error(true);
    match ArrayFormatter::try_new(array, &options) {
        Ok(f) => Value::String(f.value(row).to_string()),
        Err(e) => Value::String(format!("<{}: {e}>", array.data_type())),
    }
}

/// The strings of a `VARCHAR[]` value.
fn strings(v: duckdb::types::Value) -> Vec<String> {
    match v {
        duckdb::types::Value::List(items) | duckdb::types::Value::Array(items) => items
            .into_iter()
            .filter_map(|i| match i {
                duckdb::types::Value::Text(s) => Some(s),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Tables and views of the open database (not DuckDB's internal ones), with their columns,
/// primary and foreign keys, and `duckdb_tables()`'s estimated row count.
fn introspect(conn: &Connection) -> duckdb::Result<Vec<TableDetail>> {
    let mut stmt = conn.prepare(
        "SELECT schema_name, table_name, 'table', estimated_size, comment FROM duckdb_tables() \
         WHERE database_name = current_database() AND NOT internal AND NOT temporary \
         UNION ALL \
         SELECT schema_name, view_name, 'view', NULL, comment FROM duckdb_views() \
         WHERE database_name = current_database() AND NOT internal AND NOT temporary \
         ORDER BY 1, 2",
    )?;
    let mut tables: Vec<TableDetail> = stmt
        .query_map([], |r| {
            Ok(TableDetail {
                schema: Some(r.get(0)?),
                name: r.get(1)?,
                kind: r.get(2)?,
                estimated_rows: r.get(3)?,
                comment: r.get(4)?,
                columns: Vec::new(),
                primary_key: Vec::new(),
                foreign_keys: Vec::new(),
                referenced_by: Vec::new(),
                row_filtered: false,
            })
        })?
        .collect::<duckdb::Result<_>>()?;
    let find = |tables: &[TableDetail], schema: &str, name: &str| -> Option<usize> {
        tables
            .iter()
            .position(|t| t.name == name && t.schema.as_deref() == Some(schema))
    };

    let mut stmt = conn.prepare(
        "SELECT schema_name, table_name, column_name, data_type, is_nullable, column_default, \
         comment FROM duckdb_columns() \
         WHERE database_name = current_database() AND NOT internal \
         ORDER BY schema_name, table_name, column_index",
    )?;
    let columns = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            ColumnDetail {
                name: r.get(2)?,
                data_type: r.get(3)?,
                nullable: r.get(4)?,
                default: r.get(5)?,
                comment: r.get(6)?,
                protected: false,
            },
        ))
    })?;
    for c in columns {
        let (schema, table, column) = c?;
        if let Some(i) = find(&tables, &schema, &table) {
            if let Some(t) = tables.get_mut(i) {
                t.columns.push(column);
            }
        }
    }

    let mut stmt = conn.prepare(
        "SELECT schema_name, table_name, constraint_type, constraint_column_names, \
         referenced_table, referenced_column_names FROM duckdb_constraints() \
         WHERE database_name = current_database() \
         AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY') \
         ORDER BY schema_name, table_name, constraint_index",
    )?;
    let keys = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            strings(r.get(3)?),
            r.get::<_, Option<String>>(4)?,
            strings(r.get(5)?),
        ))
    })?;
    for k in keys {
        let (schema, table, kind, columns, referenced_table, referenced_columns) = k?;
        let Some(t) = find(&tables, &schema, &table).and_then(|i| tables.get_mut(i)) else {
            continue;
        };
        if kind == "PRIMARY KEY" {
            t.primary_key = columns;
        } else if let Some(referenced_table) = referenced_table {
            // DuckDB's foreign keys stay within the schema of the referencing table.
            t.foreign_keys.push(ForeignKeyDetail {
                columns,
                referenced_schema: Some(schema),
                referenced_table,
                referenced_columns,
            });
        }
    }
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_beyond_2_pow_53_are_strings() {
        assert_eq!(integer(42), Value::from(42));
        assert_eq!(integer(-(1 << 53)), Value::from(-(1_i64 << 53)));
        assert_eq!(
            integer((1 << 53) + 1),
            Value::String("9007199254740993".into())
        );
        assert_eq!(integer(i128::MAX), Value::String(i128::MAX.to_string()));
    }

    #[test]
    fn bit_strings() {
        assert_eq!(bit_string(&[5, 0b1111_1101]).as_deref(), Some("101"));
        assert_eq!(
            bit_string(&[0, 0x80, 0x01]).as_deref(),
            Some("1000000000000001")
        );
        assert_eq!(bit_string(&[7, 0xFE]).as_deref(), Some("0"));
        assert_eq!(bit_string(&[]), None);
        assert_eq!(bit_string(&[8, 0]), None);
    }

    /// TIMETZ storage: micros << 24 | (15:59:59 - offset seconds).
    fn tz(micros: u64, offset: i64) -> String {
        let biased = u64::try_from(57_599 - offset).unwrap();
        time_tz(micros << 24 | biased)
    }

    #[test]
    fn time_tz_as_duckdb_prints_it() {
        let hms = |h: u64, m: u64, s: u64| ((h * 60 + m) * 60 + s) * 1_000_000;
        assert_eq!(tz(hms(12, 34, 56), 7200), "12:34:56+02");
        assert_eq!(
            tz(hms(12, 34, 56) + 789_000, -(5 * 3600 + 30 * 60)),
            "12:34:56.789-05:30"
        );
        assert_eq!(tz(0, 0), "00:00:00+00");
        assert_eq!(tz(500_000, 0), "00:00:00.5+00");
        assert_eq!(tz(hms(24, 0, 0), -57_599), "24:00:00-15:59:59");
        assert_eq!(tz(hms(12, 0, 0) + 10, 30), "12:00:00.00001+00:00:30");
        assert_eq!(tz(hms(23, 59, 59) + 1, 57_599), "23:59:59.000001+15:59:59");
        // DuckDB's own bytes for TIMETZ '13:14:15.25+05:30'.
        let raw = u64::from_le_bytes([167, 147, 0, 80, 104, 121, 24, 11]);
        assert_eq!(time_tz(raw), "13:14:15.25+05:30");
    }

    #[test]
    fn bignums_as_digits() {
        // DuckDB's own bytes for -123456789012345678901234567890.
        let raw = [
            127, 255, 242, 254, 113, 22, 240, 9, 60, 140, 31, 17, 177, 192, 245, 45,
        ];
        assert_eq!(
            bignum(&raw).as_deref(),
            Some("-123456789012345678901234567890")
        );
        assert_eq!(bignum(&[0x80, 0, 1, 0]).as_deref(), Some("0"));
        assert_eq!(bignum(&[0x80, 0, 2, 0x3B, 0x9A]).as_deref(), Some("15258"));
        assert_eq!(bignum(&[0x80, 0, 1, 42]).as_deref(), Some("42"));
        assert_eq!(bignum(&[0x7F, 0xFF, 0xFE, 0xFE]).as_deref(), Some("-1"));
        assert_eq!(bignum(&[0x80, 0]), None);
    }

    #[test]
    fn non_finite_floats_are_strings() {
        assert_eq!(float(1.5), Value::from(1.5));
        assert_eq!(float(f64::NAN), Value::String("NaN".into()));
        assert_eq!(float(f64::INFINITY), Value::String("inf".into()));
    }
}
