//! A sandboxed evaluator of the Python expression language used by catalog artifacts
//! (`execute_expression`, `filter_by_expression`, `apply`).
