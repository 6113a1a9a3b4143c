//! The settings file's `[[queries]]` and `[[prompts]]`, checked before anything connects:
//! names (unique, not a built-in tool's), parameters, and the principals named.

use super::error::ConfigError;
use super::file::FileConfig;
use super::principals::DEFAULT_PRINCIPAL;
use crate::gate::published::Published;
use crate::tools::SqlGateServer;

/// The queries and prompts of `file`.
pub fn resolve_published(file: &FileConfig) -> Result<Published, ConfigError> {
    let published = Published {
        queries: file.queries.clone(),
        prompts: file.prompts.clone(),
    };
    let principals: Option<Vec<String>> = (!file.principals.is_empty()).then(|| {
        let mut names: Vec<String> = file.principals.iter().map(|p| p.name.clone()).collect();
        names.push(DEFAULT_PRINCIPAL.to_string());
        names
    });
    published
        .validate(SqlGateServer::all_tool_names(), principals.as_deref())
        .map_err(ConfigError)?;
    Ok(published)
}
