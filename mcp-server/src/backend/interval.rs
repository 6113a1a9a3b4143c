//! Intervals as ISO 8601 durations: PostgreSQL's and DuckDB's intervals (months, days,
//! microseconds) render the same way.

/// An ISO 8601 duration for an interval of `months`, `days` and `micros`.
pub fn iso_interval(months: i32, days: i32, micros: i64) -> String {
    if months == 0 && days == 0 && micros == 0 {
        return "PT0S".to_string();
    }
    let mut s = String::from("P");
    let (y, m) = (months / 12, months % 12);
    if y != 0 {
        s.push_str(&format!("{y}Y"));
    }
    if m != 0 {
        s.push_str(&format!("{m}M"));
    }
    if days != 0 {
        s.push_str(&format!("{days}D"));
    }
    if micros != 0 {
        s.push('T');
        let h = micros / 3_600_000_000;
        let rest = micros % 3_600_000_000;
        let min = rest / 60_000_000;
        let us = rest % 60_000_000;
        if h != 0 {
            s.push_str(&format!("{h}H"));
        }
        if min != 0 {
            s.push_str(&format!("{min}M"));
        }
        if us != 0 {
            let secs = us / 1_000_000;
            let frac = (us % 1_000_000).abs();
            if frac == 0 {
                s.push_str(&format!("{secs}S"));
            } else {
                let sign = if us < 0 && secs == 0 { "-" } else { "" };
                let f = format!("{frac:06}");
                s.push_str(&format!("{sign}{secs}.{}S", f.trim_end_matches('0')));
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals() {
        assert_eq!(iso_interval(14, 3, 3_723_500_000), "P1Y2M3DT1H2M3.5S");
        assert_eq!(iso_interval(0, 0, 0), "PT0S");
        assert_eq!(iso_interval(0, 1, 0), "P1D");
    }
}
