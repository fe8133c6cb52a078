//! What a policy's input file becomes once parsed. The core reads no file: the runner reads the
//! bytes, the policy's parser turns them into one of these, and the policy gets it back typed.

use std::any::Any;
use std::sync::Arc;

/// A parsed input: any value that can say what it holds.
pub trait InputData: Any + Send + Sync {
    /// What the file holds, for `blox validate` ("1001 job sizes").
    fn summary(&self) -> String;
}

/// An input as its parser made it, shared by every run of a sweep that reads it.
pub type ParsedInput = Arc<dyn InputData>;
