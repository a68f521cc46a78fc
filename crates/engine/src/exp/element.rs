//! Expressions run once per CDT element through its loop variables: a path context's filter
//! and a path modify's expression. They are built apart from any request expression and see
//! no record (bins and metadata read as unknown).

use rmpv::Value as Mp;

use super::check::{self, Ty};
use super::eval::{eval, Ctx, LoopVars};
use crate::value::Value;
use crate::ResultCode;

/// What a modify expression makes of one element.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    Unknown,
    /// The element is removed (`remove_result`).
    Remove,
    Value(Value),
}

/// A checked element expression.
pub struct ElementExp {
    tree: Mp,
    ty: Ty,
}

impl ElementExp {
    /// Checks `tree` the way a server builds an expression (`PARAMETER_ERROR` when refused).
    pub fn new(tree: Mp) -> Result<Self, ResultCode> {
        let ty = check::check(&tree)?;
        Ok(ElementExp { tree, ty })
    }

    /// Whether the element passes as a filter: None when unknown; a result that is not a
    /// boolean does not pass.
    pub fn passes(&self, vars: LoopVars) -> Result<Option<bool>, ResultCode> {
        Ok(match eval(&mut Ctx::element(vars), &self.tree)? {
            Some(Value::Bool(b)) => Some(b),
            Some(_) => Some(false),
            None => None,
        })
    }

    /// The expression's result for the element.
    pub fn outcome(&self, vars: LoopVars) -> Result<Outcome, ResultCode> {
        Ok(match eval(&mut Ctx::element(vars), &self.tree)? {
            None => Outcome::Unknown,
            Some(_) if self.ty == Ty::Remove => Outcome::Remove,
            Some(v) => Outcome::Value(v),
        })
    }
}
