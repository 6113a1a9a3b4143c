//! sqlgate's parser dialect: sqlparser's built-in dialect for the policy's dialect, wrapped to
//! read a few constructs the built-in one refuses although the engine accepts them. Each one is
//! parsed into an equivalent tree that prints back as SQL the engine reads the same way and that
//! parses back into the same tree (the guard's self-check):
//!
//! - `TABLE t` as a statement (PostgreSQL, MySQL 8, DuckDB, ANSI): sqlparser reads `TABLE t` as a
//!   query body (in a subquery or after UNION) but not at the start of a statement. It becomes the
//!   query `TABLE t`, a [`SetExpr::Table`](sqlparser::ast::SetExpr::Table) the validator checks
//!   like any table reference.
//! - `x [NOT] BETWEEN SYMMETRIC a AND b` (PostgreSQL, ANSI): becomes
//!   `(x BETWEEN a AND b OR x BETWEEN b AND a)` (`(x NOT BETWEEN a AND b AND x NOT BETWEEN b AND a)`),
//!   which is how PostgreSQL itself expands it. `BETWEEN ASYMMETRIC` (also DuckDB) is plain
//!   `BETWEEN`.
//!
//! Everything else is delegated, method by method, to the built-in dialect, whose type id the
//! wrapper reports so that sqlparser's own dialect tests (`dialect_of!`) behave as before. Token
//! level rewrites that no parser hook can reach (`FOR READ ONLY`, string offsets in window frames)
//! live in [`crate::parse`].

use core::any::TypeId;
use core::iter::Peekable;
use core::str::Chars;

use sqlparser::ast::{
    BinaryOperator, ColumnOption, DataType, Expr, GranteesType, Ident, ObjectNamePart, Statement,
};
use sqlparser::dialect::{BindPlaceholderStyle, Dialect as SpDialect, Precedence};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// Which of the extra constructs a dialect's engine reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Extensions {
    /// `TABLE name` as a statement.
    pub table_statement: bool,
    /// `BETWEEN SYMMETRIC` (and NOT BETWEEN SYMMETRIC).
    pub between_symmetric: bool,
    /// `BETWEEN ASYMMETRIC` (the default meaning of BETWEEN, spelled out).
    pub between_asymmetric: bool,
}

/// A built-in sqlparser dialect plus [`Extensions`]. Generic over the wrapped dialect, so that
/// delegating costs no second dynamic call.
#[derive(Debug)]
pub struct SqlgateDialect<D> {
    inner: D,
    extensions: Extensions,
}

impl<D: SpDialect> SqlgateDialect<D> {
    /// Wraps `inner`, reading the constructs `extensions` enables.
    pub const fn new(inner: D, extensions: Extensions) -> SqlgateDialect<D> {
        SqlgateDialect { inner, extensions }
    }
}

/// Delegates each listed method to the wrapped dialect.
macro_rules! delegate {
    ($( fn $name:ident(&self $(, $arg:ident : $ty:ty)*) -> $ret:ty; )*) => {
        $(
            fn $name(&self $(, $arg: $ty)*) -> $ret {
                self.inner.$name($($arg),*)
            }
        )*
    };
}

impl<D: SpDialect> SpDialect for SqlgateDialect<D> {
    fn dialect(&self) -> TypeId {
        self.inner.dialect()
    }

