//! The one place a masked column may be read: a plain column (`c` or `t.c`, aliased or not) of
//! the outermost select list, which the mask rewrite (`crate::mask`) replaces by its mask.
//! Everywhere else the column is protected like `columns.deny` (with its own code,
//! `masked_column`); `columns.rs` asks [`Walker::masked_in_slot`](super::Walker) whether the
//! column being resolved is in such a slot.

use sqlparser::ast::{Expr, SelectItem};

use super::diagnostics as refuse;
use super::scope::Scope;
use super::{MaskedItem, Walker};
use crate::error::{GuardError, Location};

impl Walker<'_, '_> {
    /// The outermost select list: each plain column is a mask slot; the masks it resolved to
    /// are recorded by index. `distinct`: the SELECT is DISTINCT, under which a masked column
    /// is refused (the rows kept would depend on how the masked values compare).
    pub(super) fn masked_projection(
        &mut self,
        projection: &[SelectItem],
        distinct: bool,
        scope: &Scope<'_>,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        for (index, item) in projection.iter().enumerate() {
            self.in_mask_slot = is_plain_column(item);
            self.slot_mask = None;
            let checked = self.select_item(item, scope, location);
            self.in_mask_slot = false;
            let mask = self.slot_mask.take();
            checked?;
            if let Some(kind) = mask {
                if distinct {
                    return Err(refuse::masked_under_distinct(location));
                }
                self.analysis.masked.push(MaskedItem { index, kind });
            }
        }
        Ok(())
    }
}

/// `c`, `t.c` or `s.t.c`, with or without an alias: nothing computed from it.
fn is_plain_column(item: &SelectItem) -> bool {
    match item {
        SelectItem::UnnamedExpr(expr) | SelectItem::ExprWithAlias { expr, .. } => {
            matches!(expr, Expr::Identifier(_) | Expr::CompoundIdentifier(_))
        }
        _ => false,
    }
}
