//! The configuration's error: what a setting, a file or a flag got wrong, for stderr.

/// A configuration problem, reported on stderr with exit code exit code 2 (usage).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}
