/**
 * cfn-lint warnings the stack keeps, each with why: test/cdk/cfn-lint.test.ts fails on any other
 * warning, on every error, and on an entry here that no longer occurs. Fix a warning at its source
 * (the construct that makes it) where that can be done; list it here only where it cannot.
 */
export interface AcceptedWarning {
  /** cfn-lint's rule id, `W3005`. */
  rule: string;
  /** The template and the path in it (`<file>: Resources/<id>/...`) the warning is at. */
  at: RegExp;
  why: string;
}

/** None today: the 43 W3005 (a function's DependsOn on its role) are fixed in cdk/constructs/service-function.ts. */
export const ACCEPTED_CFN_LINT_WARNINGS: readonly AcceptedWarning[] = [];