    fn parse_statement(&self, parser: &mut Parser) -> Option<Result<Statement, ParserError>> {
        if self.extensions.table_statement && parser.peek_keyword(Keyword::TABLE) {
            return Some(parser.parse_query().map(Statement::Query));
        }
        self.inner.parse_statement(parser)
    }

    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &Expr,
        precedence: u8,
    ) -> Option<Result<Expr, ParserError>> {
        if self.extensions.between_symmetric || self.extensions.between_asymmetric {
            if let Some(parsed) = self.between_with_symmetry(parser, expr) {
                return Some(parsed);
            }
        }
        self.inner.parse_infix(parser, expr, precedence)
    }

    delegate! {
        fn is_delimited_identifier_start(&self, ch: char) -> bool;
        fn is_nested_delimited_identifier_start(&self, ch: char) -> bool;
        fn peek_nested_delimited_identifier_quotes(&self, chars: Peekable<Chars<'_>>) -> Option<(char, Option<char>)>;
        fn identifier_quote_style(&self, identifier: &str) -> Option<char>;
        fn ordered_bind_placeholder_style(&self) -> Option<BindPlaceholderStyle>;
        fn is_identifier_start(&self, ch: char) -> bool;
        fn is_identifier_part(&self, ch: char) -> bool;
        fn is_custom_operator_part(&self, ch: char) -> bool;
        fn supports_string_literal_backslash_escape(&self) -> bool;
        fn supports_national_string_literal(&self) -> bool;
        fn supports_literal_prefix_in_qualified_name(&self) -> bool;
        fn ignores_wildcard_escapes(&self) -> bool;
        fn supports_unicode_string_literal(&self) -> bool;
        fn supports_filter_during_aggregation(&self) -> bool;
        fn supports_window_clause_named_window_reference(&self) -> bool;
        fn supports_within_after_array_aggregation(&self) -> bool;
        fn supports_partition_by_after_order_by(&self) -> bool;
        fn supports_array_join_syntax(&self) -> bool;
        fn supports_drop_group(&self) -> bool;
        fn supports_alter_user_as_alter_role(&self) -> bool;
        fn supports_cte_materialization(&self) -> bool;
        fn supports_create_group(&self) -> bool;
        fn supports_create_role_if_not_exists(&self) -> bool;
        fn supports_group_by_expr(&self) -> bool;
        fn supports_group_by_with_modifier(&self) -> bool;
        fn supports_left_associative_joins_without_parens(&self) -> bool;
        fn supports_outer_join_operator(&self) -> bool;
        fn supports_cross_join_constraint(&self) -> bool;
        fn supports_comma_join_constraint(&self) -> bool;
        fn supports_connect_by(&self) -> bool;
        fn supports_execute_immediate(&self) -> bool;
        fn supports_match_recognize(&self) -> bool;
        fn supports_in_empty_list(&self) -> bool;
        fn supports_in_unparenthesized_expr(&self) -> bool;
        fn supports_global_in(&self) -> bool;
        fn supports_in_table_expression(&self) -> bool;
        fn supports_start_transaction_modifier(&self) -> bool;
        fn supports_end_transaction_modifier(&self) -> bool;
        fn supports_named_fn_args_with_eq_operator(&self) -> bool;
        fn supports_named_fn_args_with_colon_operator(&self) -> bool;
        fn supports_named_fn_args_with_assignment_operator(&self) -> bool;
        fn supports_named_fn_args_with_rarrow_operator(&self) -> bool;
        fn supports_named_fn_args_with_expr_name(&self) -> bool;
        fn supports_numeric_prefix(&self) -> bool;
        fn supports_tuple_element_access(&self) -> bool;
        fn supports_numeric_literal_underscores(&self) -> bool;
        fn supports_non_decimal_integer_literals(&self) -> bool;
        fn supports_window_function_null_treatment_arg(&self) -> bool;
        fn supports_dictionary_syntax(&self) -> bool;
        fn support_map_literal_syntax(&self) -> bool;
        fn supports_lambda_functions(&self) -> bool;
        fn supports_lambda_keyword_syntax(&self) -> bool;
        fn supports_parenthesized_set_variables(&self) -> bool;
        fn supports_comma_separated_set_assignments(&self) -> bool;
        fn supports_update_order_by(&self) -> bool;
        fn supports_select_wildcard_except(&self) -> bool;
        fn convert_type_before_value(&self) -> bool;
        fn supports_triple_quoted_string(&self) -> bool;
        fn parse_prefix(&self, parser: &mut Parser) -> Option<Result<Expr, ParserError>>;
        fn supports_approximate_percentile_disc(&self) -> bool;
        fn supports_trailing_commas(&self) -> bool;
        fn supports_limit_comma(&self) -> bool;
        fn supports_string_literal_concatenation(&self) -> bool;
        fn supports_string_literal_concatenation_with_newline(&self) -> bool;
        fn supports_projection_trailing_commas(&self) -> bool;
        fn supports_from_trailing_commas(&self) -> bool;
        fn supports_column_definition_trailing_commas(&self) -> bool;
        fn supports_object_name_double_dot_notation(&self) -> bool;
        fn supports_struct_literal(&self) -> bool;
        fn supports_empty_projections(&self) -> bool;
        fn supports_select_expr_star(&self) -> bool;
        fn supports_from_first_select(&self) -> bool;
        fn supports_from_first_insert(&self) -> bool;
        fn supports_pipe_operator(&self) -> bool;
        fn supports_user_host_grantee(&self) -> bool;
        fn supports_match_against(&self) -> bool;
        fn supports_select_wildcard_exclude(&self) -> bool;
        fn supports_select_exclude(&self) -> bool;
        fn supports_create_table_multi_schema_info_sources(&self) -> bool;
        fn supports_select_modifiers(&self) -> bool;
        fn get_next_precedence(&self, parser: &Parser) -> Option<Result<u8, ParserError>>;
        fn get_next_precedence_default(&self, parser: &Parser) -> Result<u8, ParserError>;
        fn parse_data_type(&self, parser: &mut Parser) -> Option<Result<DataType, ParserError>>;
        fn parse_column_option(&self, parser: &mut Parser) -> Result<Option<Result<Option<ColumnOption>, ParserError>>, ParserError>;
        fn prec_value(&self, prec: Precedence) -> u8;
        fn prec_unknown(&self) -> u8;
        fn between_low_bound_precedence(&self) -> u8;
        fn supports_comparison_in_between_low_bound(&self) -> bool;
        fn describe_requires_table_keyword(&self) -> bool;
        fn allow_extract_custom(&self) -> bool;
        fn allow_extract_single_quotes(&self) -> bool;
        fn supports_extract_comma_syntax(&self) -> bool;
        fn supports_subquery_as_function_arg(&self) -> bool;
        fn supports_create_view_comment_syntax(&self) -> bool;
        fn supports_data_type_collation(&self) -> bool;
        fn supports_array_typedef_without_element_type(&self) -> bool;
        fn supports_array_typedef_with_parentheses(&self) -> bool;
        fn supports_array_element_not_null(&self) -> bool;
        fn supports_map_typedef_with_parentheses(&self) -> bool;
        fn supports_map_value_not_null(&self) -> bool;
        fn supports_parens_around_table_factor(&self) -> bool;
        fn supports_values_as_table_factor(&self) -> bool;
        fn supports_dollar_placeholder(&self) -> bool;
        fn supports_dollar_as_money_prefix(&self) -> bool;
        fn supports_create_index_with_clause(&self) -> bool;
        fn supports_sql_option_without_value(&self) -> bool;
        fn require_interval_qualifier(&self) -> bool;
        fn is_interval_qualifier(&self, kw: Keyword) -> bool;
        fn supports_explain_with_utility_options(&self) -> bool;
        fn supports_asc_desc_in_column_definition(&self) -> bool;
        fn supports_string_literal_column_names(&self) -> bool;
        fn supports_factorial_operator(&self) -> bool;
        fn supports_bitwise_shift_operators(&self) -> bool;
        fn supports_nested_comments(&self) -> bool;
        fn supports_hash_comment(&self) -> bool;
        fn supports_copy_from_stdin_data(&self) -> bool;
        fn requires_hash_comment_space(&self) -> bool;
        fn supports_multiline_comment_hints(&self) -> bool;
        fn supports_unterminated_block_comments(&self) -> bool;
        fn supports_eq_alias_assignment(&self) -> bool;
        fn supports_try_convert(&self) -> bool;
        fn supports_bang_not_operator(&self) -> bool;
        fn supports_listen_notify(&self) -> bool;
        fn supports_exclude_constraint(&self) -> bool;
        fn supports_load_data(&self) -> bool;
        fn supports_load_extension(&self) -> bool;
        fn supports_top_before_distinct(&self) -> bool;
        fn supports_boolean_literals(&self) -> bool;
        fn supports_show_like_before_in(&self) -> bool;
        fn supports_comment_on(&self) -> bool;
        fn supports_create_table_select(&self) -> bool;
        fn supports_create_proc_syntax(&self) -> bool;
        fn supports_leading_comma_before_table_options(&self) -> bool;
        fn supports_partiql(&self) -> bool;
        fn supports_unpivot_expr(&self) -> bool;
        fn supports_constraint_keyword_without_name(&self) -> bool;
        fn supports_key_column_option(&self) -> bool;
        fn supports_attach_partition_of(&self) -> bool;
        fn supports_detach_partition_of(&self) -> bool;
        fn supports_column_generic_options(&self) -> bool;
        fn is_reserved_for_identifier(&self, kw: Keyword) -> bool;
        fn get_reserved_keywords_for_select_item_operator(&self) -> &[Keyword];
        fn get_reserved_grantees_types(&self) -> &[GranteesType];
        fn supports_table_sample_before_alias(&self) -> bool;
        fn supports_insert_set(&self) -> bool;
        fn supports_insert_table_function(&self) -> bool;
        fn supports_insert_table_query(&self) -> bool;
        fn supports_insert_format(&self) -> bool;
        fn supports_insert_table_alias(&self) -> bool;
        fn supports_singular_value_keyword(&self) -> bool;
        fn supports_set_stmt_without_operator(&self) -> bool;
        fn is_column_alias(&self, kw: &Keyword, parser: &mut Parser) -> bool;
        fn is_select_item_alias(&self, explicit: bool, kw: &Keyword, parser: &mut Parser) -> bool;
        fn supports_over_keyword_as_column_alias(&self) -> bool;
        fn is_table_factor(&self, kw: &Keyword, parser: &mut Parser) -> bool;
        fn is_table_alias(&self, kw: &Keyword, parser: &mut Parser) -> bool;
        fn is_table_factor_alias(&self, explicit: bool, kw: &Keyword, parser: &mut Parser) -> bool;
        fn supports_string_literal_column_alias(&self, explicit: bool) -> bool;
        fn supports_string_literal_table_alias(&self, explicit: bool) -> bool;
        fn supports_table_versioning(&self) -> bool;
        fn supports_string_escape_constant(&self) -> bool;
        fn supports_table_hints(&self) -> bool;
        fn supports_indexed_by(&self) -> bool;
        fn requires_single_line_comment_whitespace(&self) -> bool;
        fn supports_array_typedef_with_brackets(&self) -> bool;
        fn supports_geometric_types(&self) -> bool;
        fn supports_tilde_like_match_operator(&self) -> bool;
        fn supports_order_by_all(&self) -> bool;
        fn supports_order_by_using_operator(&self) -> bool;
        fn supports_set_names(&self) -> bool;
        fn supports_space_separated_column_options(&self) -> bool;
        fn supports_alter_column_type_using(&self) -> bool;
        fn supports_comma_separated_drop_column_list(&self) -> bool;
        fn supports_alter_column_position(&self) -> bool;
        fn supports_add_column_if_not_exists(&self) -> bool;
        fn is_identifier_generating_function_name(&self, ident: &Ident, name_parts: &[ObjectNamePart]) -> bool;
        fn supports_notnull_operator(&self) -> bool;
        fn supports_is_operator(&self) -> bool;
        fn supports_data_type_signed_suffix(&self) -> bool;
        fn supports_data_type_zerofill_suffix(&self) -> bool;
        fn supports_interval_options(&self) -> bool;
        fn supports_create_table_like_parenthesized(&self) -> bool;
        fn supports_semantic_view_table_factor(&self) -> bool;
        fn supports_stages(&self) -> bool;
        fn supports_quote_delimited_string(&self) -> bool;
        fn supports_comment_optimizer_hint(&self) -> bool;
        fn supports_double_ampersand_operator(&self) -> bool;
        fn supports_binary_kw_as_cast(&self) -> bool;
        fn supports_select_wildcard_replace(&self) -> bool;
        fn supports_select_wildcard_ilike(&self) -> bool;
        fn supports_select_wildcard_rename(&self) -> bool;
        fn supports_select_wildcard_with_alias(&self) -> bool;
        fn supports_optimize_table(&self) -> bool;
        fn supports_install(&self) -> bool;
        fn supports_detach(&self) -> bool;
        fn supports_prewhere(&self) -> bool;
        fn supports_with_fill(&self) -> bool;
        fn supports_limit_by(&self) -> bool;
        fn supports_interpolate(&self) -> bool;
        fn supports_settings(&self) -> bool;
        fn supports_table_partitions(&self) -> bool;
        fn supports_table_inheritance_markers(&self) -> bool;
        fn supports_select_format(&self) -> bool;
        fn supports_comma_separated_trim(&self) -> bool;
        fn supports_cte_without_as(&self) -> bool;
        fn supports_select_item_multi_column_alias(&self) -> bool;
        fn supports_xml_expressions(&self) -> bool;
        fn is_custom_type_typed_string(&self, first_keyword: Keyword, qualified: bool) -> bool;
        fn supports_aliased_function_args(&self) -> bool;
        fn supports_create_table_using(&self) -> bool;
        fn supports_long_type_as_bigint(&self) -> bool;
        fn supports_map_literal_with_angle_brackets(&self) -> bool;
        fn supports_double_eq_assignment(&self) -> bool;
        fn supports_cast_empty_data_type_to_unspecified(&self) -> bool;
        fn supports_aggregate_order_by_with_empty_args(&self) -> bool;
    }
}

