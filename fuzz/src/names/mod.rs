//! Name-resolution shapes for the `grammar` target: queries over the fixture schema (customer with
//! the protected columns email and phone, employee denied) where a protected name appears as a
//! select-list alias, a derived-table / CTE / VALUES column, an outer or inner name read from
//! scalar, correlated, `EXISTS`, `IN` and `LATERAL` subqueries at every depth, in `USING (...)`,
//! `NATURAL JOIN`, WHERE / GROUP BY / HAVING / ORDER BY / window PARTITION BY and ORDER BY /
//! QUALIFY, bare, qualified (`c.email`, `customer.email`, `public.customer.email`), quoted and in
//! other cases. Whatever the guard approves must pass [`crate::oracles::protected_reads`], an
//! independent conservative resolver, and be a fixed point.

mod query;
mod shapes;
mod writer;

pub use shapes::{Cond, Expr, From, Item, Name, NameQuery, Qual, Select, Spell};
