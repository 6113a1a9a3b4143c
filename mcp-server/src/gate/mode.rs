//! Whether a write mode ([`Mode`], in [`crate::codes`]) can be served with a policy: a write mode
//! needs the policy's `writes`. (One that asks the user works over every transport: by
//! elicitation in a session, by `input_required` without one.)

use sqlgate::Policy;

pub use crate::codes::Mode;

/// Why a mode cannot serve with this policy, or `Ok` when it can.
pub fn check_mode(mode: Mode, policy: &Policy) -> Result<(), String> {
    if !mode.writes() {
        return Ok(());
    }
    if policy.writes.is_none() {
        return Err(format!(
            "--mode {} needs a policy with a `writes` section naming the tables a mutation may \
             modify; add to the policy (TOML):\n  [writes]\n  tables = [\"orders\"]\n  \
             classes = [\"mutation_create\"]   # add \"mutation_delete\" to allow DELETE\n\
             or run with --mode read_only",
            mode.as_str()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlgate::QueryClass;
    use sqlgate::WriteRules;

    #[test]
    fn approval_by_mode_and_class() {
        use QueryClass::{MutationCreate as C, MutationDelete as D};
        assert!(Mode::Safe.needs_approval(C) && Mode::Safe.needs_approval(D));
        assert!(!Mode::DeleteSafe.needs_approval(C) && Mode::DeleteSafe.needs_approval(D));
        assert!(!Mode::FullAccess.needs_approval(C) && !Mode::FullAccess.needs_approval(D));
        assert!(!Mode::ReadOnly.writes() && Mode::FullAccess.writes());
        assert_eq!(Mode::default(), Mode::ReadOnly);
    }

    #[test]
    fn write_modes_need_writes() {
        let read = Policy::default();
        assert!(check_mode(Mode::ReadOnly, &read).is_ok());
        let e = check_mode(Mode::Safe, &read).err().unwrap_or_default();
        assert!(e.contains("[writes]") && e.contains("tables"), "{e}");
        let write = Policy {
            writes: Some(WriteRules::new(&["orders"], &[QueryClass::MutationCreate])),
            ..Policy::default()
        };
        for mode in [Mode::Safe, Mode::DeleteSafe, Mode::FullAccess] {
            assert!(check_mode(mode, &write).is_ok());
        }
    }

    #[test]
    fn names_are_the_serde_names() {
        for m in [
            Mode::ReadOnly,
            Mode::Safe,
            Mode::DeleteSafe,
            Mode::FullAccess,
        ] {
            assert_eq!(serde_json::to_value(m).ok(), Some(m.as_str().into()));
        }
    }
}
