//! The class of a parsed statement, looking inside it.

use std::ops::ControlFlow;

use sqlparser::ast::{
    CopySource, CopyTarget, MergeAction, ObjectType, Select, SqliteOnConflict, Statement, Visit,
    Visitor,
};

use super::QueryClass;

/// The class of one statement, looking inside it: a data-modifying CTE, `EXPLAIN ANALYZE DELETE`,
/// `PREPARE p AS DELETE`, `SELECT ... INTO` and `CREATE TABLE AS` all count.
pub(crate) fn statement_class(statement: &Statement) -> QueryClass {
    let mut visitor = ClassVisitor {
        class: QueryClass::Select,
    };
    let _ = statement.visit(&mut visitor);
    visitor.class
}

struct ClassVisitor {
    class: QueryClass,
}

impl Visitor for ClassVisitor {
    type Break = ();

    fn pre_visit_statement(&mut self, statement: &Statement) -> ControlFlow<()> {
        self.class = self.class.max(base_class(statement));
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, select: &Select) -> ControlFlow<()> {
        if select.into.is_some() {
            self.class = self.class.max(QueryClass::Ddl);
        }
        ControlFlow::Continue(())
    }
}

/// The class of a statement's own kind, not counting what it contains.
#[expect(
    clippy::too_many_lines,
    reason = "an exhaustive match over sqlparser's Statement, one variant per line (rustfmt): none \
              behind `_`, so that a statement kind a new sqlparser adds fails to compile until \
              it is classed; splitting it would only hide variants behind a wildcard"
)]
fn base_class(statement: &Statement) -> QueryClass {
    use QueryClass::*;
    use Statement as S;
    match statement {
        S::Query(_) => Select,
        // EXPLAIN has the class of what it explains (visited as a nested statement).
        S::Explain { .. } => Select,

        S::Set(_)
        | S::Reset(_)
        | S::ShowFunctions { .. }
        | S::ShowVariable { .. }
        | S::ShowStatus { .. }
        | S::ShowVariables { .. }
        | S::ShowCreate { .. }
        | S::ShowColumns { .. }
        | S::ShowCatalogs { .. }
        | S::ShowDatabases { .. }
        | S::ShowSchemas { .. }
        | S::ShowCharset(_)
        | S::ShowObjects(_)
        | S::ShowTables { .. }
        | S::ShowViews { .. }
        | S::ShowCollation { .. }
        | S::ExplainTable { .. }
        | S::Use(_)
        | S::StartTransaction { .. }
        | S::Commit { .. }
        | S::Rollback { .. }
        | S::Savepoint { .. }
        | S::ReleaseSavepoint { .. }
        | S::Discard { .. }
        | S::Prepare { .. }
        | S::Deallocate { .. }
        | S::LISTEN { .. }
        | S::UNLISTEN { .. }
        | S::Declare { .. }
        | S::Fetch { .. }
        | S::Open(_)
        | S::Close { .. }
        | S::AlterSession { .. }
        | S::Print(_)
        | S::Assert { .. }
        | S::Return(_)
        | S::Raise(_)
        | S::RaisError { .. }
        | S::Throw(_) => Session,

        // REPLACE, INSERT OR REPLACE and UPDATE OR REPLACE delete the rows they conflict with.
        S::Insert(insert)
            if insert.replace_into || matches!(insert.or, Some(SqliteOnConflict::Replace)) =>
        {
            MutationDelete
        }
        S::Update(update) if matches!(update.or, Some(SqliteOnConflict::Replace)) => MutationDelete,
        S::Insert(_) | S::Update(_) | S::LoadData { .. } => MutationCreate,
        S::Merge(merge) => {
            if merge.clauses.iter().any(|c| match &c.action {
                MergeAction::Delete { .. } => true,
                // Oracle's `UPDATE SET ... DELETE WHERE ...` deletes too.
                MergeAction::Update(update) => update.delete_predicate.is_some(),
                _ => false,
            }) {
                MutationDelete
            } else {
                MutationCreate
            }
        }
        S::Copy {
            to, target, source, ..
        } => {
            let program = matches!(target, CopyTarget::Program { .. });
            if *to || program || matches!(source, CopySource::Query(_)) {
                Admin
            } else {
                MutationCreate
            }
        }
        S::CopyIntoSnowflake { kind, .. } => match kind {
            sqlparser::ast::CopyIntoSnowflakeKind::Table => MutationCreate,
            sqlparser::ast::CopyIntoSnowflakeKind::Location => Admin,
        },

        S::Delete(_) | S::Truncate(_) => MutationDelete,

        S::Drop {
            object_type: ObjectType::Role | ObjectType::User,
            ..
        } => Admin,

        S::CreateView(_)
        | S::CreateTable(_)
        | S::CreateVirtualTable { .. }
        | S::CreateIndex(_)
        | S::CreateForeignTable(_)
        | S::CreatePolicy(_)
        | S::CreateRule(_)
        | S::CreateConnector(_)
        | S::CreateOperator(_)
        | S::CreateOperatorFamily(_)
        | S::CreateOperatorClass(_)
        | S::CreateTextSearch(_)
        | S::CreateAggregate(_)
        | S::CreateCollation(_)
        | S::CreateSchema { .. }
        | S::CreateDatabase { .. }
        | S::CreateFunction(_)
        | S::CreateTrigger(_)
        | S::CreateProcedure { .. }
        | S::CreateMacro { .. }
        | S::CreateStage { .. }
        | S::CreateFileFormat { .. }
        | S::CreateWarehouse(_)
        | S::CreateSequence { .. }
        | S::CreateDomain(_)
        | S::CreateType { .. }
        | S::AlterTable(_)
        | S::AlterSchema(_)
        | S::AlterIndex { .. }
        | S::AlterView(_)
        | S::AlterFunction(_)
        | S::AlterType(_)
        | S::AlterCollation(_)
        | S::AlterOperator(_)
        | S::AlterOperatorFamily(_)
        | S::AlterOperatorClass(_)
        | S::AlterTextSearch(_)
        | S::AlterPolicy(_)
        | S::AlterTrigger(_)
        | S::AlterConnector { .. }
        | S::Drop { .. }
        | S::DropFunction(_)
        | S::DropDomain(_)
        | S::DropProcedure { .. }
        | S::DropPolicy(_)
        | S::DropRule(_)
        | S::DropConnector { .. }
        | S::DropOperator(_)
        | S::DropOperatorFamily(_)
        | S::DropOperatorClass(_)
        | S::DropTrigger(_)
        | S::Comment { .. }
        | S::RenameTable(_)
        | S::Msck(_)
        | S::RefreshMaterializedView(_) => Ddl,

        S::Analyze(_)
        | S::Vacuum(_)
        | S::OptimizeTable { .. }
        | S::Grant(_)
        | S::GrantRole(_)
        | S::Deny(_)
        | S::Revoke(_)
        | S::RevokeRole(_)
        | S::AlterDefaultPrivileges(_)
        | S::CreateRole(_)
        | S::AlterRole { .. }
        | S::CreateUser(_)
        | S::AlterUser(_)
        | S::CreateSecret { .. }
        | S::DropSecret { .. }
        | S::CreateServer(_)
        | S::CreateForeignDataWrapper(_)
        | S::CreateUserMapping(_)
        | S::CreateExtension(_)
        | S::DropExtension(_)
        | S::Call(_)
        | S::Execute { .. }
        | S::Kill { .. }
        | S::Lock(_)
        | S::LockTables { .. }
        | S::UnlockTables
        | S::Pragma { .. }
        | S::AttachDatabase { .. }
        | S::AttachDuckDBDatabase { .. }
        | S::DetachDuckDBDatabase { .. }
        | S::Install { .. }
        | S::Load { .. }
        | S::NOTIFY { .. }
        | S::Directory { .. }
        | S::Unload { .. }
        | S::ExportData(_)
        | S::List(_)
        | S::Put { .. }
        | S::Remove(_)
        | S::ShowProcessList { .. }
        | S::Flush { .. }
        | S::Cache { .. }
        | S::UNCache { .. }
        | S::WaitFor(_)
        | S::Case(_)
        | S::If(_)
        | S::While(_) => Admin,
    }
}
