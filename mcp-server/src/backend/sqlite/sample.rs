//! The embedded sample database of the demo (customers, products, orders, order_lines;
//! deterministic): written into a temporary directory and served like any SQLite file.

use std::path::Path;
use std::sync::Arc;

use rusqlite::{params, Connection};

use super::SqliteBackend;
use crate::backend::ConnectError;

const FIRST: [&str; 20] = [
    "Ada", "Ben", "Chloe", "Dmitri", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kavya",
    "Liam", "Mei", "Nora", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq",
];
const LAST: [&str; 15] = [
    "Lovelace",
    "Okafor",
    "Martin",
    "Ivanov",
    "Rossi",
    "Haddad",
    "Hopper",
    "Tanaka",
    "Silva",
    "Berg",
    "Nair",
    "Walsh",
    "Chen",
    "Lindqvist",
    "Diallo",
];
const CITIES: [&str; 8] = [
    "Lisbon", "Oslo", "Nairobi", "Osaka", "Toronto", "Lyon", "Pune", "Denver",
];
const PRODUCTS: [(&str, &str, i64); 24] = [
    ("Espresso beans 1kg", "coffee", 2490),
    ("Filter coffee 500g", "coffee", 1190),
    ("Decaf beans 1kg", "coffee", 2290),
    ("Green tea 100g", "tea", 890),
    ("Earl grey 100g", "tea", 790),
    ("Chai blend 200g", "tea", 1090),
    ("Pour-over kettle", "equipment", 5900),
    ("Burr grinder", "equipment", 12900),
    ("French press", "equipment", 3490),
    ("Moka pot", "equipment", 2990),
    ("Milk frother", "equipment", 4490),
    ("Paper filters x100", "supplies", 490),
    ("Descaler", "supplies", 990),
    ("Cleaning tablets", "supplies", 1290),
    ("Ceramic mug", "tableware", 1490),
    ("Glass cup set", "tableware", 2490),
    ("Travel tumbler", "tableware", 2190),
    ("Dark chocolate", "snacks", 390),
    ("Almond biscotti", "snacks", 590),
    ("Oat cookies", "snacks", 490),
    ("Cold brew kit", "equipment", 3990),
    ("Matcha 30g", "tea", 1890),
    ("Syrup vanilla", "supplies", 690),
    ("Gift card", "gift", 2500),
];
const STATUSES: [&str; 4] = ["delivered", "delivered", "shipped", "cancelled"];

/// Number of customers in the sample database.
pub const CUSTOMERS: i64 = 60;
/// Number of orders in the sample database.
pub const ORDERS: i64 = 200;

/// A small deterministic generator (xorshift), so every build of the demo has the same rows.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Writes the sample database into `path` (which must not exist or be empty).
pub fn create_sample_db(path: &Path) -> rusqlite::Result<()> {
    let mut conn = Connection::open(path)?;
    conn.execute_batch(
        "CREATE TABLE customers (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            email TEXT NOT NULL UNIQUE,
            phone TEXT,
            city TEXT NOT NULL,
            created_at TEXT NOT NULL
         );
         CREATE TABLE products (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            category TEXT NOT NULL,
            price_cents INTEGER NOT NULL
         );
         CREATE TABLE orders (
            id INTEGER PRIMARY KEY,
            customer_id INTEGER NOT NULL REFERENCES customers(id),
            ordered_at TEXT NOT NULL,
            status TEXT NOT NULL
         );
         CREATE TABLE order_lines (
            order_id INTEGER NOT NULL REFERENCES orders(id),
            line_no INTEGER NOT NULL,
            product_id INTEGER NOT NULL REFERENCES products(id),
            quantity INTEGER NOT NULL,
            unit_price_cents INTEGER NOT NULL,
            PRIMARY KEY (order_id, line_no)
         );",
    )?;
    let tx = conn.transaction()?;
    let mut rng = Rng(0x5eed_5a1e_d00d_f00d);
    for id in 1..=CUSTOMERS {
        let first = FIRST[rng.below(FIRST.len() as u64) as usize];
        let last = LAST[rng.below(LAST.len() as u64) as usize];
        let city = CITIES[rng.below(CITIES.len() as u64) as usize];
        let email = format!(
            "{}.{}{}@example.com",
            first.to_lowercase(),
            last.to_lowercase(),
            id
        );
        let phone = format!("+1-555-{:04}", rng.below(10_000));
        let created = format!("2024-{:02}-{:02}", 1 + rng.below(12), 1 + rng.below(28));
        tx.execute(
            "INSERT INTO customers VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![id, format!("{first} {last}"), email, phone, city, created],
        )?;
    }
    for (i, (name, category, price)) in PRODUCTS.iter().enumerate() {
        tx.execute(
            "INSERT INTO products VALUES (?1, ?2, ?3, ?4)",
            params![i as i64 + 1, name, category, price],
        )?;
    }
    for id in 1..=ORDERS {
        let customer = 1 + rng.below(CUSTOMERS as u64) as i64;
        let date = format!("2025-{:02}-{:02}", 1 + rng.below(12), 1 + rng.below(28));
        let status = STATUSES[rng.below(STATUSES.len() as u64) as usize];
        tx.execute(
            "INSERT INTO orders VALUES (?1, ?2, ?3, ?4)",
            params![id, customer, date, status],
        )?;
        let lines = 1 + rng.below(4) as i64;
        for line in 1..=lines {
            let p = rng.below(PRODUCTS.len() as u64) as usize;
            let qty = 1 + rng.below(3) as i64;
            tx.execute(
                "INSERT INTO order_lines VALUES (?1, ?2, ?3, ?4, ?5)",
                params![id, line, p as i64 + 1, qty, PRODUCTS[p].2],
            )?;
        }
    }
    tx.commit()?;
    Ok(())
}

impl SqliteBackend {
    /// Creates the sample database in a temporary directory and opens it, read-only unless
    /// `writes` (a write mode changes only this temporary copy, whose path goes to stderr).
    pub fn sample(writes: bool) -> Result<SqliteBackend, ConnectError> {
        let dir = tempfile::Builder::new()
            .prefix("sqlgate-demo-")
            .tempdir()
            .map_err(|e| {
                ConnectError::Setup(format!("cannot create a temporary directory: {e}"))
            })?;
        let path = dir.path().join("shop.db");
        create_sample_db(&path)
            .map_err(|e| ConnectError::Setup(format!("cannot create the sample database: {e}")))?;
        let mut backend = SqliteBackend::open_owned(&path, Arc::new(dir))?;
        if writes {
            tracing::info!(
                "the demo's mutations change a temporary copy: {}",
                path.display()
            );
            backend = backend.allow_writes();
        }
        Ok(backend)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_database_is_deterministic() {
        let dir = tempfile::tempdir().ok();
        let Some(dir) = dir else { return };
        let a = dir.path().join("a.db");
        let b = dir.path().join("b.db");
        assert!(create_sample_db(&a).is_ok());
        assert!(create_sample_db(&b).is_ok());
        let dump = |p: &Path| -> Vec<String> {
            let Ok(c) = Connection::open(p) else {
                return vec![];
            };
            let Ok(mut s) = c.prepare(
                "SELECT customer_id || ':' || ordered_at || ':' || status FROM orders ORDER BY id",
            ) else {
                return vec![];
            };
            s.query_map([], |r| r.get::<_, String>(0))
                .map(|rows| rows.filter_map(Result::ok).collect())
                .unwrap_or_default()
        };
        let da = dump(&a);
        assert_eq!(da.len(), ORDERS as usize);
        assert_eq!(da, dump(&b));
    }
}
