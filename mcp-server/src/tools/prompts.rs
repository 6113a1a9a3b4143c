//! MCP prompts: the operator's (`[[prompts]]`, `{argument}` filled in) and one built in,
//! [`GUIDE`], which explains the tables this principal may query, the rules sqlgate enforces and
//! the published queries.

use rmcp::model::{GetPromptResult, JsonObject, Prompt, PromptArgument, PromptMessage, Role};
use rmcp::ErrorData as McpError;
use serde_json::Value;

use crate::gate::published::PromptDef;
use crate::gate::Engine;
use crate::tools::instructions::instructions;

/// The built-in prompt's name.
pub const GUIDE: &str = "sqlgate_guide";

/// The prompts `engine`'s principal is offered: the guide, then the operator's.
pub fn list(engine: &Engine) -> Vec<Prompt> {
    let mut prompts = vec![Prompt::new(
        GUIDE,
        Some(
            "The tables you may query, the rules every query must keep, and the published queries.",
        ),
        None,
    )];
    for p in &engine.published().prompts {
        let args: Vec<PromptArgument> = p
            .arguments
            .iter()
            .map(|a| {
                let arg = PromptArgument::new(a.name.clone()).with_required(a.required);
                match &a.description {
                    Some(d) => arg.with_description(d.clone()),
                    None => arg,
                }
            })
            .collect();
        prompts.push(Prompt::new(
            p.name.clone(),
            p.description.clone(),
            (!args.is_empty()).then_some(args),
        ));
    }
    prompts
}

/// The prompt `name` with `args`: an unknown prompt or a missing required argument is
/// `invalid_params`.
pub async fn get(
    engine: &Engine,
    name: &str,
    args: Option<&JsonObject>,
) -> Result<GetPromptResult, McpError> {
    if name == GUIDE {
        let text = guide(engine).await;
        return Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            text,
        )]));
    }
    let Some(def) = engine.published().prompts.iter().find(|p| p.name == name) else {
        return Err(McpError::invalid_params(
            format!("no prompt `{name}`"),
            None,
        ));
    };
    let text = fill(def, args)?;
    let mut result = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]);
    result.description = def.description.clone();
    Ok(result)
}

/// `def`'s text with each `{argument}` replaced by its value (an absent optional one by "").
fn fill(def: &PromptDef, args: Option<&JsonObject>) -> Result<String, McpError> {
    let mut text = def.text.clone();
    for a in &def.arguments {
        let value = match args.and_then(|m| m.get(&a.name)) {
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None if a.required => {
                return Err(McpError::invalid_params(
                    format!("prompt `{}` needs the argument `{}`", def.name, a.name),
                    None,
                ))
            }
            None => String::new(),
        };
        text = text.replace(&format!("{{{}}}", a.name), &value);
    }
    Ok(text)
}

/// The guide: the server's instructions, the tables (with comments) and the published
/// queries this principal sees.
async fn guide(engine: &Engine) -> String {
    let mut s = format!(
        "You query a database through sqlgate.\n\nRules: {}\n\nTables you may query:\n",
        instructions(engine)
    );
    match engine.list_tables().await {
        Ok(out) => {
            for t in out.tables {
                let name = match &t.schema {
                    Some(schema) => format!("{schema}.{}", t.name),
                    None => t.name.clone(),
                };
                s.push_str(&format!("- {name} ({})", t.kind));
                if let Some(c) = t.comment.filter(|c| !c.is_empty()) {
                    s.push_str(&format!(": {c}"));
                }
                if t.row_filtered {
                    s.push_str(" [row-filtered]");
                }
                s.push('\n');
            }
        }
        Err(e) => s.push_str(&format!("(cannot list them now: {})\n", e.message)),
    }
    s.push_str("Call describe_table for a table's columns before you write SQL.\n");
    let queries: Vec<_> = engine
        .published()
        .queries
        .iter()
        .filter(|q| q.visible_to(engine.principal()))
        .collect();
    if !queries.is_empty() {
        s.push_str("\nPublished queries (prefer them when one answers the question):\n");
        for q in queries {
            s.push_str(&format!("- {}: {}\n", q.name, q.description));
        }
    }
    s
}
