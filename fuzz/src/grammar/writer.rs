//! The writer: renders the benign grammar token by token with trivia between tokens, and counts
//! the expression and FROM holes where a dangerous insertion may go.

use super::ast::{Expr, From, JoinKind, Select, SetOp};
use super::trivia::Sep;
use super::vocabulary::{BENIGN_FUNCTIONS, COLUMNS, MAX_DEPTH, STRINGS, TABLES};

/// The SQL being written, the trivia to put between tokens, the holes counted so far and the
/// one (if any) that gets the dangerous text.
pub(super) struct Writer<'a> {
    pub(super) out: String,
    pub(super) seps: &'a [Sep],
    pub(super) next_sep: usize,
    pub(super) expr_holes: usize,
    pub(super) from_holes: usize,
    pub(super) expr_target: Option<(usize, String)>,
    pub(super) from_target: Option<(usize, String)>,
    pub(super) ctes: usize,
}

impl Writer<'_> {
    pub(super) fn tok(&mut self, t: &str) {
        if !self.out.is_empty() {
            let sep = if self.seps.is_empty() {
                Sep::Space
            } else {
                self.seps[self.next_sep % self.seps.len()]
            };
            self.next_sep += 1;
            self.out.push_str(sep.text());
        }
        self.out.push_str(t);
    }

    /// An expression hole: returns true when the dangerous expression was written here.
    fn expr_hole(&mut self) -> bool {
        let n = self.expr_holes;
        self.expr_holes += 1;
        match &self.expr_target {
            Some((at, text)) if *at == n => {
                let text = text.clone();
                self.tok(&format!("({text})"));
                true
            }
            _ => false,
        }
    }

    fn relation_hole(&mut self) -> bool {
        let n = self.from_holes;
        self.from_holes += 1;
        match &self.from_target {
            Some((at, text)) if *at == n => {
                let text = text.clone();
                self.tok(&text);
                true
            }
            _ => false,
        }
    }

    pub(super) fn expr(&mut self, e: &Expr, depth: usize) {
        if self.expr_hole() {
            return;
        }
        let deep = depth >= MAX_DEPTH;
        match e {
            Expr::Column(c, q) => {
                let col = COLUMNS[*c as usize % COLUMNS.len()];
                match q {
                    Some(q) => self.tok(&format!("s{}.{col}", q % 3)),
                    None => self.tok(col),
                }
            }
            Expr::Int(n) => self.tok(&n.to_string()),
            Expr::Str(s) => self.tok(STRINGS[*s as usize % STRINGS.len()]),
            Expr::Null => self.tok("NULL"),
            Expr::CountStar => self.tok("count(*)"),
            _ if deep => self.tok("1"),
            Expr::Binary(l, op, r) => {
                self.tok("(");
                self.expr(l, depth + 1);
                self.tok(op.text());
                self.expr(r, depth + 1);
                self.tok(")");
            }
            Expr::Call(f, args) => self.call(*f, args, depth),
            Expr::Aggregate(f, e) => {
                self.tok(["sum", "max", "min", "avg"][*f as usize % 4]);
                self.tok("(");
                self.expr(e, depth + 1);
                self.tok(")");
            }
            Expr::Subquery(s) => {
                self.tok("(");
                self.select(s, depth + 1);
                self.tok(")");
            }
            Expr::Exists(s) => {
                self.tok("EXISTS");
                self.tok("(");
                self.select(s, depth + 1);
                self.tok(")");
            }
            Expr::InList(e, items) => self.in_list(e, items, depth),
            Expr::Case(c, t, f) => {
                self.tok("CASE");
                self.tok("WHEN");
                self.expr(c, depth + 1);
                self.tok("THEN");
                self.expr(t, depth + 1);
                self.tok("ELSE");
                self.expr(f, depth + 1);
                self.tok("END");
            }
            Expr::Cast(e) => {
                self.tok("(");
                self.expr(e, depth + 1);
                self.tok(")::text");
            }
            Expr::IsNull(e) => {
                self.tok("(");
                self.expr(e, depth + 1);
                self.tok("IS NULL");
                self.tok(")");
            }
            Expr::Not(e) => {
                self.tok("NOT");
                self.tok("(");
                self.expr(e, depth + 1);
                self.tok(")");
            }
        }
    }

    /// An allowlisted function call, with as many arguments as the function takes.
    fn call(&mut self, f: u8, args: &[Expr], depth: usize) {
        let name = BENIGN_FUNCTIONS[f as usize % BENIGN_FUNCTIONS.len()];
        self.tok(name);
        self.tok("(");
        // lower/upper/length/abs/round take one argument; the rest take one or more.
        let n = match name {
            "lower" | "upper" | "length" | "abs" | "round" => 1,
            "nullif" => 2,
            _ => args.len().clamp(1, 3),
        };
        for i in 0..n {
            if i > 0 {
                self.tok(",");
            }
            match args.get(i) {
                Some(a) => self.expr(a, depth + 1),
                None => self.tok("1"),
            }
        }
        self.tok(")");
    }

    /// `e IN (v, ...)`.
    fn in_list(&mut self, e: &Expr, items: &[u8], depth: usize) {
        self.expr(e, depth + 1);
        self.tok("IN");
        self.tok("(");
        if items.is_empty() {
            self.tok("1");
        }
        for (i, v) in items.iter().enumerate() {
            if i > 0 {
                self.tok(",");
            }
            self.tok(&v.to_string());
        }
        self.tok(")");
    }

    pub(super) fn from(&mut self, f: &From, depth: usize, alias: &mut usize) {
        if self.relation_hole() {
            return;
        }
        let deep = depth >= MAX_DEPTH;
        let next_alias = |alias: &mut usize| {
            let a = format!("s{}", *alias % 3);
            *alias += 1;
            a
        };
        match f {
            From::Cte(n) if self.ctes > 0 => {
                self.tok(&format!("c{}", *n as usize % self.ctes));
                self.tok(&next_alias(alias));
            }
            From::Table(..) | From::Cte(_) => {
                let (n, aliased) = match f {
                    From::Table(n, a) => (*n, *a),
                    _ => (0, true),
                };
                self.tok(TABLES[n as usize % TABLES.len()]);
                if aliased {
                    self.tok("AS");
                    self.tok(&next_alias(alias));
                }
            }
            _ if deep => self.tok("t"),
            From::Derived(s) | From::Lateral(s) => {
                if matches!(f, From::Lateral(_)) {
                    self.tok("LATERAL");
                }
                self.tok("(");
                self.select(s, depth + 1);
                self.tok(")");
                self.tok("AS");
                self.tok(&next_alias(alias));
            }
            From::Join(l, kind, r, on) => {
                self.from(l, depth + 1, alias);
                self.tok(match kind {
                    JoinKind::Inner => "JOIN",
                    JoinKind::Left => "LEFT JOIN",
                    JoinKind::Full => "FULL OUTER JOIN",
                    JoinKind::Cross => "CROSS JOIN",
                });
                let nested = matches!(**r, From::Join(..)) && depth + 1 < MAX_DEPTH;
                if nested {
                    self.tok("(");
                }
                self.from(r, depth + 1, alias);
                if nested {
                    self.tok(")");
                }
                if !matches!(kind, JoinKind::Cross) {
                    self.tok("ON");
                    self.expr(on, depth + 1);
                }
            }
            From::Series(n) => {
                self.tok(&format!("generate_series(1, {n})"));
                self.tok("AS");
                self.tok(&next_alias(alias));
            }
        }
    }

    pub(super) fn select(&mut self, s: &Select, depth: usize) {
        self.select_into(s, depth, None);
    }

    pub(super) fn select_into(&mut self, s: &Select, depth: usize, into: Option<&str>) {
        self.tok("SELECT");
        if s.distinct {
            self.tok("DISTINCT");
        }
        if s.items.is_empty() {
            self.expr(&Expr::Int(1), depth);
        }
        for (i, (e, alias)) in s.items.iter().take(4).enumerate() {
            if i > 0 {
                self.tok(",");
            }
            self.expr(e, depth);
            if let Some(a) = alias {
                self.tok("AS");
                self.tok(&format!("\"x{a}\""));
            }
        }
        if let Some(into) = into {
            self.tok(into);
        }
        let mut alias = 0;
        for (i, f) in s.from.iter().take(3).enumerate() {
            self.tok(if i == 0 { "FROM" } else { "," });
            self.from(f, depth, &mut alias);
        }
        if let Some(w) = &s.filter {
            self.tok("WHERE");
            self.expr(w, depth);
        }
        if !s.group_by.is_empty() {
            self.tok("GROUP BY");
            for (i, g) in s.group_by.iter().take(3).enumerate() {
                if i > 0 {
                    self.tok(",");
                }
                self.expr(g, depth);
            }
        }
        if let Some(h) = &s.having {
            self.tok("HAVING");
            self.expr(h, depth);
        }
        if let Some((op, rhs)) = &s.set_op {
            if depth < MAX_DEPTH {
                self.tok(match op {
                    SetOp::Union => "UNION",
                    SetOp::UnionAll => "UNION ALL",
                    SetOp::Intersect => "INTERSECT",
                    SetOp::Except => "EXCEPT",
                });
                self.select(rhs, depth + 1);
            }
        }
    }
}
