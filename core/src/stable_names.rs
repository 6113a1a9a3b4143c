//! The one place an enum's stable names become API: `ALL`, `as_str` and `Display`, all read from
//! the derives on the enum (serde for JSON, strum for the string and the list of variants), so
//! that no layer writes a list of names again (ARCHITECTURE.md, "Verdict contract").

/// `ALL` (every variant, in declaration order), `as_str` (the serde name) and `Display` for an
/// enum that derives `strum::IntoStaticStr` and `strum::VariantArray` with the same renaming as
/// serde; core/tests/enum_names.rs checks that the two agree.
macro_rules! stable_names {
    ($enum:ident, $all_doc:literal) => {
        impl $enum {
            #[doc = $all_doc]
            pub const ALL: &'static [$enum] = <$enum as strum::VariantArray>::VARIANTS;

            /// The stable name (the serde name).
            pub fn as_str(self) -> &'static str {
                self.into()
            }
        }

        impl std::fmt::Display for $enum {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

pub(crate) use stable_names;