impl<D: SpDialect> SqlgateDialect<D> {
    /// `expr [NOT] BETWEEN {SYMMETRIC | ASYMMETRIC} low AND high`, when the next tokens are that
    /// (None otherwise: the built-in parser goes on as usual).
    fn between_with_symmetry(
        &self,
        parser: &mut Parser,
        expr: &Expr,
    ) -> Option<Result<Expr, ParserError>> {
        let negated = parser.peek_keyword(Keyword::NOT);
        let skip = usize::from(negated);
        let is = |n: usize, kw: Keyword| matches!(&parser.peek_nth_token_ref(n).token, Token::Word(w) if w.keyword == kw && w.quote_style.is_none());
        if !is(skip, Keyword::BETWEEN) {
            return None;
        }
        let symmetric = if is(skip + 1, Keyword::SYMMETRIC) && self.extensions.between_symmetric {
            true
        } else if is(skip + 1, Keyword::ASYMMETRIC) && self.extensions.between_asymmetric {
            false
        } else {
            return None;
        };
        for _ in 0..skip + 2 {
            parser.next_token();
        }
        Some(parser.parse_between(expr.clone(), negated).map(|between| {
            if symmetric {
                symmetric_between(between)
            } else {
                between
            }
        }))
    }
}

/// `x BETWEEN SYMMETRIC a AND b` as PostgreSQL expands it: `(x BETWEEN a AND b OR x BETWEEN b AND
/// a)`, and `(x NOT BETWEEN a AND b AND x NOT BETWEEN b AND a)` when negated. Bounds that are not
/// a single operand are parenthesised, so that each prints as one operand in either position.
fn symmetric_between(between: Expr) -> Expr {
    let Expr::Between {
        expr,
        negated,
        low,
        high,
    } = between
    else {
        return between;
    };
    let low = Box::new(operand(*low));
    let high = Box::new(operand(*high));
    let forward = Expr::Between {
        expr: expr.clone(),
        negated,
        low: low.clone(),
        high: high.clone(),
    };
    let backward = Expr::Between {
        expr,
        negated,
        low: high,
        high: low,
    };
    Expr::Nested(Box::new(Expr::BinaryOp {
        left: Box::new(forward),
        op: if negated {
            BinaryOperator::And
        } else {
            BinaryOperator::Or
        },
        right: Box::new(backward),
    }))
}

/// `expr` itself when it prints as one operand, else `(expr)`.
fn operand(expr: Expr) -> Expr {
    match expr {
        Expr::Identifier(_)
        | Expr::CompoundIdentifier(_)
        | Expr::Value(_)
        | Expr::TypedString(_)
        | Expr::Function(_)
        | Expr::Nested(_)
        | Expr::Cast { .. }
        | Expr::Subquery(_) => expr,
        other => Expr::Nested(Box::new(other)),
    }
}
