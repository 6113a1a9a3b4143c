//! The engine-independent part of the cost cap: before an approved read runs, the planner's
//! estimate of it (each engine's `plan` module reads its own EXPLAIN into an [`Estimate`]) is
//! compared with the operator's caps. `max_cost` bounds the plan's total cost (the planner's own
//! unit, which accounts for a LIMIT that stops early); `max_estimated_rows` bounds the largest
//! row count of any step, so that a cross join of two large tables is refused even under
//! `LIMIT 100`. SQLite has no cost estimate: the caps do not apply there.

/// The operator's caps (both off by default).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CostCap {
    /// The highest plan cost allowed (planner units).
    pub max_cost: Option<f64>,
    /// The most rows any step of the plan may be estimated to produce.
    pub max_estimated_rows: Option<u64>,
}

impl CostCap {
    /// True when a cap is set.
    pub fn is_set(&self) -> bool {
        self.max_cost.is_some() || self.max_estimated_rows.is_some()
    }

    /// Why `estimate` is over a cap, if it is.
    pub fn exceeded_by(&self, estimate: &Estimate) -> Option<String> {
        if let (Some(cap), Some(cost)) = (self.max_cost, estimate.cost) {
            if cost > cap {
                return Some(format!(
                    "the planner estimates a cost of {cost:.0}, over the cap of {cap:.0}"
                ));
            }
        }
        if let Some(cap) = self.max_estimated_rows {
            if estimate.rows > cap as f64 {
                return Some(format!(
                    "the planner estimates {:.0} rows at the largest step, over the cap of {cap}",
                    estimate.rows
                ));
            }
        }
        None
    }
}

/// What the planner expects of a query.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// Total cost of the plan, where the engine reports one.
    pub cost: Option<f64>,
    /// The largest row estimate of any step.
    pub rows: f64,
    /// What to do about the largest step, in words for the agent.
    pub advice: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cap_is_exceeded_by_cost_or_rows() {
        let e = Estimate {
            cost: Some(500.0),
            rows: 2_000_000.0,
            advice: String::new(),
        };
        let cost = CostCap {
            max_cost: Some(100.0),
            max_estimated_rows: None,
        };
        assert!(cost
            .exceeded_by(&e)
            .is_some_and(|m| m.contains("cost of 500")));
        let rows = CostCap {
            max_cost: None,
            max_estimated_rows: Some(1_000_000),
        };
        assert!(rows
            .exceeded_by(&e)
            .is_some_and(|m| m.contains("2000000 rows")));
        assert_eq!(CostCap::default().exceeded_by(&e), None);
    }
}
