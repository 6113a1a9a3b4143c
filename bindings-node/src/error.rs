//! Core's failures as JavaScript errors: the one place where a core error (or a bad option,
//! [`OptionError`]) becomes a JS error.

use napi::bindgen_prelude::{FromNapiValue, Function, JsObjectValue, Object, Unknown};
use napi::{Env, Error, Result, Status};

use crate::convert::{self, OptionError};

/// Everything core can refuse, as the binding meets it.
pub(crate) enum Failure {
    /// An option, policy field or argument core does not accept (`what` names its kind, e.g.
    /// `option`): a `TypeError` whose `field` property names it.
    Invalid {
        what: &'static str,
        error: OptionError,
    },
    /// A query the guard refused: an `Error` whose message is `code: explanation` and whose
    /// properties are core's `GuardError` fields (camelCase) plus `queryClass` and
    /// `statementCount` (the TypeScript `Rejection`).
    Refused(sqlgate::Rejection),
}

impl Failure {
    /// A call's argument (not an option or a policy field) core does not accept: a `TypeError`
    /// naming `field` (`options` when empty).
    pub(crate) fn argument(field: &str, message: impl Into<String>) -> Self {
        Failure::Invalid {
            what: "argument",
            error: OptionError::new(field, message),
        }
    }

    /// The message of the JavaScript error.
    fn message(&self) -> String {
        match self {
            Failure::Invalid { what, error } => {
                format!("invalid {what} `{}`: {}", error.field, error.message)
            }
            Failure::Refused(r) => r.to_string(),
        }
    }

    /// The JavaScript error object. The one exhaustive match from core's failures to JS errors.
    pub(crate) fn to_js<'e>(&self, env: &'e Env) -> Result<Object<'e>> {
        match self {
            Failure::Invalid { error, .. } => {
                let ctor: Function<String, Unknown> =
                    env.get_global()?.get_named_property("TypeError")?;
                let mut object = Object::from_unknown(ctor.new_instance(self.message())?)?;
                object.set_named_property("field", error.field.as_str())?;
                Ok(object)
            }
            Failure::Refused(r) => {
                let mut error =
                    env.create_error(Error::new(Status::GenericFailure, self.message()))?;
                // Core's `GuardError` fields, camelCase, except `message` (the Error has its own).
                let fields = Object::from_unknown(convert::to_js_camel(env, &r.error)?)?;
                for key in Object::keys(&fields)? {
                    if key != "message" {
                        let value: Unknown = fields.get_named_property(&key)?;
                        error.set_named_property(&key, value)?;
                    }
                }
                error.set_named_property("queryClass", r.query_class.as_str())?;
                error.set_named_property("statementCount", convert::u32_of(r.statement_count))?;
                Ok(error)
            }
        }
    }

    /// Throws the error; returns the `napi::Error` that tells napi an exception is pending.
    pub(crate) fn throw(self, env: &Env) -> Error {
        match self.to_js(env).and_then(|object| env.throw(object)) {
            Ok(()) => Error::new(Status::PendingException, self.message()),
            Err(e) => e,
        }
    }
}

/// A binding result whose failure is thrown as the JavaScript error.
pub(crate) trait OrThrow<T> {
    /// The value, or the `napi::Error` of the thrown failure ([`Failure::throw`]).
    fn or_throw(self, env: &Env) -> Result<T>;
}

impl<T> OrThrow<T> for std::result::Result<T, Failure> {
    fn or_throw(self, env: &Env) -> Result<T> {
        self.map_err(|failure| failure.throw(env))
    }
}
