//! Rendering a payload: the first danger picks a hole (counted in a first pass) or a place in
//! the statement, and the second pass writes the SQL around it.

use super::ast::Query;
use super::danger::{expr_danger, from_danger, Danger, Prefix};
use super::writer::Writer;

impl Query {
    /// Renders the payload; the flag is true when something dangerous was inserted.
    pub fn render(&self) -> (String, bool) {
        // Only the first danger is used, so that the input shrinks well.
        let danger = self.dangers.first();
        // A first pass counts the holes.
        let (_, holes_expr, holes_from) = self.render_with(None, None, None);
        let (mut expr_target, mut from_target) = (None, None);
        match danger {
            Some(Danger::Expr(d, at)) => {
                let at = *at as usize % holes_expr.max(1);
                expr_target = Some((at, expr_danger(d)));
            }
            Some(Danger::From(d, at)) if holes_from > 0 => {
                from_target = Some((*at as usize % holes_from, from_danger(d)));
            }
            _ => {}
        }
        let (mut sql, e, f) = self.render_with(expr_target.clone(), from_target.clone(), danger);
        let mut dangerous = danger.is_some();
        if let Some(Danger::Expr(..)) = danger {
            // With no hole at all (impossible: the select list always has one) nothing is inserted.
            dangerous = e > 0;
        }
        if let Some(Danger::From(d, _)) = danger {
            if f == 0 {
                // No FROM anywhere: add one.
                sql = format!("SELECT * FROM {}", from_danger(d));
            }
        }
        (sql, dangerous)
    }

    fn render_with(
        &self,
        expr_target: Option<(usize, String)>,
        from_target: Option<(usize, String)>,
        danger: Option<&Danger>,
    ) -> (String, usize, usize) {
        let mut w = Writer {
            out: String::new(),
            seps: &self.seps[..self.seps.len().min(8)],
            next_sep: 0,
            expr_holes: 0,
            from_holes: 0,
            expr_target,
            from_target,
            ctes: self.ctes.len().min(3),
        };
        let wrap_end = match danger {
            Some(Danger::Prefix(p)) => write_prefix(&mut w, *p),
            _ => None,
        };
        let ctes = self.cte_texts(&mut w, danger);
        if !ctes.is_empty() {
            w.tok("WITH");
            w.tok(&ctes.join(", "));
        }
        let into = match danger {
            Some(Danger::Into(k)) => Some(
                [
                    "INTO newtab",
                    "INTO TEMP newtab",
                    "INTO TEMPORARY TABLE newtab",
                    "into unlogged newtab",
                ][*k as usize % 4],
            ),
            _ => None,
        };
        w.select_into(&self.body, 0, into);
        if !self.order_by.is_empty() {
            w.tok("ORDER BY");
            for (i, (e, desc)) in self.order_by.iter().take(3).enumerate() {
                if i > 0 {
                    w.tok(",");
                }
                w.expr(e, 1);
                if *desc {
                    w.tok("DESC");
                }
            }
        }
        if let Some(n) = self.limit {
            w.tok(&format!("LIMIT {}", u32::from(n) + 1));
        }
        if let Some(Danger::Lock(l)) = danger {
            w.tok(l.text());
        }
        if let Some(end) = wrap_end {
            w.tok(end);
        }
        if let Some(Danger::Stacked(s, sep)) = danger {
            w.out.push(';');
            w.out.push_str(sep.text());
            w.out.push_str(s.text());
        } else if self.trailing_semicolon {
            w.out.push(';');
        }
        (w.out, w.expr_holes, w.from_holes)
    }

    /// The CTEs, each rendered through the writer so that its holes count, with a data-modifying
    /// CTE or a lock clause inserted where the danger says.
    fn cte_texts(&self, w: &mut Writer<'_>, danger: Option<&Danger>) -> Vec<String> {
        let mut ctes: Vec<String> = Vec::new();
        let lock_in_cte = match danger {
            Some(Danger::LockInCte(l, at)) => Some((*l, *at as usize % (w.ctes + 1))),
            _ => None,
        };
        let dml_cte = match danger {
            Some(Danger::DmlCte(d, at)) => Some((*d, *at as usize % (w.ctes + 1))),
            _ => None,
        };
        let cte_count = w.ctes;
        for i in 0..=cte_count {
            if let Some((d, at)) = dml_cte {
                if at == i {
                    ctes.push(format!("d AS ({})", d.text()));
                }
            }
            if i == cte_count {
                if let Some((l, at)) = lock_in_cte {
                    if at == i {
                        ctes.push(format!("lk AS (SELECT a FROM t {})", l.text()));
                    }
                }
                break;
            }
            // Render each CTE body through the writer so its holes count.
            let start = w.out.len();
            let body_start = {
                w.tok(&format!("c{i}"));
                w.tok("AS");
                w.tok("(");
                w.out.len()
            };
            let _ = body_start;
            w.select(&self.ctes[i], 1);
            if let Some((l, at)) = lock_in_cte {
                if at == i {
                    w.tok(l.text());
                }
            }
            w.tok(")");
            let text = w.out[start..].to_string();
            w.out.truncate(start);
            ctes.push(text.trim_start().to_string());
        }
        ctes
    }
}

/// Writes the head of a wrapping statement; returns the text that closes it, if any.
fn write_prefix(w: &mut Writer<'_>, p: Prefix) -> Option<&'static str> {
    let mut wrap_end = None;
    match p {
        Prefix::ExplainAnalyze => w.tok("EXPLAIN ANALYZE"),
        Prefix::ExplainAnalyzeOption => w.tok("EXPLAIN (ANALYZE)"),
        Prefix::Explain => w.tok("EXPLAIN"),
        Prefix::CreateTableAs => w.tok("CREATE TABLE x AS"),
        Prefix::CreateView => w.tok("CREATE VIEW v AS"),
        Prefix::DeclareCursor => w.tok("DECLARE c CURSOR FOR"),
        Prefix::Prepare => w.tok("PREPARE p AS"),
        Prefix::CopyTo => {
            w.tok("COPY (");
            wrap_end = Some(") TO '/tmp/x'");
        }
        Prefix::InsertSelect => w.tok("INSERT INTO x"),
    }
    wrap_end
}
